import { describe, expect, it } from 'vitest';
import {
  type ConformanceSuite,
  deferred,
  echo,
  failureOf,
  logTexts,
  recording,
  successOf,
  useRuntime,
} from './conformance-harness.js';
import {
  caseTimeoutMs,
  conformanceAcquireBudgets,
  conformanceColdStartBudgets,
  conformanceQueueBudgets,
} from './conformance-options.js';

/**
 * How much earlier than `performance.now()` says a Node timer may fire: timers run by the event
 * loop's clock, cached at the start of each turn, in whole milliseconds.
 */
const timerSlackMs = 2;

/** Resolves after `ms` milliseconds: how long a host function holds the only substrate. */
function hold(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waiting for a substrate is not the program's time: the wall clock starts when the program
 * starts, the wait is reported as `usage.queuedMs` and bounded by `acquireTimeoutMs`, and a run that
 * never started ends as `unavailable` with nothing of its program done.
 */
export function describeQueueingCases(suite: ConformanceSuite): void {
  const { programs } = suite;

  describe('waiting for a substrate', () => {
    const runtime = useRuntime(suite, conformanceQueueBudgets);

    it(
      'does not charge the time a run waits for a busy substrate to its wall clock',
      async () => {
        const { wallTimeMs } = conformanceQueueBudgets;
        // Each run holds the only substrate for 55% of the wall clock, so the third waits longer
        // than the wall clock before its program starts, and must still succeed.
        const holdMs = Math.ceil(wallTimeMs * 0.55);
        const tool = recording(async (input) => {
          await hold(holdMs);
          return input;
        });
        const results = await Promise.all(
          [0, 1, 2].map(() => runtime().run({ program: programs.callThenReturn, bindings: { tools: { echo: tool } } })),
        );
        for (const result of results) {
          expect(successOf(result).value).toBe('queued');
          expect(logTexts(result)).toEqual(['started']);
          expect(result.usage.wallMs).toBeGreaterThanOrEqual(holdMs - timerSlackMs);
        }
        const queued = results.map((result) => result.usage.queuedMs ?? Number.NaN).sort((a, b) => a - b);
        // The runs went one at a time: the last waited for both others' holds.
        expect(queued[2]).toBeGreaterThanOrEqual(2 * (holdMs - timerSlackMs));
        expect(queued[2]).toBeGreaterThan(wallTimeMs);
      },
      caseTimeoutMs,
    );
  });

  describe('a wait past acquireTimeoutMs', () => {
    const runtime = useRuntime(suite, conformanceAcquireBudgets);

    it(
      'ends the waiting run as unavailable, its program not started, and serves the next run',
      async () => {
        const { acquireTimeoutMs } = conformanceAcquireBudgets;
        // Started first: a cold substrate may take longer than this short acquire timeout to start.
        await (runtime().ready?.() ?? runtime().run({ program: programs.returnNull }));
        const release = deferred();
        const entered = deferred();
        const holding = recording(async (input) => {
          entered.resolve();
          await release.promise;
          return input;
        });
        const first = runtime().run({ program: programs.callThenReturn, bindings: { tools: { echo: holding } } });
        await entered.promise;
        const mark = echo();
        const waiting = await runtime().run({ program: programs.callThenReturn, bindings: { tools: { echo: mark } } });
        release.resolve();
        const failure = failureOf(waiting, 'unavailable');
        expect(failure.limitMs).toBe(acquireTimeoutMs);
        expect(waiting.logs).toEqual([]);
        expect(waiting.calls).toEqual([]);
        expect(waiting.usage.wallMs).toBe(0);
        expect(waiting.usage.queuedMs).toBeGreaterThanOrEqual(acquireTimeoutMs - timerSlackMs);
        expect(successOf(await first).value).toBe('queued');
        const next = await runtime().run({ program: programs.callThenReturn, bindings: { tools: { echo: mark } } });
        expect(successOf(next).value).toEqual({ echoed: 'queued' });
        // Only the run that was served called the tool: the unavailable one never started.
        expect(mark.invocations).toHaveLength(1);
      },
      caseTimeoutMs,
    );
  });

  describe('a fresh runtime', () => {
    it(
      "does not charge starting the substrate to the first program's wall clock",
      async () => {
        const runtime = await suite.create(conformanceColdStartBudgets);
        try {
          const result = successOf(await runtime.run({ program: programs.returnValue }));
          expect(result.value).toMatchObject({ answer: 42 });
          expect(typeof result.usage.queuedMs).toBe('number');
        } finally {
          await runtime.dispose();
        }
      },
      caseTimeoutMs,
    );

    it(
      'starts its first looping program, which prints before its wall clock stops it',
      async () => {
        const runtime = await suite.create(conformanceColdStartBudgets);
        try {
          const result = await runtime.run({ program: programs.infiniteLoop });
          const failure = failureOf(result, 'timeout');
          if (failure.budget === 'wall-time') expect(failure.limitMs).toBe(conformanceColdStartBudgets.wallTimeMs);
          expect(logTexts(result)).toEqual(['spinning']);
        } finally {
          await runtime.dispose();
        }
      },
      caseTimeoutMs,
    );

    it(
      'is ready once ready() resolves, and says so no more once disposed',
      async () => {
        const runtime = await suite.create(conformanceColdStartBudgets);
        try {
          if (runtime.ready === undefined) return;
          expect(await runtime.ready()).toEqual({ ok: true });
          // Idempotent: a second call finds it ready.
          expect(await runtime.ready()).toEqual({ ok: true });
          const result = successOf(await runtime.run({ program: programs.returnValue }));
          expect(result.value).toMatchObject({ answer: 42 });
        } finally {
          await runtime.dispose();
        }
        const after = await runtime.ready?.();
        expect(after).toMatchObject({ ok: false });
      },
      caseTimeoutMs,
    );
  });
}
