import type { CodeRuntime, JsonValue } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import type { PolicyDefinition, Tool } from '@sluice/permissions';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunCodeTool } from './run-code-tool.js';

// What the run_code description promises, run on the real providers: a sentence there that stops
// being true fails here.

const policy: PolicyDefinition = { default: 'allow', rules: [] };
const tools: Tool[] = [
  {
    name: 'weather.forecast',
    description: 'Chance of rain tomorrow for a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    execute: (input) => ({ city: (input as { city: string }).city, rain: 0.5 }),
  },
];

const runtimes = {
  typescript: createWorkerThreadCodeRuntime({ wallTimeMs: 20_000 }),
  python: createPythonCodeRuntime({ wallTimeMs: 20_000 }),
} satisfies Record<string, CodeRuntime>;
afterAll(() => Promise.all(Object.values(runtimes).map((runtime) => runtime.dispose())));

// The first run of each provider starts its process (and the TypeScript parser); on a loaded machine that takes seconds.
const startup = 30_000;

function toolFor(language: keyof typeof runtimes) {
  return createRunCodeTool({ context: { codeRuntime: runtimes[language] }, tools, policy });
}

async function returned(language: keyof typeof runtimes, code: string): Promise<JsonValue | undefined> {
  const { result, rendered } = await toolFor(language).run({ code });
  if (result === undefined || !result.ok) throw new Error(rendered.text);
  return result.value;
}

describe('the run_code description, TypeScript', () => {
  it(
    'calls a tool with positional arguments that fill its required properties in order',
    async () => {
      expect(await returned('typescript', "return await weather.forecast('Oslo');")).toEqual({
        city: 'Oslo',
        rain: 0.5,
      });
    },
    startup,
  );

  it(
    'has every global it lists',
    async () => {
      const line = toolFor('typescript')
        .description.split('\n')
        .find((text) => text.startsWith('- Globals: '));
      const names = line!
        .slice('- Globals: the JavaScript built-ins, '.length, line!.indexOf('. No imports'))
        .split(', ');
      expect(names.length).toBeGreaterThan(15);
      const code = `return ${JSON.stringify(names)}.filter((path) => typeof path.split('.').reduce((at, key) => at?.[key], globalThis) === 'undefined');`;
      expect(await returned('typescript', code)).toEqual([]);
    },
    startup,
  );

  it(
    'runs the shapes it names: a final expression, a lone async arrow, export default, a markdown fence',
    async () => {
      const cases: [string, JsonValue][] = [
        ["const f = await weather.forecast({ city: 'Oslo' });\nf.rain", 0.5],
        ["async () => {\n  const f = await weather.forecast({ city: 'Oslo' });\n  return f.city;\n}", 'Oslo'],
        ['export default { ok: true };', { ok: true }],
        ['```ts\nconst n: number = 2;\nn * 21\n```', 42],
      ];
      for (const [code, value] of cases) expect(await returned('typescript', code)).toEqual(value);
    },
    startup,
  );

  it(
    'hands values back as JSON, with Maps, Sets, generators and Errors converted',
    async () => {
      const code = [
        'function* squares() { for (let n = 0; n < 3; n += 1) yield n * n; }',
        "const [settled] = await Promise.allSettled([Promise.reject(new TypeError('bad'))]);",
        "return { at: new Date(0), missing: undefined, kept: 1, byKey: new Map([['a', 1]]), tags: new Set(['b', 'a']), squares: squares(), error: (settled as PromiseRejectedResult).reason };",
      ].join('\n');
      expect(await returned('typescript', code)).toEqual({
        at: '1970-01-01T00:00:00.000Z',
        kept: 1,
        byKey: { a: 1 },
        tags: ['a', 'b'],
        squares: [0, 1, 4],
        error: { error: 'TypeError: bad' },
      });
    },
    startup,
  );
});

describe('the run_code description, Python', () => {
  it(
    'runs the shapes it names: a module with globals, a final expression, asyncio.run and __main__',
    async () => {
      const cases: [string, JsonValue][] = [
        ['f = await weather.forecast(city="Oslo")\nf["rain"]', 0.5],
        ['count = 0\ndef bump():\n    global count\n    count += 1\nbump()\nreturn count', 1],
        [
          'import asyncio\nasync def main():\n    return (await weather.forecast(city="Lima"))["city"]\nif __name__ == "__main__":\n    asyncio.run(main())',
          'Lima',
        ],
      ];
      for (const [code, value] of cases) expect(await returned('python', code)).toEqual(value);
    },
    startup,
  );

  it(
    'hands values back as Python encoders write them, and imports the standard library',
    async () => {
      const code = [
        'import datetime, decimal, pathlib, statistics',
        'return {"pair": (1, 2), "day": datetime.date(2026, 11, 30), 3: statistics.mean([1, 2]), "tags": {"b", "a"},',
        '        "squares": (n * n for n in range(3)), "path": pathlib.Path("a/b"), "price": decimal.Decimal("1.50"),',
        '        "error": ValueError("bad")}',
      ].join('\n');
      expect(await returned('python', code)).toEqual({
        pair: [1, 2],
        day: '2026-11-30',
        '3': 1.5,
        tags: ['a', 'b'],
        squares: [0, 1, 4],
        path: 'a/b',
        price: '1.50',
        error: { error: 'ValueError: bad' },
      });
    },
    startup,
  );

  it(
    'calls a tool with positional arguments that fill its required properties in order',
    async () => {
      expect(await returned('python', 'return await weather.forecast("Oslo")')).toEqual({ city: 'Oslo', rain: 0.5 });
    },
    startup,
  );
});
