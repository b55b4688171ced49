// Python programs in the forms the public code-mode peers teach models, written for this suite in
// each peer's own conventions and run unchanged: Anthropic's programmatic tool calling (tools are
// awaited bare functions, `json`, `asyncio`, `re`, `collections` and `datetime` used without an
// import, the answer printed), smolagents' CodeAgent (tools called without `await`, observations
// printed, `final_answer(...)` ends the step, the code in a py fence closed by `<end_code>` or in
// `<code>` tags), pydantic's Monty (external functions called without `await`, the last
// expression is the result), LlamaIndex's CodeActAgent (plain synchronous calls of the helper
// functions, often positional, the answer printed, the code in `<execute>` tags as its prompt asks)
// and Vercel's AI SDK code-execution tool (plain Python run in a sandbox, the answer printed). Each
// states its value or printed lines, its logs and its calls, as a plain run of the peer would give
// them with these tools.
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
    logs: [],
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
    logs: [],
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
  {
    style: 'Anthropic PTC: a loop that stops at the first match, a flaky tool retried once',
    program: `for order_id in ["A-1", "A-2", "A-3"]:
    try:
        info = await status(orderId=order_id)
    except Exception:
        info = await status(orderId=order_id)
    if info["status"] == "delivered":
        print(f"First delivered order: {order_id} ({info['items']} items)")
        break`,
    expect: { printed: ['First delivered order: A-3 (3 items)'] },
    calls: ['orders.status', 'orders.status', 'orders.status', 'orders.status', 'orders.status', 'orders.status'],
  },
  {
    style: 'Anthropic PTC: asyncio.gather with return_exceptions=True, failures printed beside results',
    program: `cities = ["Oslo", "Atlantis", "Lima"]
results = await asyncio.gather(*[get_weather(city=c) for c in cities], return_exceptions=True)
for city, r in zip(cities, results):
    if isinstance(r, Exception):
        print(f"{city}: unavailable")
    else:
        print(f"{city}: {r['temp']}°C, {r['conditions']}")`,
    expect: { printed: ['Oslo: 3°C, snow', 'Atlantis: unavailable', 'Lima: 22°C, cloudy'] },
    calls: ['tools.get_weather', 'tools.get_weather', 'tools.get_weather'],
  },
  {
    style: 'Anthropic PTC: one awaited query per region, only the aggregate printed',
    program: `regions = ["BR", "NO", "VN"]
totals = {}
for region in regions:
    rows = await find_customers(country=region)
    totals[region] = sum(r["spendCents"] for r in rows) / 100
top = max(totals, key=totals.get)
print(f"Top region: {top} with \${totals[top]:,.2f}")`,
    expect: { printed: ['Top region: NO with $2,345.00'] },
    calls: ['crm.find_customers', 'crm.find_customers', 'crm.find_customers'],
  },
  {
    style: 'Anthropic PTC: a namespaced tool awaited, its JSON text read with json.loads without an import',
    program: `config = json.loads(await files.read(path="config/app.json"))
enabled = [name for name, on in config["features"].items() if on]
print(f"{config['name']}: {', '.join(enabled)} enabled, {config['retries']} retries")`,
    expect: { printed: ['kettle-shop: darkMode enabled, 3 retries'] },
    calls: ['files.read'],
  },
  {
    style: "smolagents: the <code> tags of smolagents' current prompt, web_search then final_answer",
    program: `<code>
import re

results = web_search(query="kettle-shop founding year")
year = re.search(r"founded in (\\d{4})", results).group(1)
print(f"found: {year}")
final_answer(int(year))
</code>`,
    expect: { value: 2014 },
    logs: ['found: 2014'],
    calls: ['tools.web_search'],
  },
  {
    style: "smolagents: the older prompt's py fence closed by <end_code>, visit_webpage then final_answer",
    program: `\`\`\`py
page = visit_webpage(url="https://example.org/about")
employees = int(page.split("Employees: ")[1].split("\\n")[0])
print(employees)
final_answer(f"kettle-shop has {employees} employees")
\`\`\`<end_code>`,
    expect: { value: 'kettle-shop has 37 employees' },
    logs: ['37'],
    calls: ['tools.visit_webpage'],
  },
  {
    style: 'smolagents: a page that fails to load printed as an observation, the next one used, a dict as final_answer',
    program: `import re

for url in ["https://example.org/careers", "https://example.org/about"]:
    try:
        content = visit_webpage(url)
        break
    except Exception as e:
        print(f"Could not open {url}: {e}")
stores = int(re.search(r"Stores: (\\d+)", content).group(1))
final_answer({"source": url, "stores": stores})`,
    expect: { value: { source: 'https://example.org/about', stores: 4 } },
    logs: [expect.stringMatching(/^Could not open https:\/\/example\.org\/careers: .*404 Client Error/)],
    calls: ['tools.visit_webpage', 'tools.visit_webpage'],
  },
  {
    style: 'smolagents: a list comprehension over a tool result, sorted names as final_answer',
    program: `big_spenders = find_customers(minSpendCents=100000)
print(f"{len(big_spenders)} customers above 1000 EUR")
final_answer(sorted(c["name"] for c in big_spenders))`,
    expect: { value: ['Ana Lima', 'Dag Moe'] },
    logs: ['2 customers above 1000 EUR'],
    calls: ['crm.find_customers'],
  },
  {
    style: 'smolagents: a set of countries as final_answer',
    program: `customers = find_customers()
countries = {c["country"] for c in customers}
print(f"{len(countries)} countries")
final_answer(countries)`,
    expect: { value: ['BR', 'NO', 'VN'] },
    logs: ['3 countries'],
    calls: ['crm.find_customers'],
  },
  {
    style: 'Monty: an async helper awaiting an external function, asyncio.gather, the list as the last expression',
    program: `import asyncio

async def temp(city: str) -> int:
    report = await get_weather(city=city)
    return report["temp"]

temps = await asyncio.gather(temp("Oslo"), temp("Lima"))
temps`,
    expect: { value: [3, 22] },
    logs: [],
    calls: ['tools.get_weather', 'tools.get_weather'],
  },
  {
    style: 'Monty: an external function called without await, a tuple as the last expression',
    program: `customers = find_customers(country="NO")
spend = sum(c["spendCents"] for c in customers) / 100
(len(customers), spend)`,
    expect: { value: [2, 2345] },
    logs: [],
    calls: ['crm.find_customers'],
  },
  {
    style: 'Monty: a dict comprehension calling an external function positionally, the dict as the last expression',
    program: `urls = ["https://example.org/pricing", "https://example.org/missing"]
{url.rsplit("/", 1)[1]: fetch(url)["status"] for url in urls}`,
    expect: { value: { pricing: 200, missing: 404 } },
    logs: [],
    calls: ['web.fetch', 'web.fetch'],
  },
  {
    style: "Anthropic PTC: an async main run with asyncio.run, two awaited calls gathered",
    program: `async def main():
    oslo, lima = await asyncio.gather(get_weather(city="Oslo"), get_weather(city="Lima"))
    print(f"Difference: {lima['temp'] - oslo['temp']}°C")

asyncio.run(main())`,
    expect: { printed: ['Difference: 19°C'] },
    calls: ['tools.get_weather', 'tools.get_weather'],
  },
  {
    style: "Anthropic PTC: a tool's dict result printed as Python shows it",
    program: `report = await get_weather(city="Hanoi")
print(report)`,
    expect: { printed: ["{'city': 'Hanoi', 'temp': 30, 'conditions': 'rain'}"] },
    calls: ['tools.get_weather'],
  },
  {
    style: "smolagents: final_answer called with its answer= keyword, as the tool's input is named",
    program: `weather = get_weather(city="Oslo")
print(weather)
final_answer(answer=f"It is {weather['temp']}°C and {weather['conditions']} in Oslo")`,
    expect: { value: 'It is 3°C and snow in Oslo' },
    logs: ["{'city': 'Oslo', 'temp': 3, 'conditions': 'snow'}"],
    calls: ['tools.get_weather'],
  },
  {
    style: 'smolagents: web_search with a positional query, lines of its Markdown printed, a count as final_answer',
    program: `results = web_search("kettle-shop founding year")
for line in results.splitlines():
    if line.startswith("["):
        print(line)
final_answer(results.count("kettle"))`,
    expect: { value: 3 },
    logs: ['[About kettle-shop](https://example.org/about)', '[Kettle history](https://example.org/history)'],
    calls: ['tools.web_search'],
  },
  {
    style: 'Monty: an external function call as the last expression, its result the value',
    program: `fetch("https://example.org/status")`,
    expect: {
      value: {
        url: 'https://example.org/status',
        status: 200,
        body: '<html><body><p>All systems operational. Last incident: 2026-11-12.</p></body></html>',
      },
    },
    logs: [],
    calls: ['web.fetch'],
  },
  {
    style: 'Anthropic PTC: collections.Counter over an awaited page of issues, the top labels printed',
    program: `from collections import Counter

page = await issues.list(state="all", limit=10)
labels = Counter(label for issue in page["items"] for label in issue["labels"])
print(labels.most_common(2))`,
    expect: { printed: ["[('bug', 3), ('feature', 2)]"] },
    calls: ['issues.list'],
  },
  {
    style: 'smolagents: a match statement on a tool result, a self-documenting f-string, final_answer',
    program: `w = get_weather(city="Lima")
temp = w["temp"]
print(f"{temp=}")
match w["conditions"]:
    case "sunny" | "cloudy":
        verdict = "go outside"
    case _:
        verdict = "stay in"
final_answer(verdict)`,
    expect: { value: 'go outside' },
    logs: ['temp=22'],
    calls: ['tools.get_weather'],
  },
];

export const llamaIndexPrograms: readonly CompatibilityCase[] = [
  {
    style: "LlamaIndex CodeAct: the docs' arithmetic through the helper functions, positional, the result printed",
    program: `# Calculate (12 + 30) * 3 - 6 / 2 using the available functions
total = add(12, 30)
tripled = multiply(total, 3)
half = divide(6, 2)
result = subtract(tripled, half)
print(f"The result is {result}")`,
    expect: { printed: ['The result is 123'] },
    calls: ['calculator.add', 'calculator.multiply', 'calculator.divide', 'calculator.subtract'],
  },
  {
    style: "LlamaIndex CodeAct: the code inside the <execute> tags its prompt asks for, a helper function using math",
    program: `<execute>
import math

def hypotenuse(a, b):
    return math.sqrt(add(multiply(a, a), multiply(b, b)))

print(f"The hypotenuse is {hypotenuse(3, 4):.2f}")
</execute>`,
    expect: { printed: ['The hypotenuse is 5.00'] },
    calls: ['calculator.multiply', 'calculator.multiply', 'calculator.add'],
  },
  {
    style: 'LlamaIndex CodeAct: a formatted table printed from a tool called in a loop',
    program: `cities = ["Oslo", "Lima", "Nairobi", "Hanoi"]
print(f"{'City':<8}{'Temp':>6}  Conditions")
for city in cities:
    w = get_weather(city)
    print(f"{city:<8}{w['temp']:>4}°C  {w['conditions']}")`,
    expect: {
      printed: [
        'City      Temp  Conditions',
        'Oslo       3°C  snow',
        'Lima      22°C  cloudy',
        'Nairobi   25°C  sunny',
        'Hanoi     30°C  rain',
      ],
    },
    calls: ['tools.get_weather', 'tools.get_weather', 'tools.get_weather', 'tools.get_weather'],
  },
  {
    style: 'LlamaIndex CodeAct: a CSV file parsed with csv and collections, revenue per region printed',
    program: `import csv
import io
from collections import defaultdict

text = read("reports/sales.csv")
revenue = defaultdict(float)
for row in csv.DictReader(io.StringIO(text)):
    revenue[row["region"]] += float(row["revenue"])

for region in sorted(revenue):
    print(f"{region}: {revenue[region]:.2f}")
print(f"Top region: {max(revenue, key=revenue.get)}")`,
    expect: { printed: ['east: 1200.00', 'north: 6450.50', 'south: 6300.25', 'Top region: north'] },
    calls: ['files.read'],
  },
  {
    style: 'LlamaIndex CodeAct: a typed helper with a docstring, a dict printed as Python shows it',
    program: `import json

def in_stock(sku: str) -> bool:
    """Whether the shop has the product."""
    product = json.loads(product_json(sku))
    return product["stock"] > 0

availability = {sku: in_stock(sku) for sku in ["SKU-1", "SKU-2", "SKU-3"]}
print(availability)`,
    expect: { printed: ["{'SKU-1': True, 'SKU-2': False, 'SKU-3': True}"] },
    calls: ['shop.product_json', 'shop.product_json', 'shop.product_json'],
  },
  {
    style: "LlamaIndex CodeAct: a failing helper's exception caught and printed, the run going on",
    program: `try:
    result = divide(10, 0)
except Exception as e:
    print(f"Error: {e}")
    result = None
print(f"Result: {result}")`,
    expect: { printed: [expect.stringMatching(/^Error: .*division by zero/), 'Result: None'] },
    calls: ['calculator.divide'],
  },
  {
    style: 'LlamaIndex CodeAct: customers looked up, one email each, the receipts printed',
    program: `customers = find_customers(country="NO")
for c in customers:
    first_name = c["name"].split()[0]
    receipt = send(to=c["email"], subject="Winter sale", body=f"Hi {first_name}, 20% off this week.")
    print(receipt["id"])
print(f"Sent {len(customers)} emails")`,
    expect: { printed: ['msg-bo@example.org', 'msg-dag@example.org', 'Sent 2 emails'] },
    calls: ['crm.find_customers', 'email.send', 'email.send'],
  },
  {
    style: 'LlamaIndex CodeAct: a date formatted with strftime and prices totalled from JSON text',
    program: `import json
from datetime import date

print(date(2026, 12, 2).strftime("%A %d %B %Y"))
total = 0
for sku in ["SKU-1", "SKU-3"]:
    product = json.loads(product_json(sku=sku))
    total += product["priceCents"]
print(f"Total: {total / 100:.2f} EUR")`,
    expect: { printed: ['Wednesday 02 December 2026', 'Total: 31.49 EUR'] },
    calls: ['shop.product_json', 'shop.product_json'],
  },
  {
    style: 'LlamaIndex CodeAct: a dataclass built from tool results, the warmest printed',
    program: `from dataclasses import dataclass

@dataclass
class Forecast:
    city: str
    temp: int

forecasts = [Forecast(city, get_weather(city)["temp"]) for city in ["Oslo", "Hanoi"]]
warmest = max(forecasts, key=lambda f: f.temp)
print(warmest)`,
    expect: { printed: ["Forecast(city='Hanoi', temp=30)"] },
    calls: ['tools.get_weather', 'tools.get_weather'],
  },
  {
    style: 'LlamaIndex CodeAct: a conversion helper over positional tool calls, one line printed per city',
    program: `def celsius_to_fahrenheit(c: float) -> float:
    """Convert Celsius to Fahrenheit."""
    return c * 9 / 5 + 32

for city in ["Oslo", "Nairobi"]:
    w = get_weather(city)
    print(city, round(celsius_to_fahrenheit(w["temp"]), 1))`,
    expect: { printed: ['Oslo 37.4', 'Nairobi 77.0'] },
    calls: ['tools.get_weather', 'tools.get_weather'],
  },
];

export const vercelPythonPrograms: readonly CompatibilityCase[] = [
  {
    style: "Vercel AI SDK executeCode: the README's arithmetic in Python, printed",
    program: `result = 5 + 5 - 84 ** 3
print(result)`,
    expect: { printed: ['-592694'] },
    calls: [],
  },
  {
    style: 'Vercel AI SDK executeCode: a factorial with math, printed as a sentence',
    program: `import math

n = 10
print(f"The factorial of {n} is {math.factorial(n):,}")`,
    expect: { printed: ['The factorial of 10 is 3,628,800'] },
    calls: [],
  },
  {
    style: 'Vercel AI SDK executeCode: statistics over a list, several lines printed',
    program: `import statistics

data = [12, 15, 11, 19, 15, 22, 15]
print("mean:", round(statistics.mean(data), 2))
print("median:", statistics.median(data))
print("mode:", statistics.mode(data))`,
    expect: { printed: ['mean: 15.57', 'median: 15', 'mode: 15'] },
    calls: [],
  },
];
