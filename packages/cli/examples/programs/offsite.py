# The driest day this week at each office, best three first.
cities = await weather.cities()
forecasts = await asyncio.gather(*(weather.forecast(city=city, days=7) for city in cities))
best = []
for forecast in forecasts:
    day = min(forecast["days"], key=lambda d: d["rain"])
    print(f"{forecast['city']}: {day['date']} ({day['rain']:.0%} rain)")
    best.append({"city": forecast["city"], "date": day["date"], "rain": day["rain"]})
return sorted(best, key=lambda entry: entry["rain"])[:3]
