// Python programs in the forms the public code-mode peers teach models, written for this suite in
// each peer's own conventions and run unchanged: Anthropic's programmatic tool calling (tools are
// awaited bare functions, `json`, `asyncio`, `re`, `collections` and `datetime` used without an
// import, the answer printed), smolagents' CodeAgent (tools called without `await`, observations
// printed, `final_answer(...)` ends the step) and pydantic's Monty (external functions called
// without `await`, the last expression is the result). Each states its value or printed lines, its
// logs and its calls, as a plain run of the peer would give them with these tools.
import { expect } from 'vitest';
import type { CompatibilityCase } from './suite.js';

export const pythonPeerStyles: readonly CompatibilityCase[] = [
  {
    style: 'Anthropic PTC: awaited bare tool calls in a loop, the answer printed',
    program: `cities = ["Oslo", "Lima", "Nairobi", "Hanoi"]
results = {}
for city in cities:
    data = await get_weather(city=city)
    results[city] = data["temp"]

# Process results in code
warmest = max(results.items(), key=lambda x: x[1])
print(f"Warmest city: {warmest[0]} at {warmest[1]}°C")`,
    expect: { printed: ['Warmest city: Hanoi at 30°C'] },
    calls: ['tools.get_weather', 'tools.get_weather', 'tools.get_weather', 'tools.get_weather'],
  },
  {
    style: 'Anthropic PTC: datetime and json.dumps without an import, a filtered list printed',
    program: `customers = await find_customers(minSpendCents=50000)
today = datetime.date(2026, 12, 2)
loyal = []
for c in customers:
    years = (today - datetime.date.fromisoformat(c["since"])).days // 365
    if years >= 3:
        loyal.append({"name": c["name"], "years": years})
print(json.dumps(loyal))`,
    expect: {
      printed: ['[{"name": "Ana Lima", "years": 5}, {"name": "Chi Tran", "years": 3}, {"name": "Dag Moe", "years": 7}]'],
    },
    calls: ['crm.find_customers'],
  },
  {
    style: 'Anthropic PTC: asyncio.gather over a tool that answers JSON text, json.loads without an import',
    program: `skus = ["SKU-1", "SKU-2", "SKU-3"]
raw = await asyncio.gather(*[product_json(sku=s) for s in skus])
products = [json.loads(r) for r in raw]
in_stock = [p for p in products if p["stock"] > 0]
total = sum(p["priceCents"] for p in in_stock) / 100
print(f"{len(in_stock)} of {len(products)} in stock, {total:.2f} EUR together")`,
    expect: { printed: ['2 of 3 in stock, 31.49 EUR together'] },
    calls: ['shop.product_json', 'shop.product_json', 'shop.product_json'],
  },
  {
    style: 'Anthropic PTC: re.findall and collections.Counter without an import over a fetched file',
    program: `notes = await files.read(path="notes/meeting.md")
open_items = re.findall(r"- \\[ \\] (.+?) \\(@(\\w+)\\)", notes)
by_owner = collections.Counter(owner for _, owner in open_items)
for owner, count in by_owner.most_common():
    print(f"{owner}: {count} open")`,
    expect: { printed: ['bo: 1 open', 'ana: 1 open'] },
    calls: ['files.read'],
  },
  {
    style: 'smolagents: a CodeAgent step in a py fence, observations printed, then final_answer',
    program: `\`\`\`py
for city in ["Oslo", "Nairobi"]:
    weather = get_weather(city=city)
    print(f"{city}: {weather['temp']}°C, {weather['conditions']}")
final_answer("Nairobi is warmer")
\`\`\``,
    expect: { value: 'Nairobi is warmer' },
    logs: ['Oslo: 3°C, snow', 'Nairobi: 25°C, sunny'],
    calls: ['tools.get_weather', 'tools.get_weather'],
  },
  {
    style: 'smolagents: a page fetched without await, a price found with re, final_answer of an f-string',
    program: `import re

page = fetch(url="https://example.org/pricing")
print("status:", page["status"])
prices = re.findall(r"\\$(\\d+)/month", page["body"])
final_answer(f"Plans start at \${min(int(p) for p in prices)} per month")`,
    expect: { value: 'Plans start at $9 per month' },
    logs: ['status: 200'],
    calls: ['web.fetch'],
  },
  {
    style: 'smolagents: final_answer inside a loop after a retry; the orders after it are never asked for',
    program: `for order_id in ["A-1", "A-2", "A-3"]:
    try:
        info = status(orderId=order_id)
    except Exception as e:
        print(f"{order_id}: {e}")
        info = status(orderId=order_id)
    if info["status"] == "processing":
        final_answer(f"{order_id} is still processing ({info['items']} item)")
final_answer("nothing is processing")`,
    expect: { value: 'A-2 is still processing (1 item)' },
    logs: [expect.stringMatching(/^A-1: .*503 temporarily unavailable/), expect.stringMatching(/^A-2: .*503/)],
    calls: ['orders.status', 'orders.status', 'orders.status', 'orders.status'],
  },
  {
    style: 'smolagents: a helper function calling tools without await, its result rounded into final_answer',
    program: `def average(values):
    total = 0
    for v in values:
        total = add(a=total, b=v)
    return divide(dividend=total, divisor=len(values))

temps = [get_weather(city=c)["temp"] for c in ["Oslo", "Lima", "Hanoi"]]
print("temperatures:", temps)
final_answer(round(average(temps), 2))`,
    expect: { value: 18.33 },
    logs: ['temperatures: [3, 22, 30]'],
    calls: [
      'tools.get_weather',
      'tools.get_weather',
      'tools.get_weather',
      'calculator.add',
      'calculator.add',
      'calculator.add',
      'calculator.divide',
    ],
  },
  {
    style: 'smolagents: sluice.search_tools without await to find a tool, then final_answer',
    program: `hits = sluice.search_tools("weather in a city")
print(hits[0]["name"])
report = get_weather(city="Lima")
final_answer(report["conditions"])`,
    expect: { value: 'cloudy' },
    logs: ['tools.get_weather'],
    calls: ['sluice.search_tools', 'tools.get_weather'],
  },
  {
    style: "Monty: the README's external function called without await, len of its result as the last expression",
    program: `url = "https://example.org/status"
data = fetch(url)
len(data["body"])`,
    expect: { value: 84 },
    logs: [],
    calls: ['web.fetch'],
  },
  {
    style: 'Monty: external functions in a loop building a dict, the dict as the last expression',
    program: `import json

totals = {}
for sku in ["SKU-1", "SKU-3"]:
    product = json.loads(product_json(sku))
    totals[product["name"]] = product["priceCents"] * 2
totals`,
    expect: { value: { kettle: 4998, mug: 1300 } },
    calls: ['shop.product_json', 'shop.product_json'],
  },
  {
    style: "Monty: the README's async agent loop, an awaited external function until it is done",
    program: `async def collect(state, items):
    cursor = None
    while True:
        page = await issues.list(state=state, cursor=cursor, limit=3)
        items.extend(issue["id"] for issue in page["items"])
        if page["nextCursor"] is None:
            return items
        cursor = page["nextCursor"]

await collect("open", [])`,
    expect: { value: [101, 102, 104, 105, 107] },
    calls: ['issues.list', 'issues.list'],
  },
  {
    style: 'Monty: type-annotated functions calling a tool without await, an f-string as the last expression',
    program: `def temperature(city: str) -> int:
    report = get_weather(city=city)
    return report["temp"]

spread: int = temperature("Hanoi") - temperature("Oslo")
f"spread: {spread}°C"`,
    expect: { value: 'spread: 27°C' },
    logs: [],
    calls: ['tools.get_weather', 'tools.get_weather'],
  },
];
