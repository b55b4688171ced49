import type { JsonValue } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { type ConformanceSuite, failureOf, recording, successOf, useRuntime } from './conformance-harness.js';
import { caseTimeoutMs, conformanceBudgets } from './conformance-options.js';

/** What `boundaryValues` builds, once converted by the table, in either language. */
export const boundaryValuesBuilt = {
  counts: { bug: 2, '7': 1 },
  tags: ['a', 'b', 'c'],
  numbers: [9, 10, 100],
  squares: [0, 1, 4],
  settled: [{ status: 'rejected', reason: { error: 'TypeError: bad input' } }],
};

/**
 * The JSON boundary's table (the code-runtime README), the rules every provider shares: what a
 * program returns or passes and what a host function returns cross the same way.
 */
export function describeJsonBoundaryCases(suite: ConformanceSuite): void {
  describe('the JSON boundary', () => {
    const runtime = useRuntime(suite, conformanceBudgets);

    it(
      'converts maps, sets, generators and errors in the result and in host-call arguments',
      async () => {
        const host = recording((input) => input);
        const program = suite.programs.boundaryValues;
        const result = successOf(await runtime().run({ program, bindings: { tools: { echo: host } } }));
        expect(host.invocations.map(({ input }) => input)).toEqual([boundaryValuesBuilt]);
        expect(result.value).toEqual({ returned: boundaryValuesBuilt, echoed: boundaryValuesBuilt });
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
        const program = suite.programs.returnHostValue;
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
      'lets a generator of exactly the value budget through, and stops one of a byte more',
      async () => {
        // 255 strings of 254 characters: 2 brackets, 255 × 256 characters and 254 commas, 65 536 bytes.
        const items = 255;
        expect(1 + items * 257).toBe(conformanceBudgets.valueBytes);
        const exact = await runtime().run({
          program: suite.programs.returnBudgetGenerator,
          bindings: { tools: { extra: () => 0 } },
        });
        expect(successOf(exact).value).toEqual(Array.from({ length: items }, () => 'x'.repeat(254)));
        const over = await runtime().run({
          program: suite.programs.returnBudgetGenerator,
          bindings: { tools: { extra: () => 1 } },
        });
        failureOf(over, 'output-limit');
      },
      caseTimeoutMs,
    );

    it(
      'stops an endless generator at the value budget, returned or given by a host function',
      async () => {
        const returned = await runtime().run({ program: suite.programs.returnEndless });
        failureOf(returned, 'output-limit');
        function* endless() {
          for (let n = 0; ; n += 1) yield { n };
        }
        const given = successOf(
          await runtime().run({
            program: suite.programs.catchHostValue,
            bindings: { tools: { give: () => ({ items: endless() }) as unknown as JsonValue } },
          }),
        );
        expect(given.value).toEqual({ error: expect.stringContaining('tools.give returned more than') });
      },
      caseTimeoutMs,
    );
  });
}
