import { describe, expect, it } from 'vitest';
import { type ConformanceSuite, echo, recording, successOf, useRuntime } from './conformance-harness.js';
import { caseTimeoutMs, conformanceBudgets } from './conformance-options.js';

/** Host calls: arguments and results intact, errors the program can catch, and names that were never granted. */
export function describeHostCallCases(suite: ConformanceSuite): void {
  describe('host calls', () => {
    const runtime = useRuntime(suite, conformanceBudgets);
    const { programs } = suite;

    it(
      'passes arguments and results through intact, with null for no argument',
      async () => {
        const tool = echo();
        const result = successOf(
          await runtime().run({ program: programs.hostRoundTrip, bindings: { tools: { echo: tool } } }),
        );
        const structured = { text: 'héllo ✓ 🌊', numbers: [1, -2.5, 1e21], nested: { flag: true, nothing: null } };
        expect(tool.invocations.map((invocation) => invocation.input)).toEqual([structured, 'plain', null]);
        expect(result.value).toEqual([{ echoed: structured }, { echoed: 'plain' }, { echoed: null }]);
        expect(result.calls.map(({ namespace, name, ok }) => ({ namespace, name, ok }))).toEqual([
          { namespace: 'tools', name: 'echo', ok: true },
          { namespace: 'tools', name: 'echo', ok: true },
          { namespace: 'tools', name: 'echo', ok: true },
        ]);
        expect(result.usage.hostCalls).toBe(3);
        expect(new Set(result.calls.map((call) => call.callId)).size).toBe(3);
        tool.invocations.forEach((invocation, index) => {
          expect(invocation.context.runId).toBe(result.runId);
          expect(invocation.context.callId).toBe(result.calls[index]?.callId);
          expect(invocation.abortedAtCall).toBe(false);
          // The signal is revoked once the run has ended, so nothing a host function started can outlive it.
          expect(invocation.context.signal.aborted).toBe(true);
        });
      },
      caseTimeoutMs,
    );

    it(
      'refuses a call whose argument holds a function, naming where, without calling the host function',
      async () => {
        const tool = echo();
        const result = successOf(
          await runtime().run({ program: programs.callWithFunction, bindings: { tools: { echo: tool } } }),
        );
        expect(tool.invocations).toHaveLength(0);
        expect(result.value).toMatchObject({ message: expect.stringMatching(/items.*1.* is a function/) });
      },
      caseTimeoutMs,
    );

    it(
      'raises a rejecting host function in the program as an error it can catch',
      async () => {
        const fail = recording(async (input) => {
          throw new Error(`no such city: ${(input as { city: string }).city}`);
        });
        const result = successOf(
          await runtime().run({ program: programs.catchHostError, bindings: { tools: { fail } } }),
        );
        expect(result.value).toMatchObject({
          isError: true,
          message: expect.stringContaining('no such city: Atlantis'),
        });
        expect(fail.invocations.map((invocation) => invocation.input)).toEqual([{ city: 'Atlantis' }]);
        expect(result.calls).toHaveLength(1);
        expect(result.calls[0]).toMatchObject({ namespace: 'tools', name: 'fail', ok: false });
        expect(result.calls[0]?.error).toContain('no such city: Atlantis');
      },
      caseTimeoutMs,
    );

    it(
      'sends positional arguments as the input and as context.positional, and one object as the input alone',
      async () => {
        const tool = echo();
        successOf(await runtime().run({ program: programs.positionalArguments, bindings: { tools: { echo: tool } } }));
        const seen = tool.invocations.map(({ input, context }) => [input, context.positional ?? 'absent']);
        expect(seen).toEqual([
          ['oslo', ['oslo']],
          [
            ['one', 'two'],
            ['one', 'two'],
          ],
          [[1, 2], [[1, 2]]],
          [{ query: 'oslo' }, 'absent'],
          [null, 'absent'],
          ...(suite.language === 'python'
            ? [
                [{ limit: 3 }, ['oslo']],
                [{ query: 'oslo' }, 'absent'],
              ]
            : []),
        ]);
      },
      caseTimeoutMs,
    );

    it(
      'refuses a name that was not granted, without invoking any host function',
      async () => {
        const secret = recording(() => 'the crown jewels');
        // An earlier run on the same runtime was granted `secret`; a grant must not outlive its run.
        const earlier = await runtime().run({
          program: programs.returnNull,
          bindings: { tools: { echo: echo(), secret }, admin: { secret } },
        });
        successOf(earlier);
        const tool = echo();
        const result = successOf(
          await runtime().run({ program: programs.callNotGranted, bindings: { tools: { echo: tool } } }),
        );
        expect(result.value).toEqual(['refused', 'refused']);
        expect(secret.invocations).toEqual([]);
        expect(tool.invocations).toEqual([]);
        // A provider may refuse in the program or on the host; a refusal that reached the host is recorded as not ok.
        for (const call of result.calls) expect(call.ok).toBe(false);
        expect(result.usage.hostCalls).toBe(result.calls.length);
      },
      caseTimeoutMs,
    );
  });
}
