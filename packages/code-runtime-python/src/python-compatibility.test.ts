import type { HostFunction, JsonValue } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { failureOf, python, successValue, testRuntime } from './__fixtures__/test-runtime.js';

// Programs in the styles models write (smolagents/CodeAct, notebooks, scripts with asyncio.run,
// Anthropic-style tool orchestration), written fresh for this suite, each with the value plain
// CPython would give with these tools.

const cities: Record<string, number> = { Oslo: 4, Lisbon: 19, Cairo: 27 };

const getWeather: HostFunction = (input) => {
  const city = typeof input === 'string' ? input : (input as { city: string }).city;
  const tempC = cities[city];
  if (tempC === undefined) throw new Error(`unknown city ${city}`);
  return { city, tempC };
};
const webSearch: HostFunction = (input) => {
  const query = typeof input === 'string' ? input : (input as { query: string }).query;
  return [
    { title: `${query} — overview`, url: 'https://example.org/a' },
    { title: `${query} — details`, url: 'https://example.org/b' },
  ];
};
const fetchText: HostFunction = (input) => {
  const url = typeof input === 'string' ? input : (input as { url: string }).url;
  return JSON.stringify({
    url,
    status: 'open',
    items: [
      { id: 1, price: 2.5 },
      { id: 2, price: 4 },
    ],
  });
};
const listOrders: HostFunction = () => [
  { id: 'a', total: 12.5, placed: '2026-11-01' },
  { id: 'b', total: 7.5, placed: '2026-11-15' },
  { id: 'c', total: 30, placed: '2026-10-20' },
];

const bindings = {
  tools: { get_weather: getWeather, web_search: webSearch, fetch: fetchText, list_orders: listOrders },
};

const programs: Array<{ style: string; program: string; value: JsonValue }> = [
  {
    style: 'smolagents: a final expression after tool calls',
    program: python(
      'results = await tools.web_search(query="oslo population")',
      'titles = [result["title"] for result in results]',
      'titles',
    ),
    value: ['oslo population — overview', 'oslo population — details'],
  },
  {
    style: 'CodeAct: a final dict expression',
    program: python(
      'weather = await tools.get_weather(city="Lisbon")',
      '{"city": weather["city"], "warm": weather["tempC"] > 15}',
    ),
    value: { city: 'Lisbon', warm: true },
  },
  {
    style: 'script: asyncio.run(main())',
    program: python(
      'import asyncio',
      '',
      'async def main():',
      '    report = await tools.get_weather(city="Oslo")',
      "    return f\"{report['city']}: {report['tempC']}°C\"",
      '',
      'asyncio.run(main())',
    ),
    value: 'Oslo: 4°C',
  },
  {
    style: 'script: the __main__ idiom',
    program: python(
      'import asyncio',
      '',
      'async def main():',
      '    temps = {}',
      '    for city in ["Oslo", "Cairo"]:',
      '        temps[city] = (await tools.get_weather(city=city))["tempC"]',
      '    return temps',
      '',
      'if __name__ == "__main__":',
      '    asyncio.run(main())',
    ),
    value: { Oslo: 4, Cairo: 27 },
  },
  {
    style: 'script: result = asyncio.run(main()), then return',
    program: python(
      'import asyncio',
      'async def main():',
      '    return await tools.list_orders()',
      'orders = asyncio.run(main())',
      'return len(orders)',
    ),
    value: 3,
  },
  {
    style: 'json.loads of a tool returning JSON text',
    program: python(
      'import json',
      'page = json.loads(await tools.fetch(url="https://example.org/cart"))',
      'sum(item["price"] for item in page["items"])',
    ),
    value: 6.5,
  },
  {
    style: 'asyncio.gather fan-out',
    program: python(
      'import asyncio',
      'cities = ["Oslo", "Lisbon", "Cairo"]',
      'reports = await asyncio.gather(*[tools.get_weather(city=city) for city in cities])',
      'return max(reports, key=lambda report: report["tempC"])["city"]',
    ),
    value: 'Cairo',
  },
  {
    style: 'asyncio.gather with return_exceptions',
    program: python(
      'import asyncio',
      'replies = await asyncio.gather(tools.get_weather(city="Oslo"), tools.get_weather(city="Atlantis"), return_exceptions=True)',
      '[type(reply).__name__ if isinstance(reply, Exception) else reply["tempC"] for reply in replies]',
    ),
    value: [4, 'HostCallError'],
  },
  {
    style: 'per-item try/except',
    program: python(
      'found, failed = {}, []',
      'for city in ["Oslo", "Atlantis", "Lisbon"]:',
      '    try:',
      '        found[city] = (await tools.get_weather(city=city))["tempC"]',
      '    except Exception as error:',
      '        failed.append(f"{city}: {error}")',
      'return {"found": found, "failed": failed}',
    ),
    value: { found: { Oslo: 4, Lisbon: 19 }, failed: ['Atlantis: unknown city Atlantis'] },
  },
  {
    style: 'globals mutated from functions',
    program: python(
      'calls = 0',
      'seen = []',
      'async def lookup(city):',
      '    global calls',
      '    calls += 1',
      '    seen.append(city)',
      '    return (await tools.get_weather(city=city))["tempC"]',
      'total = await lookup("Oslo") + await lookup("Cairo")',
      'return {"calls": calls, "seen": seen, "total": total}',
    ),
    value: { calls: 2, seen: ['Oslo', 'Cairo'], total: 31 },
  },
  {
    style: 'datetimes in the result',
    program: python(
      'from datetime import date, datetime, timedelta',
      'orders = await tools.list_orders()',
      'cutoff = date(2026, 11, 1)',
      'recent = [o for o in orders if date.fromisoformat(o["placed"]) >= cutoff]',
      'return {"since": cutoff, "count": len(recent), "due": datetime(2026, 12, 1, 9, 0) + timedelta(days=1)}',
    ),
    value: { since: '2026-11-01', count: 2, due: '2026-12-02T09:00:00' },
  },
  {
    style: 'tuples in the result',
    program: python(
      'orders = await tools.list_orders()',
      'ranked = sorted(((o["id"], o["total"]) for o in orders), key=lambda pair: -pair[1])',
      'ranked[:2]',
    ),
    value: [
      ['c', 30],
      ['a', 12.5],
    ],
  },
  {
    style: 'print as it goes, return at the end',
    program: python(
      'orders = await tools.list_orders()',
      'total = 0',
      'for order in orders:',
      '    print("order", order["id"], order["total"])',
      '    total += order["total"]',
      'print(f"total {total}")',
      'return round(total, 2)',
    ),
    value: 50,
  },
  {
    style: 'a helper with a docstring, called at the end',
    program: python(
      'def summarize(orders):',
      '    """Totals per month."""',
      '    months = {}',
      '    for order in orders:',
      '        month = order["placed"][:7]',
      '        months[month] = months.get(month, 0) + order["total"]',
      '    return months',
      '',
      'summarize(await tools.list_orders())',
    ),
    value: { '2026-11': 20, '2026-10': 30 },
  },
  {
    style: 'collections and statistics from the standard library',
    program: python(
      'import statistics',
      'from collections import Counter',
      'orders = await tools.list_orders()',
      'months = Counter(order["placed"][:7] for order in orders)',
      '{"busiest": months.most_common(1)[0][0], "mean": statistics.mean(o["total"] for o in orders)}',
    ),
    value: { busiest: '2026-11', mean: 16.666666666666668 },
  },
  {
    style: 'a class holding state, methods reading globals',
    program: python(
      'THRESHOLD = 10',
      'class Basket:',
      '    def __init__(self):',
      '        self.items = []',
      '    def add(self, order):',
      '        if order["total"] >= THRESHOLD:',
      '            self.items.append(order["id"])',
      'basket = Basket()',
      'for order in await tools.list_orders():',
      '    basket.add(order)',
      'basket.items',
    ),
    value: ['a', 'c'],
  },
  {
    style: 'one positional argument, as a single-input tool',
    program: python('hits = await tools.web_search("lisbon trams")', 'len(hits)'),
    value: 2,
  },
  {
    style: 'a sync main() that drives async work with asyncio.run',
    program: python(
      'import asyncio',
      'async def gather_temps(names):',
      '    return await asyncio.gather(*(tools.get_weather(city=name) for name in names))',
      'def main():',
      '    reports = asyncio.run(gather_temps(["Oslo", "Lisbon"]))',
      '    return sum(report["tempC"] for report in reports) / len(reports)',
      'if __name__ == "__main__":',
      '    average = main()',
      '    print(average)',
      'return average',
    ),
    value: 11.5,
  },
  {
    style: 'json.dumps of the result, then json.loads back',
    program: python(
      'import json',
      'report = await tools.get_weather(city="Cairo")',
      'text = json.dumps({"report": report, "pair": (1, 2)})',
      'json.loads(text)',
    ),
    value: { report: { city: 'Cairo', tempC: 27 }, pair: [1, 2] },
  },
  {
    style: 'smolagents / Monty: a host call without await, its result indexed',
    program: python('weather = tools.get_weather(city="Oslo")', 'weather["tempC"]'),
    value: 4,
  },
  {
    style: 'smolagents / Monty: host calls collected in a list without await',
    program: python(
      'reports = [tools.get_weather(city=c) for c in ["Oslo", "Cairo"]]',
      'return [r["tempC"] for r in reports]',
    ),
    value: [4, 27],
  },
  {
    style: 'async main() called without asyncio.run under the __main__ idiom',
    program: python('async def main():', '    return 1', 'if __name__ == "__main__":', '    main()'),
    value: 1,
  },
];

// Programs models write that cannot run as written: each fails naming the fix.
const refused: Array<{ style: string; program: string; kind: string; fix: string }> = [
  {
    style: 'host calls collected for asyncio.gather, which is never reached',
    program: python(
      'pending = [tools.get_weather(city=c) for c in ["Oslo", "Cairo"]]',
      'if len(pending) > 5:',
      '    await asyncio.gather(*pending)',
      'return len(pending)',
    ),
    kind: 'exception',
    fix: '2 calls were never awaited, so they never ran; the first is tools.get_weather(...) on line 1',
  },
  {
    style: 'a new event loop made by hand',
    program: python(
      'import asyncio',
      'async def main():',
      '    return 1',
      'loop = asyncio.new_event_loop()',
      'loop.run_until_complete(main())',
    ),
    kind: 'exception',
    fix: 'write `await main()`',
  },
  {
    style: 'a tuple as a dict key',
    program: python('orders = await tools.list_orders()', '{(o["id"], o["placed"]): o["total"] for o in orders}'),
    kind: 'invalid-output',
    fix: '",".join(map(str, key))',
  },
];

const runtime = testRuntime();
afterAll(async () => {
  await runtime.dispose();
});

describe('programs as models write them', () => {
  it('are at least fifteen', () => {
    expect(programs.length).toBeGreaterThanOrEqual(15);
  });

  for (const { style, program, kind, fix } of refused) {
    it(`fail naming the fix: ${style}`, async () => {
      expect(failureOf(await runtime.run({ program, bindings }), kind).message).toContain(fix);
    });
  }

  for (const { style, program, value } of programs) {
    it(`run: ${style}`, async () => {
      expect(successValue(await runtime.run({ program, bindings }))).toEqual(value);
    });
  }
});
