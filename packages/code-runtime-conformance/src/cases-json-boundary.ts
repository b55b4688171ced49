import type { CodeRuntimeLanguage, JsonValue } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { type ConformanceSuite, failureOf, recording, successOf, useRuntime } from './conformance-harness.js';
import { caseTimeoutMs, conformanceBudgets } from './conformance-options.js';
import { lines } from './program-lines.js';

/**
 * Programs building the same value in each language's own shapes: a `Map` (TypeScript) or a dict
 * with an int key (Python), sets, a generator, and the errors `Promise.allSettled` or
 * `asyncio.gather(..., return_exceptions=True)` leave in a list. `build()` makes it afresh.
 */
const builders: Record<CodeRuntimeLanguage, string> = {
  typescript: lines(
    'function* squares() { for (let n = 0; n < 3; n += 1) yield n * n; }',
    'const build = async () => ({',
    "  counts: new Map<unknown, number>([['bug', 2], [7, 1]]),",
    "  tags: new Set(['b', 'c', 'a']),",
    '  numbers: new Set([10, 9, 100]),',
    '  squares: squares(),',
    "  settled: await Promise.allSettled([Promise.reject(new TypeError('bad input'))]),",
    '});',
  ),
  python: lines(
    'import asyncio',
    'async def failing():',
    '    raise TypeError("bad input")',
    'async def build():',
    '    errors = await asyncio.gather(failing(), return_exceptions=True)',
    '    return {',
    '        "counts": {"bug": 2, 7: 1},',
    '        "tags": {"b", "c", "a"},',
    '        "numbers": frozenset([10, 9, 100]),',
    '        "squares": (n * n for n in range(3)),',
    '        "settled": [{"status": "rejected", "reason": error} for error in errors],',
    '    }',
  ),
};

const built = {
  counts: { bug: 2, '7': 1 },
  tags: ['a', 'b', 'c'],
  numbers: [9, 10, 100],
  squares: [0, 1, 4],
  settled: [{ status: 'rejected', reason: { error: 'TypeError: bad input' } }],
};

const endlessGenerator: Record<CodeRuntimeLanguage, string> = {
  typescript: 'function* endless() { for (let n = 0; ; n += 1) yield { n, text: "abcdefghij" }; }',
  python: lines(
    'import itertools',
    'def endless():',
    '    for n in itertools.count():',
    '        yield {"n": n, "text": "abcdefghij"}',
  ),
};

const catching: Record<CodeRuntimeLanguage, (call: string) => string> = {
  typescript: (call) => `try { return await ${call}; } catch (error) { return { error: (error as Error).message }; }`,
  python: (call) =>
    lines('try:', `    return await ${call}`, 'except HostCallError as error:', '    return {"error": str(error)}'),
};

/**
 * The JSON boundary's table (the code-runtime README), the rules every provider shares: what a
 * program returns or passes and what a host function returns cross the same way.
 */
export function describeJsonBoundaryCases(suite: ConformanceSuite): void {
  describe('the JSON boundary', () => {
    const runtime = useRuntime(suite, conformanceBudgets);
    const { language } = suite;

    it(
      'converts maps, sets, generators and errors in the result and in host-call arguments',
      async () => {
        const host = recording((input) => input);
        const program = lines(
          builders[language],
          language === 'python'
            ? 'return {"returned": await build(), "echoed": await tools.echo(await build())}'
            : 'return { returned: await build(), echoed: await tools.echo(await build()) };',
        );
        const result = successOf(await runtime().run({ program, bindings: { tools: { echo: host } } }));
        expect(host.invocations.map(({ input }) => input)).toEqual([built]);
        expect(result.value).toEqual({ returned: built, echoed: built });
      },
      caseTimeoutMs,
    );

    it(
      'gives the program what a host function returns by the same table',
      async () => {
        function* pages() {
          yield { page: 1 };
          yield { page: 2 };
        }
        const give = () =>
          ({
            counts: new Map<unknown, number>([
              ['bug', 2],
              [7, 1],
            ]),
            tags: new Set(['b', 'c', 'a']),
            pages: pages(),
            at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
            failure: new TypeError('quota exceeded'),
          }) as unknown as JsonValue;
        const program = language === 'python' ? 'return await tools.give()' : 'return await tools.give();';
        const result = successOf(await runtime().run({ program, bindings: { tools: { give } } }));
        expect(result.value).toEqual({
          counts: { bug: 2, '7': 1 },
          tags: ['a', 'b', 'c'],
          pages: [{ page: 1 }, { page: 2 }],
          at: '2026-01-02T03:04:05.000Z',
          failure: { error: 'TypeError: quota exceeded' },
        });
      },
      caseTimeoutMs,
    );

    it(
      'stops an endless generator at the value budget, returned or given by a host function',
      async () => {
        const returned = await runtime().run({
          program: lines(
            endlessGenerator[language],
            language === 'python' ? 'return {"items": endless()}' : 'return { items: endless() };',
          ),
        });
        failureOf(returned, 'output-limit');
        function* endless() {
          for (let n = 0; ; n += 1) yield { n };
        }
        const given = successOf(
          await runtime().run({
            program: catching[language]('tools.give()'),
            bindings: { tools: { give: () => ({ items: endless() }) as unknown as JsonValue } },
          }),
        );
        expect(given.value).toEqual({ error: expect.stringContaining('tools.give returned more than') });
      },
      caseTimeoutMs,
    );
  });
}
