import {
  type CodeRunDeterminism,
  type CodeRunRequest,
  type HostFunction,
  InvalidRequestError,
  type JsonValue,
} from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { type ConformanceSuite, echo, successOf, thrownBy, useRuntime } from './conformance-harness.js';
import { caseTimeoutMs, conformanceBudgets } from './conformance-options.js';

/** The start time of every deterministic run here: 2023-11-14T22:13:20Z. */
const startTime = 1_700_000_000_000;

/** What `clockAndRandom` returns. */
interface Clocked {
  readonly now: number;
  readonly random: number;
}

/** What a deterministic run of `deterministicRun` gave: everything a replay must repeat, as one JSON text. */
interface Repeatable {
  readonly ok: boolean;
  readonly value: JsonValue | undefined;
  readonly logs: ReadonlyArray<{ readonly level: string; readonly text: string }>;
  /** The arguments the host function received, in the order it received them. */
  readonly seen: JsonValue[];
  readonly calls: ReadonlyArray<{ namespace: string; name: string; ok: boolean; error?: string }>;
}

/**
 * `request.deterministic` (what durable replay needs): a runtime that publishes `determinism` gives
 * the same calls, logs and value, byte for byte, for the same program, seed, start time and host
 * results, however the host's answers are timed; one that does not refuses the request.
 */
export function describeDeterminismCases(suite: ConformanceSuite): void {
  describe('determinism', () => {
    const runtime = useRuntime(suite, conformanceBudgets);
    const { programs } = suite;

    /**
     * Runs `deterministicRun` with an echo host function whose n-th call settles after `delaysMs[n]`
     * of real time, so its answers come back in whatever order the delays give.
     */
    async function runWith(deterministic: CodeRunDeterminism, delaysMs: readonly number[]): Promise<string> {
      const seen: JsonValue[] = [];
      const delayed: HostFunction = async (input) => {
        const delayMs = delaysMs[seen.length] ?? 0;
        seen.push(input);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        return input;
      };
      const result = await runtime().run({
        program: programs.deterministicRun,
        bindings: { tools: { echo: delayed } },
        deterministic,
      });
      const repeatable: Repeatable = {
        ok: result.ok,
        value: result.ok ? result.value : (result.failure as unknown as JsonValue),
        logs: result.logs,
        seen,
        calls: result.calls.map(({ namespace, name, ok, error }) => ({
          namespace,
          name,
          ok,
          ...(error === undefined ? {} : { error }),
        })),
      };
      return JSON.stringify(repeatable);
    }

    /** Runs `clockAndRandom`, deterministically when `deterministic` is given. */
    async function clockAndRandom(deterministic?: CodeRunDeterminism): Promise<Clocked> {
      const request = deterministic === undefined ? {} : { deterministic };
      const result = successOf(await runtime().run({ program: programs.clockAndRandom, ...request }));
      return result.value as unknown as Clocked;
    }

    it('refuses request.deterministic, running nothing, when the runtime publishes no determinism', (context) => {
      if (runtime().determinism !== undefined) context.skip();
      const tool = echo();
      const error = thrownBy(() =>
        runtime().start({
          program: programs.hostRoundTrip,
          bindings: { tools: { echo: tool } },
          deterministic: { seed: 1, startTime },
        }),
      );
      expect(InvalidRequestError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ field: 'deterministic' });
      expect(tool.invocations).toEqual([]);
    });

    it(
      'publishes a fingerprint, the same for every runtime it creates',
      async (context) => {
        const { determinism } = runtime();
        if (determinism === undefined) return context.skip();
        expect(typeof determinism.fingerprint).toBe('string');
        expect(determinism.fingerprint.trim()).not.toBe('');
        const other = await suite.create(conformanceBudgets);
        try {
          expect(other.determinism?.fingerprint).toBe(determinism.fingerprint);
        } finally {
          await other.dispose();
        }
      },
      caseTimeoutMs,
    );

    it('refuses a malformed seed or start time with InvalidRequestError, running nothing', (context) => {
      if (runtime().determinism === undefined) context.skip();
      const tool = echo();
      const malformed: Array<[unknown, string]> = [
        [{ seed: -1, startTime }, 'deterministic.seed'],
        [{ seed: 2 ** 32, startTime }, 'deterministic.seed'],
        [{ seed: 1.5, startTime }, 'deterministic.seed'],
        [{ seed: Number.NaN, startTime }, 'deterministic.seed'],
        [{ seed: '7', startTime }, 'deterministic.seed'],
        [{ seed: 1, startTime: -1 }, 'deterministic.startTime'],
        [{ seed: 1, startTime: Number.NaN }, 'deterministic.startTime'],
        [{ seed: 1, startTime: 0.5 }, 'deterministic.startTime'],
        [{ seed: 1 }, 'deterministic.startTime'],
        [null, 'deterministic'],
      ];
      for (const [deterministic, field] of malformed) {
        const request = {
          program: programs.hostRoundTrip,
          bindings: { tools: { echo: tool } },
          deterministic,
        } as unknown as CodeRunRequest;
        const error = thrownBy(() => runtime().start(request));
        expect(InvalidRequestError.isInstance(error), JSON.stringify(deterministic)).toBe(true);
        expect(error).toMatchObject({ field });
      }
      expect(tool.invocations).toEqual([]);
    });

    it(
      "repeats calls, logs and value byte for byte for the same seed and start time, however the host's answers are timed",
      async (context) => {
        if (runtime().determinism === undefined) return context.skip();
        const deterministic = { seed: 7, startTime };
        const reversed = await runWith(deterministic, [90, 45, 1]);
        expect(await runWith(deterministic, [1, 45, 90])).toBe(reversed);
        expect(await runWith(deterministic, [45, 1, 90])).toBe(reversed);

        const run = JSON.parse(reversed) as Repeatable;
        expect(run.ok, reversed).toBe(true);
        // The clock starts at startTime and moves 1 ms per answer delivered, and to a timer's due time
        // when it fires; timers fire only when nothing else can happen; answers come in call order,
        // each chain running to its next wait before the next answer is delivered.
        expect(run.value).toMatchObject({
          started: startTime,
          order: ['a', 'b', 'c'],
          replies: [{ key: 'a' }, { key: 'b' }, { key: 'c' }],
          late: { key: 'late', at: 103 },
          end: 104,
        });
        expect(run.seen).toEqual([{ key: 'a' }, { key: 'b' }, { key: 'c' }, { key: 'late', at: 103 }]);
        expect(run.logs.map((line) => line.text)).toEqual([
          `start ${startTime}`,
          'reply a 1',
          'then a 1',
          'reply b 2',
          'then b 2',
          'reply c 3',
          'then c 3',
          'zero timer 3',
          'timer 10 13',
          'timer 30 33',
        ]);
        expect(run.calls).toEqual(Array(4).fill({ namespace: 'tools', name: 'echo', ok: true }));
      },
      caseTimeoutMs,
    );

    it(
      'draws other numbers from another seed, on the same clock',
      async (context) => {
        if (runtime().determinism === undefined) return context.skip();
        const seven = (JSON.parse(await runWith({ seed: 7, startTime }, [1, 1, 1])) as Repeatable).value;
        const eight = (JSON.parse(await runWith({ seed: 8, startTime }, [1, 1, 1])) as Repeatable).value;
        expect(eight).toMatchObject({ started: startTime, end: 104 });
        const { drawn, again } = seven as { drawn: JsonValue[]; again: number };
        expect(eight).not.toMatchObject({ again });
        const other = (eight as { drawn: JsonValue[] }).drawn;
        for (const [index, value] of drawn.entries()) expect(other[index], `drawn[${index}]`).not.toEqual(value);
      },
      caseTimeoutMs,
    );

    it(
      'gives ordinary runs between deterministic ones the real clock and fresh randomness',
      async (context) => {
        if (runtime().determinism === undefined) return context.skip();
        const first = await runWith({ seed: 11, startTime: 5_000 }, [20, 1, 1]);
        const fixed = await clockAndRandom({ seed: 11, startTime: 5_000 });
        expect(fixed.now).toBe(5_000);
        const before = Date.now();
        const one = await clockAndRandom();
        const two = await clockAndRandom();
        const after = Date.now();
        for (const { now } of [one, two]) {
          expect(now).toBeGreaterThanOrEqual(before - 1);
          expect(now).toBeLessThanOrEqual(after + 1);
        }
        expect(two.random).not.toBe(one.random);
        expect(one.random).not.toBe(fixed.random);
        expect(await runWith({ seed: 11, startTime: 5_000 }, [1, 1, 20])).toBe(first);
      },
      caseTimeoutMs,
    );
  });
}
