// Python programs in the styles of the public code-mode peers' examples and of what models
// write for everyday agent tasks: fan-out, retries, parsing tool text, grouping, reports. Written for
// this suite; each states the value a plain CPython run of the same program returns.
import type { CompatibilityCase } from './suite.js';

export const pythonWorkflows: readonly CompatibilityCase[] = [
  {
    style: 'asyncio.gather fan-out over cities with a printed table and a summary dict',
    program: `import asyncio

cities = ["Oslo", "Lima", "Nairobi", "Hanoi"]
print(f"Fetching weather for {len(cities)} cities...")
reports = await asyncio.gather(*[tools.get_weather(city=c) for c in cities])
for r in reports:
    print(f"{r['city']:<8} {r['temp']:>3}°C  {r['conditions']}")

warmest = max(reports, key=lambda r: r["temp"])
{
    "warmest": warmest["city"],
    "below_10": [r["city"] for r in reports if r["temp"] < 10],
    "average": sum(r["temp"] for r in reports) / len(reports),
}`,
    expect: { value: { warmest: 'Hanoi', below_10: ['Oslo'], average: 20 } },
  },
  {
    style: 'a batch limited by asyncio.Semaphore, peak concurrency tracked in globals, Counter of votes',
    program: `import asyncio
from collections import Counter

MAX_CONCURRENT = 3
sem = asyncio.Semaphore(MAX_CONCURRENT)
in_flight = 0
peak = 0


async def fetch(issue_id: int) -> dict:
    global in_flight, peak
    async with sem:
        in_flight += 1
        peak = max(peak, in_flight)
        try:
            return await issues.get(id=issue_id)
        finally:
            in_flight -= 1


results = await asyncio.gather(*(fetch(i) for i in range(101, 108)))
votes_by_label = Counter()
for issue in results:
    for label in issue["labels"]:
        votes_by_label[label] += issue["votes"]

print(f"fetched {len(results)} issues, at most {peak} at once")
{"peak": peak, "top_labels": [label for label, _ in votes_by_label.most_common(2)], "votes_by_label": dict(votes_by_label)}`,
    expect: {
      value: {
        peak: 3,
        top_labels: ['feature', 'bug'],
        votes_by_label: { bug: 28, feature: 58, docs: 1, perf: 7, i18n: 3 },
      },
    },
  },
  {
    style: 'retries read from a JSON config, a retry loop with exponential backoff on a 503',
    program: `import asyncio
import json

config = json.loads(await files.read(path="config/app.json"))
max_attempts = config.get("retries", 3)
print(f"{config['name']}: up to {max_attempts} attempts per order")


async def get_status(order_id):
    delay = 0.05
    for attempt in range(1, max_attempts + 1):
        try:
            return await orders.status(orderId=order_id), attempt
        except Exception as e:
            if "503" not in str(e) or attempt == max_attempts:
                raise
            print(f"{order_id}: attempt {attempt} failed ({e}); retrying in {delay:.2f}s")
            await asyncio.sleep(delay)
            delay *= 2


summary = {}
for oid in ["A-1", "A-2", "A-3"]:
    order, attempts = await get_status(oid)
    summary[oid] = {"status": order["status"], "attempts": attempts}

{
    "service": config["name"],
    "features_on": sorted(name for name, on in config["features"].items() if on),
    "orders": summary,
}`,
    expect: {
      value: {
        service: 'kettle-shop',
        features_on: ['darkMode'],
        orders: {
          'A-1': { status: 'shipped', attempts: 2 },
          'A-2': { status: 'processing', attempts: 2 },
          'A-3': { status: 'delivered', attempts: 2 },
        },
      },
    },
  },
  {
    style: 'csv.DictReader over io.StringIO, totals per region in defaultdicts, sorted by revenue',
    program: `import csv
import io
from collections import defaultdict

text = await files.read(path="reports/sales.csv")
units = defaultdict(int)
revenue = defaultdict(float)
for row in csv.DictReader(io.StringIO(text)):
    units[row["region"]] += int(row["units"])
    revenue[row["region"]] += float(row["revenue"])

[
    {"region": region, "units": units[region], "revenue": round(revenue[region], 2)}
    for region in sorted(units, key=lambda r: revenue[r], reverse=True)
]`,
    expect: {
      value: [
        { region: 'north', units: 215, revenue: 6450.5 },
        { region: 'south', units: 210, revenue: 6300.25 },
        { region: 'east', units: 40, revenue: 1200 },
      ],
    },
  },
  {
    style: 're.findall over Markdown checkboxes, open items grouped by owner',
    program: `import re

md = await files.read(path="notes/meeting.md")
tasks = re.findall(r"^- \\[( |x)\\] (.+?) \\(@(\\w+)\\)$", md, flags=re.MULTILINE)

open_by_owner = {}
for mark, text, owner in tasks:
    if mark == " ":
        open_by_owner.setdefault(owner, []).append(text)

done = sum(1 for mark, _, _ in tasks if mark == "x")
print(f"{done}/{len(tasks)} tasks done")
return {
    "open": open_by_owner,
    "done": done,
    "next": re.search(r"Next meeting: (\\S+ \\S+)", md).group(1),
}`,
    expect: {
      value: {
        open: { bo: ['Fix the watcher leak'], ana: ['Write release notes'] },
        done: 1,
        next: '2026-11-30 10:00',
      },
    },
  },
  {
    style: 'a str-mixin Enum for triage priorities, members in the returned rows',
    program: `from enum import Enum


class Priority(str, Enum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


def triage(issue: dict) -> Priority:
    if "bug" in issue["labels"] and issue["votes"] >= 10:
        return Priority.HIGH
    if issue["votes"] >= 15:
        return Priority.MEDIUM
    return Priority.LOW


page = await issues.list(state="open")
triaged = [{"id": i["id"], "priority": triage(i)} for i in page["items"]]
print(*(f"#{t['id']}: {t['priority'].value}" for t in triaged), sep="\\n")
triaged`,
    expect: {
      value: [
        { id: 101, priority: 'high' },
        { id: 102, priority: 'medium' },
        { id: 104, priority: 'low' },
        { id: 105, priority: 'medium' },
        { id: 107, priority: 'low' },
      ],
    },
  },
  {
    style: 'Decimal money arithmetic over product JSON, returned as strings and a float',
    program: `import json
from decimal import ROUND_HALF_UP, Decimal

inventory_value = Decimal("0")
lines = []
for sku in ["SKU-1", "SKU-2", "SKU-3"]:
    p = json.loads(await shop.product_json(sku=sku))
    price = Decimal(p["priceCents"]) / 100
    value = price * p["stock"]
    inventory_value += value
    lines.append(f"{p['name']:<8}{p['stock']:>4} x {price:>6} = {value:>8}")

print("\\n".join(lines))
vat = (inventory_value * Decimal("0.25")).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
{"net": str(inventory_value), "vat": str(vat), "gross": float(inventory_value + vat)}`,
    expect: { value: { net: '301.46', vat: '75.37', gross: 376.83 } },
  },
  {
    style: 'web.fetch pages, a 404 skipped, prices pulled out of the HTML with re',
    program: `import re

urls = ["https://example.org/pricing", "https://example.org/plans"]
prices = {}
missing = []
for url in urls:
    page = await web.fetch(url=url)
    if page["status"] == 404:
        print(f"skip {url}: not found")
        missing.append(url)
        continue
    for plan, amount in re.findall(r"<li>(\\w+): \\$(\\d+)/month</li>", page["body"]):
        prices[plan] = int(amount)

{"prices": prices, "cheapest": min(prices, key=prices.get), "missing": missing}`,
    expect: {
      value: { prices: { Starter: 9, Team: 29 }, cheapest: 'Starter', missing: ['https://example.org/plans'] },
    },
  },
  {
    style: 'a pagination helper that adds the cursor only when there is one, returning a tuple',
    program: `async def all_issues(state="all", page_size=3):
    items, cursor, pages = [], None, 0
    while True:
        kwargs = {"state": state, "limit": page_size}
        if cursor:
            kwargs["cursor"] = cursor
        page = await issues.list(**kwargs)
        pages += 1
        items.extend(page["items"])
        cursor = page.get("nextCursor")
        if not cursor:
            return items, pages


open_issues, pages = await all_issues("open", 2)
print(f"{len(open_issues)} open issues in {pages} pages")
{"pages": pages, "open_bugs": sorted((i["title"] for i in open_issues if "bug" in i["labels"]), key=str.lower)}`,
    expect: { value: { pages: 3, open_bugs: ['Crash on empty config', 'Slow startup on Windows'] } },
  },
  {
    style: 'an issue overview: set and dict comprehensions to sorted lists, itertools.groupby on sorted rows',
    program: `from itertools import groupby

page = await issues.list(limit=50)
items = page["items"]
labels = {label for issue in items for label in issue["labels"]}
label_counts = {label: sum(label in i["labels"] for i in items) for label in labels}
closed_ids = {i["id"] for i in items if i["state"] == "closed"}

first_label = lambda issue: issue["labels"][0]
groups = []
for label, members in groupby(sorted(items, key=first_label), key=first_label):
    members = list(members)
    groups.append({"label": label, "ids": [m["id"] for m in members], "votes": sum(m["votes"] for m in members)})

{
    "labels": sorted(labels),
    "counts": dict(sorted(label_counts.items(), key=lambda kv: (-kv[1], kv[0]))),
    "closed": sorted(closed_ids),
    "by_first_label": groups,
}`,
    expect: {
      value: {
        labels: ['bug', 'docs', 'feature', 'i18n', 'perf'],
        counts: { bug: 3, feature: 2, docs: 1, i18n: 1, perf: 1 },
        closed: [103, 106],
        by_first_label: [
          { label: 'bug', ids: [101, 104, 106], votes: 28 },
          { label: 'docs', ids: [103], votes: 1 },
          { label: 'feature', ids: [102, 105], votes: 58 },
          { label: 'i18n', ids: [107], votes: 3 },
        ],
      },
    },
  },
  {
    style: 'statistics.mean, median and stdev over CSV columns, the file read positionally',
    program: `import csv
import io
import statistics

rows = list(csv.DictReader(io.StringIO(await files.read("reports/sales.csv"))))
units = [int(r["units"]) for r in rows]
revenue = [float(r["revenue"]) for r in rows]
print(f"{len(rows)} rows")
{
    "mean_units": statistics.mean(units),
    "median_units": statistics.median(units),
    "stdev_units": round(statistics.stdev(units), 2),
    "median_revenue": statistics.median(revenue),
}`,
    expect: { value: { mean_units: 93, median_units: 95, stdev_units: 35.64, median_revenue: 2850 } },
  },
  {
    style: 'an aligned f-string table of open issues by votes, printed and returned',
    program: `page = await issues.list(state="open")
header = f"{'#':>4}  {'title':<25} {'votes':>5}"
lines = [header, "-" * len(header)]
for issue in sorted(page["items"], key=lambda i: i["votes"], reverse=True):
    lines.append(f"{issue['id']:>4}  {issue['title']:<25} {issue['votes']:>5}")
table = "\\n".join(lines)
print(table)
table`,
    expect: {
      value:
        '   #  title                     votes\n-------------------------------------\n 102  Dark mode                    40\n 105  Export to CSV                18\n 101  Crash on empty config        12\n 104  Slow startup on Windows       7\n 107  Translate to Basque           3',
    },
  },
  {
    style: 'a Markdown briefing built line by line from imperial weather',
    program: `cities = ["Lima", "Oslo"]
report = ["## Weather briefing", ""]
for city in cities:
    w = await tools.get_weather(city=city, units="imperial")
    report.append(f"- **{w['city']}**: {w['temp']}°F, {w['conditions']}")
report.append("")
report.append(f"_{len(cities)} cities checked_")
"\\n".join(report)`,
    expect: { value: '## Weather briefing\n\n- **Lima**: 72°F, cloudy\n- **Oslo**: 37°F, snow\n\n_2 cities checked_' },
  },
  {
    style: 'a dataclass with a property, dates parsed with date.fromisoformat, asdict in the result',
    program: `from dataclasses import asdict, dataclass
from datetime import date

REFERENCE = date(2026, 12, 1)


@dataclass
class Customer:
    name: str
    country: str
    spend_eur: float
    since: date

    @property
    def tenure(self) -> int:
        anniversary_passed = (REFERENCE.month, REFERENCE.day) >= (self.since.month, self.since.day)
        return REFERENCE.year - self.since.year - (0 if anniversary_passed else 1)


raw = await crm.find_customers()
customers = [Customer(c["name"], c["country"], c["spendCents"] / 100, date.fromisoformat(c["since"])) for c in raw]
loyal = sorted((c for c in customers if c.tenure >= 3), key=lambda c: c.spend_eur, reverse=True)
[{**asdict(c), "tenure": c.tenure} for c in loyal]`,
    expect: {
      value: [
        { name: 'Dag Moe', country: 'NO', spend_eur: 2300, since: '2019-11-02', tenure: 7 },
        { name: 'Ana Lima', country: 'BR', spend_eur: 1250, since: '2021-03-04', tenure: 5 },
        { name: 'Chi Tran', country: 'VN', spend_eur: 880, since: '2023-01-30', tenure: 3 },
      ],
    },
  },
  {
    style: 'TypedDict and list[...] / dict[str, int] annotations on an async helper',
    program: `import json
from typing import TypedDict


class StockLine(TypedDict):
    sku: str
    stock: int
    reorder: bool


async def stock_lines(skus: list[str], threshold: int = 5) -> list[StockLine]:
    lines: list[StockLine] = []
    for sku in skus:
        product: dict[str, int | str] = json.loads(await shop.product_json(sku=sku))
        lines.append({"sku": sku, "stock": product["stock"], "reorder": product["stock"] < threshold})
    return lines


lines = await stock_lines(["SKU-1", "SKU-2", "SKU-3"])
counts: dict[str, int] = {
    "reorder": sum(line["reorder"] for line in lines),
    "ok": sum(not line["reorder"] for line in lines),
}
{"lines": lines, "counts": counts}`,
    expect: {
      value: {
        lines: [
          { sku: 'SKU-1', stock: 4, reorder: true },
          { sku: 'SKU-2', stock: 0, reorder: true },
          { sku: 'SKU-3', stock: 31, reorder: false },
        ],
        counts: { reorder: 2, ok: 1 },
      },
    },
  },
  {
    style: 'enumerate and zip over two gathered searches, a positional query with a keyword limit',
    program: `import asyncio

queries = ["electric kettle", "loose leaf tea"]
results = await asyncio.gather(*(search.web(q, limit=2) for q in queries))
lines = []
for rank, pair in enumerate(zip(*results), start=1):
    for query, hit in zip(queries, pair):
        lines.append(f"{rank}. [{query}] {hit['title']} -> {hit['url']}")
lines`,
    expect: {
      value: [
        '1. [electric kettle] electric kettle (1) -> https://example.org/electric-kettle/1',
        '1. [loose leaf tea] loose leaf tea (1) -> https://example.org/loose-leaf-tea/1',
        '2. [electric kettle] electric kettle (2) -> https://example.org/electric-kettle/2',
        '2. [loose leaf tea] loose leaf tea (2) -> https://example.org/loose-leaf-tea/2',
      ],
    },
  },
  {
    style: 'a StrEnum of issue states iterated and passed as the tool argument',
    program: `from enum import StrEnum


class State(StrEnum):
    OPEN = "open"
    CLOSED = "closed"


counts = {}
for state in State:
    page = await issues.list(state=state, limit=50)
    counts[state.value] = len(page["items"])
    print(f"{state}: {counts[state.value]} issues")
counts`,
    expect: { value: { open: 5, closed: 2 } },
  },
  {
    style: 'an awaiting list comprehension, then sorted with key and reverse',
    program: `import json

products = [json.loads(await shop.product_json(sku=f"SKU-{n}")) for n in range(1, 4)]
by_price = sorted(products, key=lambda p: p["priceCents"], reverse=True)
in_stock = sorted((p for p in products if p["stock"]), key=lambda p: (p["stock"], p["name"]), reverse=True)
{
    "by_price": [p["name"] for p in by_price],
    "in_stock": [f"{p['name']} ({p['stock']})" for p in in_stock],
}`,
    expect: { value: { by_price: ['kettle', 'teapot', 'mug'], in_stock: ['mug (31)', 'kettle (4)'] } },
  },
  {
    style: 'per-item try/except with continue, a bare tool name, failures collected',
    program: `cities = ["Oslo", "Reykjavik", "Hanoi", "Atlantis"]
temps, failed = {}, []
for city in cities:
    try:
        w = await get_weather(city=city)
    except Exception as exc:
        failed.append(city)
        print(f"warning: {city}: {exc}")
        continue
    temps[city] = w["temp"]
{"temps": temps, "failed": failed}`,
    expect: { value: { temps: { Oslo: 3, Hanoi: 30 }, failed: ['Reykjavik', 'Atlantis'] } },
  },
  {
    style: 'asyncio.gather with return_exceptions=True, results split with isinstance',
    program: `import asyncio

ids = [101, 150, 104, 999]
results = await asyncio.gather(*(issues.get(id=i) for i in ids), return_exceptions=True)
found, missing = [], []
for issue_id, res in zip(ids, results):
    if isinstance(res, Exception):
        missing.append(issue_id)
    else:
        found.append({"id": res["id"], "title": res["title"]})
print(f"found {len(found)}, missing {missing}")
{"found": found, "missing": missing, "says_not_found": "not found" in str(results[1])}`,
    expect: {
      value: {
        found: [
          { id: 101, title: 'Crash on empty config' },
          { id: 104, title: 'Slow startup on Windows' },
        ],
        missing: [150, 999],
        says_not_found: true,
      },
    },
  },
  {
    style: 'datetime.fromisoformat on dates found in notes, timedelta arithmetic as isoformat strings',
    program: `import re
from datetime import datetime, timedelta

notes = await files.read(path="notes/meeting.md")
planned = re.search(r"^# Planning, (\\d{4}-\\d{2}-\\d{2})", notes, re.M).group(1)
next_text = re.search(r"Next meeting: (\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2})", notes).group(1)
next_meeting = datetime.fromisoformat(next_text)
last = datetime.fromisoformat(planned)
{
    "next": next_meeting.isoformat(),
    "reminder": (next_meeting - timedelta(minutes=15)).isoformat(),
    "days_between": (next_meeting.date() - last.date()).days,
    "follow_up": (next_meeting + timedelta(weeks=1)).date().isoformat(),
    "weekday": next_meeting.strftime("%A"),
}`,
    expect: {
      value: {
        next: '2026-11-30T10:00:00',
        reminder: '2026-11-30T09:45:00',
        days_between: 7,
        follow_up: '2026-12-07',
        weekday: 'Monday',
      },
    },
  },
  {
    style: 'an async main under the __main__ idiom emailing filtered customers, returning the message ids',
    program: `import asyncio


async def main():
    customers = await crm.find_customers(minSpendCents=50_000)
    long_standing = [c for c in customers if c["since"] < "2022-01-01"]
    sent = []
    for c in long_standing:
        first = c["name"].split()[0]
        body = (
            f"Hi {first},\\n\\n"
            f"Thanks for being with us since {c['since'][:4]}. Here is 10% off your next order.\\n"
        )
        result = await email.send(to=c["email"], subject=f"A thank-you for {first}", body=body)
        print(f"sent to {result['to']}")
        sent.append(result["id"])
    return sent


if __name__ == "__main__":
    asyncio.run(main())`,
    expect: { value: ['msg-ana@example.org', 'msg-dag@example.org'] },
  },
  {
    style: 'text cleanup with re.sub, str methods and textwrap wrap/shorten/indent',
    program: `import re
import textwrap

page = await web.fetch(url="https://example.org/status")
text = " ".join(re.sub(r"<[^>]+>", " ", page["body"]).split())
headline = text.split(".")[0].strip().upper()
wrapped = textwrap.wrap(text, width=20)
{
    "headline": headline,
    "lines": wrapped,
    "short": textwrap.shorten(text, width=30, placeholder=" ..."),
    "quoted": textwrap.indent("\\n".join(wrapped), "> "),
}`,
    expect: {
      value: {
        headline: 'ALL SYSTEMS OPERATIONAL',
        lines: ['All systems', 'operational. Last', 'incident:', '2026-11-12.'],
        short: 'All systems operational. ...',
        quoted: '> All systems\n> operational. Last\n> incident:\n> 2026-11-12.',
      },
    },
  },
  {
    style: 'a sync generator for batches, an async generator for pages, TaskGroup per batch',
    program: `import asyncio


def chunks(items, size):
    for start in range(0, len(items), size):
        yield items[start:start + size]


async def pages(state):
    cursor = ""
    while True:
        args = {"state": state, "limit": 2}
        if cursor:
            args["cursor"] = cursor
        page = await issues.list(**args)
        yield page["items"]
        cursor = page["nextCursor"]
        if not cursor:
            break


ids = [item["id"] async for page in pages("all") for item in page]
batch_votes = []
for batch in chunks(ids, 3):
    async with asyncio.TaskGroup() as tg:
        tasks = [tg.create_task(issues.get(id=i)) for i in batch]
    batch_votes.append(sum(t.result()["votes"] for t in tasks))
    print(f"batch {batch}: {batch_votes[-1]} votes")

{"ids": ids, "batch_votes": batch_votes}`,
    expect: { value: { ids: [101, 102, 103, 104, 105, 106, 107], batch_votes: [53, 34, 3] } },
  },
  {
    style: 'a class with async and sync methods, a ValueError caught for one item',
    program: `import json


class Cart:
    def __init__(self, currency="EUR"):
        self.currency = currency
        self.lines = []

    async def add(self, sku, qty=1):
        product = json.loads(await shop.product_json(sku=sku))
        if product["stock"] < qty:
            raise ValueError(f"only {product['stock']} {product['name']} left")
        self.lines.append((product["name"], qty, product["priceCents"]))

    def total_cents(self):
        return sum(qty * price for _, qty, price in self.lines)

    def receipt(self):
        rows = [f"{qty} x {name} @ {price / 100:.2f}" for name, qty, price in self.lines]
        rows.append(f"TOTAL {self.total_cents() / 100:.2f} {self.currency}")
        return rows


cart = Cart()
await cart.add("SKU-1", 2)
await cart.add("SKU-3", qty=4)
try:
    await cart.add("SKU-2")
except ValueError as e:
    print("skipped:", e)
cart.receipt()`,
    expect: { value: ['2 x kettle @ 24.99', '4 x mug @ 6.50', 'TOTAL 75.98 EUR'] },
  },
  {
    style: 'async def main with nested async helpers, asyncio.run(main()) at the end',
    program: `import asyncio


async def main():
    async def temp_in(city: str) -> int:
        report = await tools.get_weather(city=city)
        return report["temp"]

    async def spread(a: str, b: str) -> int:
        ta, tb = await asyncio.gather(temp_in(a), temp_in(b))
        return abs(ta - tb)

    pairs = [("Oslo", "Hanoi"), ("Lima", "Nairobi")]
    result = {f"{a}-{b}": await spread(a, b) for a, b in pairs}
    print(result)
    return result


asyncio.run(main())`,
    expect: { value: { 'Oslo-Hanoi': 27, 'Lima-Nairobi': 3 } },
  },
  {
    style: 'the walrus operator in if/elif over fetched pages',
    program: `import re

found = []
for url in ["https://example.org/pricing", "https://example.org/status", "https://example.org/blog"]:
    if (page := await web.fetch(url=url))["status"] != 200:
        print(f"{url}: HTTP {page['status']}")
        continue
    if m := re.search(r"<title>(.*?)</title>", page["body"]):
        found.append(m.group(1))
    elif day := re.search(r"\\d{4}-\\d{2}-\\d{2}", page["body"]):
        found.append(f"status as of {day.group()}")
found`,
    expect: { value: ['Pricing', 'status as of 2026-11-12'] },
  },
  {
    style: 'a match statement with mapping patterns, alternatives and guards',
    program: `async def advise(city):
    try:
        w = await tools.get_weather(city=city)
    except Exception:
        return f"{city}: unknown"
    match w:
        case {"conditions": "rain" | "snow" as sky, "temp": t} if t < 5:
            advice = f"{sky} and cold, stay in"
        case {"conditions": "rain"}:
            advice = "take an umbrella"
        case {"temp": t} if t >= 25:
            advice = "sunscreen"
        case _:
            advice = "enjoy"
    return f"{city}: {advice}"


[await advise(c) for c in ["Oslo", "Hanoi", "Nairobi", "Lima", "Paris"]]`,
    expect: {
      value: [
        'Oslo: snow and cold, stay in',
        'Hanoi: take an umbrella',
        'Nairobi: sunscreen',
        'Lima: enjoy',
        'Paris: unknown',
      ],
    },
  },
  {
    style: 'step-by-step printed progress with calculator calls, a rounded final value',
    program: `print("Step 1: reading the sales report")
csv_text = await files.read(path="reports/sales.csv")
rows = csv_text.strip().splitlines()[1:]
print(f"  {len(rows)} rows")

print("Step 2: totalling October")
october = [r.split(",") for r in rows if r.split(",")[1] == "2026-10"]
total = 0
for region, month, units, revenue in october:
    total = await calculator.add(a=total, b=float(revenue))
    print(f"  + {region}: {revenue} -> {total}")

print("Step 3: average per region")
average = await calculator.divide(dividend=total, divisor=len(october))
round(average, 2)`,
    expect: { value: 2650.08 },
  },
  {
    style: 'a workspace survey: files.list, each file read, a top-level return of sorted rows',
    program: `paths = await files.list()
print(f"{len(paths)} files in the workspace")
summary = []
for path in paths:
    text = await files.read(path=path)
    summary.append({
        "path": path,
        "kind": path.rsplit(".", 1)[-1],
        "lines": len(text.splitlines()),
        "words": len(text.split()),
    })
reports = await files.list(folder="reports")
return {"reports": reports, "by_lines": sorted(summary, key=lambda s: s["lines"], reverse=True)}`,
    expect: {
      value: {
        reports: ['reports/sales.csv'],
        by_lines: [
          { path: 'notes/meeting.md', kind: 'md', lines: 7, words: 28 },
          { path: 'reports/sales.csv', kind: 'csv', lines: 6, words: 6 },
          { path: 'config/app.json', kind: 'json', lines: 1, words: 1 },
        ],
      },
    },
  },
];
