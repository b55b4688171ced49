import { type CodeRuntime, type JsonValue, utf8ByteLength } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import {
  type ConformanceSuite,
  echo,
  failureOf,
  pause,
  recording,
  successOf,
  useRuntime,
} from './conformance-harness.js';
import { caseTimeoutMs, conformanceBudgets, conformanceTimeoutBudgets } from './conformance-options.js';
import { hostFaults } from './host-faults.js';

/** The per-call budget when a runtime does not publish its limits: the kit's default. */
const defaultHostCallBytes = 1024 * 1024;

/** What the fault programs return when the call raised an error: its size in UTF-8 and its start. */
interface CaughtError {
  readonly ok: false;
  readonly bytes: number;
  readonly head: string;
}

/**
 * The fault table: host functions that throw odd things, reject, return values that are not JSON,
 * never settle, or settle after the run. Each run must end as a result, the program must see an
 * error of at most `hostCallBytes` bytes, and the next run on the same runtime must succeed.
 */
export function describeHostFaultCases(suite: ConformanceSuite): void {
  describe('misbehaving host functions', () => {
    const runtime = useRuntime(suite, conformanceBudgets);
    const shortRuntime = useRuntime(suite, conformanceTimeoutBudgets);
    const { programs } = suite;

    for (const { name, fault, outcome } of hostFaults) {
      it(
        `ends the run as a result when a host function ${name}`,
        async () => {
          const target: CodeRuntime = outcome.kind === 'timeout' ? shortRuntime() : runtime();
          const limitBytes = target.limits?.hostCallBytes ?? defaultHostCallBytes;
          const host = recording(fault as (input: JsonValue) => Promise<JsonValue>);
          const program = outcome.kind === 'late' ? programs.fireFault : programs.callFault;
          const result = await target.run({ program, bindings: { tools: { fault: host, echo: echo() } } });
          if (outcome.kind === 'error') {
            const caught = successOf(result).value as unknown as CaughtError;
            expect(caught).toMatchObject({ ok: false });
            expect(caught.bytes).toBeGreaterThan(0);
            expect(caught.bytes).toBeLessThanOrEqual(limitBytes);
            expect(result.calls).toHaveLength(1);
            expect(result.calls[0]).toMatchObject({ name: 'fault', ok: false });
            expect(utf8ByteLength(result.calls[0]?.error ?? '')).toBeLessThanOrEqual(limitBytes);
          } else if (outcome.kind === 'value') {
            expect(successOf(result).value).toEqual({ ok: true, value: outcome.value });
          } else if (outcome.kind === 'timeout') {
            expect(failureOf(result, 'timeout').budget).toBe('wall-time');
          } else {
            expect(successOf(result).value).toBe('done');
            expect(host.invocations).toHaveLength(1);
            // Let the late settlement happen while the runtime serves other runs.
            await pause(300);
          }
          expect(host.invocations.length).toBeLessThanOrEqual(1);
          const next = successOf(await target.run({ program: programs.returnNull }));
          expect(next.value).toBeNull();
        },
        caseTimeoutMs,
      );
    }

    it(
      'refuses a host-call argument the program nested 100,000 levels deep, without invoking the host',
      async () => {
        const tool = echo();
        const result = successOf(
          await runtime().run({ program: programs.deepArgument, bindings: { tools: { echo: tool } } }),
        );
        expect(result.value).toBe('refused');
        expect(tool.invocations).toEqual([]);
        expect(successOf(await runtime().run({ program: programs.returnNull })).value).toBeNull();
      },
      caseTimeoutMs,
    );

    it(
      'ends a run whose value is nested 100,000 levels deep as invalid-output',
      async () => {
        failureOf(await runtime().run({ program: programs.deepValue }), 'invalid-output');
        expect(successOf(await runtime().run({ program: programs.returnNull })).value).toBeNull();
      },
      caseTimeoutMs,
    );
  });
}
