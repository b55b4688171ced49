import { type Bindings, type CodeRunRequest, InvalidRequestError } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { type ConformanceSuite, echo, thrownBy, useRuntime } from './conformance-harness.js';
import { caseTimeoutMs, conformanceBudgets } from './conformance-options.js';

/** What the runtime says about itself, and misuse of `start` and `run`, which throws instead of running. */
export function describeRuntimeCases(suite: ConformanceSuite): void {
  describe('runtime', () => {
    const runtime = useRuntime(suite, conformanceBudgets);

    it('describes itself', () => {
      expect(runtime().specificationVersion).toBe('code-runtime-v1');
      expect(runtime().language).toBe(suite.language);
      expect(runtime().id).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(typeof runtime().isolation).toBe('string');
      expect(runtime().isolation.trim()).not.toBe('');
    });

    it('publishes the budgets it was created with, when it publishes limits', () => {
      const { limits } = runtime();
      if (limits === undefined) return;
      expect(limits).toMatchObject({
        wallTimeMs: conformanceBudgets.wallTimeMs,
        logBytes: conformanceBudgets.logBytes,
        valueBytes: conformanceBudgets.valueBytes,
      });
      if (limits.memoryBytes !== undefined) expect(limits.memoryBytes).toBe(conformanceBudgets.memoryBytes);
      for (const value of Object.values(limits)) expect(Number.isSafeInteger(value) && value > 0).toBe(true);
    });

    it(
      'gives every run its own id',
      async () => {
        const first = runtime().start({ program: suite.programs.returnNull });
        const second = runtime().start({ program: suite.programs.returnNull });
        expect(first.id).not.toBe(second.id);
        expect((await first.result).runId).toBe(first.id);
        expect((await second.result).runId).toBe(second.id);
      },
      caseTimeoutMs,
    );

    it(
      'throws InvalidRequestError from start for a program that is not a string, and rejects from run',
      async () => {
        const request = { program: 42 } as unknown as CodeRunRequest;
        expect(InvalidRequestError.isInstance(thrownBy(() => runtime().start(request)))).toBe(true);
        const rejection = await runtime()
          .run(request)
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        expect(InvalidRequestError.isInstance(rejection)).toBe(true);
      },
      caseTimeoutMs,
    );

    it('throws InvalidRequestError for a binding name that is not a portable identifier', () => {
      const tool = echo();
      const malformed: Bindings[] = [
        { 'not-an-identifier': { echo: tool } },
        { tools: { 'also bad': tool } },
        { tools: { __init__: tool } },
        { class: { echo: tool } },
      ];
      for (const bindings of malformed) {
        const error = thrownBy(() => runtime().start({ program: suite.programs.returnNull, bindings }));
        expect(InvalidRequestError.isInstance(error)).toBe(true);
      }
      const notAFunction = { tools: { echo: 'not a function' } } as unknown as Bindings;
      const error = thrownBy(() => runtime().start({ program: suite.programs.returnNull, bindings: notAFunction }));
      expect(InvalidRequestError.isInstance(error)).toBe(true);
      expect(tool.invocations).toEqual([]);
    });
  });
}
