import { RuntimeDisposedError } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import {
  type ConformanceSuite,
  echo,
  eventRecorder,
  failureOf,
  logTexts,
  pause,
  successOf,
  thrownBy,
  useRuntime,
  waitForever,
} from './conformance-harness.js';
import { caseTimeoutMs, conformanceBudgets } from './conformance-options.js';

/** Cancellation by `cancel`, by the request's signal, and by `dispose`. */
export function describeCancellationCases(suite: ConformanceSuite): void {
  describe('cancellation', () => {
    const runtime = useRuntime(suite, conformanceBudgets);
    const { programs } = suite;

    it(
      'ends a busy run as abort carrying the reason on cancel, keeping logs, and serves the next run',
      async () => {
        const recorder = eventRecorder();
        const run = runtime().start({
          program: programs.loopAfterAwait,
          bindings: { tools: { echo: echo() } },
          onEvent: recorder.onEvent,
        });
        // Its log says it is in the loop; a provider that reads logs only at the end gets a moment instead.
        await Promise.race([recorder.waitForLog('spinning'), run.result, pause(2_000)]);
        run.cancel('stopped by the conformance suite');
        const result = await run.result;
        expect(failureOf(result, 'abort').reason).toBe('stopped by the conformance suite');
        expect(logTexts(result)).toEqual(['spinning']);
        run.cancel('cancelled twice');
        expect(await run.result).toEqual(result);
        const next = successOf(await runtime().run({ program: programs.returnValue }));
        expect(next.value).toMatchObject({ answer: 42 });
      },
      caseTimeoutMs,
    );

    it(
      'streams a log line while the program is still running',
      async () => {
        const recorder = eventRecorder();
        const run = runtime().start({ program: programs.infiniteLoop, onEvent: recorder.onEvent });
        const first = await Promise.race([
          recorder.waitForLog('spinning').then(() => 'log'),
          run.result.then(() => 'result'),
          pause(5_000).then(() => 'nothing yet'),
        ]);
        run.cancel('stopped by the conformance suite');
        await run.result;
        expect(first).toBe('log');
      },
      caseTimeoutMs,
    );

    it(
      "ends a run as abort carrying the signal's reason when the request's signal aborts",
      async () => {
        const controller = new AbortController();
        const wait = waitForever();
        const run = runtime().start({
          program: programs.waitForHost,
          bindings: { tools: { wait } },
          signal: controller.signal,
        });
        await Promise.race([wait.invoked, run.result]);
        controller.abort('the caller gave up');
        const result = await run.result;
        expect(failureOf(result, 'abort').reason).toBe('the caller gave up');
        expect(logTexts(result)).toEqual(['waiting']);
        expect(result.calls).toMatchObject([{ namespace: 'tools', name: 'wait', ok: false }]);
        expect(wait.invocations[0]?.context.signal.aborted).toBe(true);
      },
      caseTimeoutMs,
    );

    it(
      'ends a run whose signal is already aborted as abort, without starting anything',
      async () => {
        const tool = echo();
        const recorder = eventRecorder();
        const result = await runtime().run({
          program: programs.eventsInOrder,
          bindings: { tools: { echo: tool } },
          signal: AbortSignal.abort('already gone'),
          onEvent: recorder.onEvent,
        });
        expect(failureOf(result, 'abort').reason).toBe('already gone');
        expect(result).toMatchObject({ logs: [], calls: [], usage: { hostCalls: 0 } });
        expect(recorder.events).toEqual([]);
        expect(tool.invocations).toEqual([]);
      },
      caseTimeoutMs,
    );

    it(
      'changes nothing when a finished run is cancelled',
      async () => {
        const run = runtime().start({ program: programs.returnValue });
        const result = successOf(await run.result);
        run.cancel('too late');
        expect(await run.result).toEqual(result);
      },
      caseTimeoutMs,
    );

    it(
      'ends runs in flight as abort on dispose, resolves once they have ended, and refuses later runs',
      async () => {
        const disposable = await suite.create(conformanceBudgets);
        try {
          const tick = echo();
          const wait = waitForever();
          const spinning = disposable.start({ program: programs.loopAfterAwait, bindings: { tools: { echo: tick } } });
          const waiting = disposable.start({ program: programs.waitForHost, bindings: { tools: { wait } } });
          await Promise.race([tick.invoked, spinning.result]);
          await Promise.race([wait.invoked, waiting.result]);
          await pause(100);
          const settled: string[] = [];
          // A rejected result (a provider breaking the contract) is recorded, and fails the assertion below.
          spinning.result.then(
            () => settled.push('spinning'),
            () => settled.push('spinning rejected'),
          );
          waiting.result.then(
            () => settled.push('waiting'),
            () => settled.push('waiting rejected'),
          );
          await disposable.dispose();
          expect(settled.sort()).toEqual(['spinning', 'waiting']);
          for (const result of [await spinning.result, await waiting.result]) {
            expect(failureOf(result, 'abort').reason).not.toBe('');
          }
          expect(wait.invocations[0]?.context.signal.aborted).toBe(true);
          const error = thrownBy(() => disposable.start({ program: programs.returnNull }));
          expect(RuntimeDisposedError.isInstance(error)).toBe(true);
          const rejection = await disposable.run({ program: programs.returnNull }).then(
            () => undefined,
            (reason: unknown) => reason,
          );
          expect(RuntimeDisposedError.isInstance(rejection)).toBe(true);
          await disposable.dispose();
        } finally {
          await disposable.dispose();
        }
      },
      caseTimeoutMs,
    );
  });
}
