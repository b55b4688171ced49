import { describe, expect, it } from 'vitest';
import { type ConformanceSuite, echo, failureOf, logTexts, successOf, useRuntime } from './conformance-harness.js';
import { caseTimeoutMs, conformanceTimeoutBudgets } from './conformance-options.js';

/** The wall clock: a program that never ends is stopped, and the runtime goes on serving. */
export function describeTimeoutCases(suite: ConformanceSuite): void {
  describe('timeouts', () => {
    const runtime = useRuntime(suite, conformanceTimeoutBudgets);
    const { programs } = suite;

    it(
      'stops an infinite loop, before or after an await, as a timeout, keeping logs, and serves the next run',
      async () => {
        const tool = echo();
        // Both loops run at once, so the case costs one wall-clock budget rather than two.
        const results = await Promise.all([
          runtime().run({ program: programs.infiniteLoop }),
          runtime().run({ program: programs.loopAfterAwait, bindings: { tools: { echo: tool } } }),
        ]);
        for (const result of results) {
          const failure = failureOf(result, 'timeout');
          expect(['wall-time', 'cpu-time']).toContain(failure.budget);
          if (failure.budget === 'wall-time') expect(failure.limitMs).toBe(conformanceTimeoutBudgets.wallTimeMs);
          expect(logTexts(result)).toEqual(['spinning']);
        }
        expect(tool.invocations).toHaveLength(1);
        const next = successOf(await runtime().run({ program: programs.returnValue }));
        expect(next.value).toMatchObject({ answer: 42 });
      },
      caseTimeoutMs,
    );
  });
}
