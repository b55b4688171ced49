import type { CodeRuntimeLanguage, HostFunction, JsonValue } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import {
  type ConformanceSuite,
  deferred,
  echo,
  pause,
  recording,
  successOf,
  useRuntime,
} from './conformance-harness.js';
import { caseTimeoutMs, conformanceBudgets } from './conformance-options.js';

const cleanProbe: Record<CodeRuntimeLanguage, JsonValue> = {
  typescript: {
    leaked: 'undefined',
    polluted: 'undefined',
    includes: false,
    parsed: { a: 1 },
    echoed: { echoed: 'probe' },
  },
  python: { leaked: false, pi: true, abs: 2, shared: false, echoed: { echoed: 'probe' } },
};

/**
 * A host function every party calls once; it resolves when all have called, or after `fallbackMs`
 * for a provider that runs one program at a time, so such a provider is not deadlocked.
 */
function barrier(parties: number, fallbackMs: number): HostFunction {
  let arrived = 0;
  const open = deferred();
  return async () => {
    arrived += 1;
    if (arrived >= parties) open.resolve();
    await Promise.race([open.promise, pause(fallbackMs)]);
    return null;
  };
}

/** Runs do not see each other: neither one after another, nor at the same time. */
export function describeIsolationCases(suite: ConformanceSuite): void {
  describe('isolation', () => {
    const runtime = useRuntime(suite, conformanceBudgets);
    const { programs } = suite;

    it(
      'shows nothing of one run to the next: globals, built-ins, modules, bindings',
      async () => {
        // Several rounds, so that a provider reusing its substrates is likely to reuse a polluted one.
        for (let round = 0; round < 3; round += 1) {
          // The polluting run may succeed or fail; all that matters is what the next run sees.
          await runtime().run({ program: programs.pollute, bindings: { tools: { echo: echo() } } });
          const tool = echo();
          const probe = successOf(
            await runtime().run({ program: programs.probe, bindings: { tools: { echo: tool } } }),
          );
          expect(probe.value).toEqual(cleanProbe[suite.language]);
          expect(tool.invocations).toHaveLength(1);
        }
      },
      caseTimeoutMs,
    );

    it(
      'gives concurrent runs only their own bindings and globals',
      async () => {
        const meet = barrier(2, 2_000);
        const whoamiA = recording(() => 'A');
        const whoamiB = recording(() => 'B');
        const [first, second] = await Promise.all([
          runtime().run({
            program: programs.concurrentIdentity,
            bindings: { alpha: { whoami: whoamiA, barrier: meet } },
          }),
          runtime().run({
            program: programs.concurrentIdentity,
            bindings: { beta: { whoami: whoamiB, barrier: meet } },
          }),
        ]);
        const a = successOf(first);
        const b = successOf(second);
        expect(a.value).toEqual({ seesAlpha: true, seesBeta: false, who: 'A', mark: 'alpha' });
        expect(b.value).toEqual({ seesAlpha: false, seesBeta: true, who: 'B', mark: 'beta' });
        expect(a.runId).not.toBe(b.runId);
        expect(whoamiA.invocations.map((invocation) => invocation.context.runId)).toEqual([a.runId]);
        expect(whoamiB.invocations.map((invocation) => invocation.context.runId)).toEqual([b.runId]);
      },
      caseTimeoutMs,
    );
  });
}
