// Python programs in the shapes models send to a code-mode tool, written for this suite. Each calls
// the tools in ./tools.ts and states the value it must return, or the fix its failure must name.
import { expect } from 'vitest';
import type { CompatibilityCase } from './suite.js';

export const pythonPrograms: readonly CompatibilityCase[] = [
  {
    style: 'markdown-fenced, ending in a bare expression',
    program: `\`\`\`python
page = await issues.list(state="closed")
[issue["title"] for issue in page["items"]]
\`\`\``,
    expect: { value: ['Typo in README', 'Memory leak in watcher'] },
  },
  {
    style: 'a final bare expression as the answer',
    program: `weather = await tools.get_weather(city="Lima")
{"city": weather["city"], "umbrella": weather["conditions"] in ("rain", "cloudy")}`,
    expect: { value: { city: 'Lima', umbrella: true } },
  },
  {
    style: 'asyncio.run(main()) at the end',
    program: `import asyncio

async def main():
    sum_ = await calculator.add(a=1.5, b=2.5)
    return await calculator.divide(dividend=sum_, divisor=4)

asyncio.run(main())`,
    expect: { value: 1 },
  },
  {
    style: 'the __main__ idiom around asyncio.run with a fan-out',
    program: `import asyncio

async def main():
    cities = ["Oslo", "Hanoi"]
    reports = await asyncio.gather(*(tools.get_weather(city=c) for c in cities))
    return {r["city"]: r["conditions"] for r in reports}

if __name__ == "__main__":
    asyncio.run(main())`,
    expect: { value: { Oslo: 'snow', Hanoi: 'rain' } },
  },
  {
    style: 'the __main__ idiom with a sync main and a final expression after it',
    program: `def main():
    words = "the quick brown fox jumps over the lazy dog".split()
    return max(words, key=len)

if __name__ == "__main__":
    longest = main()

longest`,
    expect: { value: 'quick' },
  },
  {
    style: 'a named async main that is declared and never called',
    program: `async def main():
    issue = await issues.get(id=107)
    return issue["title"]`,
    expect: { value: 'Translate to Basque' },
  },
  {
    style: 'a tool returning JSON text, parsed with json.loads',
    program: `import json

product = json.loads(await shop.product_json(sku="SKU-3"))
f"{product['name']}: {product['priceCents'] / 100:.2f} EUR"`,
    expect: { value: 'mug: 6.50 EUR' },
  },
  {
    style: 'json.loads per item inside a per-item try/except',
    program: `import json

stock = {}
for sku in ["SKU-2", "SKU-404", "SKU-1"]:
    try:
        stock[sku] = json.loads(await shop.product_json(sku=sku))["stock"]
    except Exception as err:
        stock[sku] = f"error: {err}"
stock`,
    expect: { value: { 'SKU-2': 0, 'SKU-404': expect.stringContaining('unknown sku SKU-404'), 'SKU-1': 4 } },
  },
  {
    style: 'per-item try/except around a tool that fails for some items',
    program: `ok, failed = [], []
for divisor in [4, 0, 2]:
    try:
        ok.append(await calculator.divide(dividend=8, divisor=divisor))
    except Exception:
        failed.append(divisor)
return {"ok": ok, "failed": failed}`,
    expect: { value: { ok: [2, 4], failed: [0] } },
  },
  {
    style: 'asyncio.gather fan-out over a page of issues',
    program: `import asyncio

page = await issues.list(state="open", limit=50)
details = await asyncio.gather(*[issues.get(id=item["id"]) for item in page["items"]])
top = max(details, key=lambda issue: issue["votes"])
return top["id"]`,
    expect: { value: 102 },
  },
  {
    style: 'asyncio.gather with return_exceptions over cities',
    program: `import asyncio

names = ["Nairobi", "Gotham"]
results = await asyncio.gather(*(tools.get_weather(city=n) for n in names), return_exceptions=True)
[r["temp"] if not isinstance(r, BaseException) else None for r in results]`,
    expect: { value: [25, null] },
  },
  {
    style: 'a module global mutated through global',
    program: `total_votes = 0

async def tally(issue_id):
    global total_votes
    issue = await issues.get(id=issue_id)
    total_votes += issue["votes"]

for issue_id in (101, 105):
    await tally(issue_id)
total_votes`,
    expect: { value: 30 },
  },
  {
    style: 'globals() read after functions wrote to the module',
    program: `def remember(name, value):
    globals()[name] = value

remember("answer", 42)
answer`,
    expect: { value: 42 },
  },
  {
    style: 'a pagination loop passing cursor=None on the first call',
    program: `cursor = None
ids = []
while True:
    page = await issues.list(cursor=cursor, limit=3)
    ids.extend(item["id"] for item in page["items"])
    cursor = page["nextCursor"]
    if cursor is None:
        break
ids`,
    expect: { value: [101, 102, 103, 104, 105, 106, 107] },
  },
  {
    style: 'a pagination loop that adds cursor only once it has one',
    program: `params = {"limit": 2, "state": "open"}
titles = []
while True:
    page = await issues.list(**params)
    titles += [i["title"] for i in page["items"]]
    if not page["nextCursor"]:
        break
    params["cursor"] = page["nextCursor"]
len(titles)`,
    expect: { value: 5 },
  },
  {
    style: 'a positional argument for a tool with one required property',
    program: `hits = await search.web("oslo population")
hits[0]["url"]`,
    expect: { value: 'https://example.org/oslo-population/1' },
  },
  {
    style: "two positional arguments in the schema's order",
    program: 'return await calculator.add(5, 3)',
    expect: { value: 8 },
  },
  {
    style: 'a positional argument next to a keyword',
    program: `hits = await search.web("tea kettles", limit=5)
sum(1 for hit in hits if hit["score"] > 0.7)`,
    expect: { value: 3 },
  },
  {
    style: 'a positional argument for a tool with no required property',
    program: `page = await issues.list("open")
len(page["items"])`,
    expect: { fails: /its properties are state, cursor, limit \(none required\): pass one object instead/ },
    note: 'one argument could be any of three properties; the message names them (in object form, not keywords)',
  },
  {
    style: 'a bare tool name without its namespace',
    program: `report = await get_weather(city="Oslo", units="imperial")
report["temp"]`,
    expect: { value: 37 },
  },
  {
    style: 'a bare tool name called with positional arguments',
    program: `result = await add(5, 3)
result * 3`,
    expect: { value: 24 },
  },
  {
    style: 'a missing await on a call whose coroutine is returned',
    program: `async def main():
    return tools.get_weather(city="Hanoi")

return await main()`,
    expect: { value: { city: 'Hanoi', temp: 30, conditions: 'rain' } },
  },
  {
    style: 'an async main called as the last line, without asyncio.run or await',
    program: `async def main():
    hits = await search.web(query="kettle reviews", limit=2)
    return [hit["title"] for hit in hits]

main()`,
    expect: { value: ['kettle reviews (1)', 'kettle reviews (2)'] },
  },
  {
    style: 'a missing await, the coroutine then indexed',
    program: `issue = issues.get(id=101)
issue["title"]`,
    expect: { value: 'Crash on empty config' },
  },
  {
    style: 'a missing await inside a helper, its result iterated',
    program: `def titles():
    page = issues.list(state="open")
    return [i["title"] for i in page["items"]]

titles()`,
    expect: { value: ['Crash on empty config', 'Dark mode', 'Slow startup on Windows', 'Export to CSV', 'Translate to Basque'] },
  },
  {
    style: 'datetime, date and timedelta in the result',
    program: `from datetime import date, datetime, timedelta

issue = await issues.get(id=103)
opened = date(2026, 11, 2)
{"id": issue["id"], "opened": opened, "review": datetime(2026, 11, 2, 14, 0) + timedelta(days=3)}`,
    expect: { value: { id: 103, opened: '2026-11-02', review: '2026-11-05T14:00:00' } },
  },
  {
    style: 'datetime.now(timezone.utc) in the result',
    program: `from datetime import datetime, timezone

weather = await tools.get_weather(city="Hanoi")
return {"temp": weather["temp"], "at": datetime.now(timezone.utc)}`,
    expect: { value: { temp: 30, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/) } },
  },
  {
    style: 'the standard library in place of web globals: urllib.parse, base64, uuid, copy',
    program: `import base64, copy, uuid
from urllib.parse import urlencode, urlparse

hit = (await search.web(query="tea kettles", limit=1))[0]
issue = await issues.get(id=105)
draft = copy.deepcopy(issue)
draft["labels"].append("triaged")
{
    "host": urlparse(hit["url"]).netloc,
    "query": urlencode({"q": "tea & cake", "page": 2}),
    "token": base64.b64encode(b"kettle:2499").decode(),
    "labels": [issue["labels"], draft["labels"]],
    "uuid": len(str(uuid.uuid4())),
}`,
    expect: {
      value: {
        host: 'example.org',
        query: 'q=tea+%26+cake&page=2',
        token: 'a2V0dGxlOjI0OTk=',
        labels: [['feature'], ['feature', 'triaged']],
        uuid: 36,
      },
    },
  },
  {
    style: 'a dataclass turned into a dict, tuples in the result',
    program: `from dataclasses import dataclass, asdict

@dataclass
class Row:
    city: str
    temp: int

rows = [Row(city=c, temp=(await tools.get_weather(city=c))["temp"]) for c in ("Lima", "Oslo")]
{"rows": [asdict(r) for r in rows], "range": (min(r.temp for r in rows), max(r.temp for r in rows))}`,
    expect: {
      value: {
        rows: [
          { city: 'Lima', temp: 22 },
          { city: 'Oslo', temp: 3 },
        ],
        range: [3, 22],
      },
    },
  },
  {
    style: 'a keyword argument the schema does not have',
    program: `report = await tools.get_weather(town="Lima")
report["temp"]`,
    expect: { fails: /\$\.city is required; \$\.town is not allowed/ },
    note: 'the message names the expected and the unexpected property',
  },
  {
    style: 'a third-party import',
    program: `import requests

requests.get("https://example.org/api/issues").json()`,
    expect: { fails: /standard library/ },
    note: 'the message says that only the standard library is available and to use the granted host functions',
  },
  {
    style: 'a set in the result',
    program: `page = await issues.list(limit=50)
{label for issue in page["items"] for label in issue["labels"]}`,
    expect: { value: ['bug', 'docs', 'feature', 'i18n', 'perf'] },
  },
];
