import type { CodeRunEvent } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import {
  type ConformanceSuite,
  deferred,
  echo,
  eventRecorder,
  pause,
  recording,
  successOf,
  useRuntime,
} from './conformance-harness.js';
import { caseTimeoutMs, conformanceBudgets } from './conformance-options.js';

function label(event: CodeRunEvent): string {
  return event.type === 'log' ? `log:${event.text}` : event.type;
}

/** Streaming events, and what happens to host calls still pending when a run ends. */
export function describeEventCases(suite: ConformanceSuite): void {
  describe('events', () => {
    const runtime = useRuntime(suite, conformanceBudgets);
    const { programs } = suite;

    it(
      'delivers logs and host-call events in the order they happened, all before the result',
      async () => {
        const timeline: string[] = [];
        const events: CodeRunEvent[] = [];
        const tool = recording((input) => {
          timeline.push('invoked');
          return { echoed: input };
        });
        const result = successOf(
          await runtime().run({
            program: programs.eventsInOrder,
            bindings: { tools: { echo: tool } },
            onEvent: (event) => {
              events.push(event);
              timeline.push(label(event));
            },
          }),
        );
        timeline.push('result');
        await pause(50);
        expect(timeline).toEqual(['log:before', 'host-call-start', 'invoked', 'host-call-end', 'log:after', 'result']);
        expect(result.value).toEqual({ echoed: { step: 1 } });
        const callId = result.calls[0]?.callId;
        expect(events).toEqual([
          { type: 'log', runId: result.runId, level: 'log', text: 'before' },
          {
            type: 'host-call-start',
            runId: result.runId,
            callId,
            namespace: 'tools',
            name: 'echo',
            input: { step: 1 },
          },
          expect.objectContaining({ type: 'host-call-end', runId: result.runId, callId, ok: true }),
          { type: 'log', runId: result.runId, level: 'log', text: 'after' },
        ]);
        expect(result.logs).toEqual([
          { level: 'log', text: 'before' },
          { level: 'log', text: 'after' },
        ]);
      },
      caseTimeoutMs,
    );

    it(
      'ignores a listener that throws',
      async () => {
        const result = successOf(
          await runtime().run({
            program: programs.eventsInOrder,
            bindings: { tools: { echo: echo() } },
            onEvent: () => {
              throw new Error('a listener that breaks');
            },
          }),
        );
        expect(result.value).toEqual({ echoed: { step: 1 } });
        expect(result.logs.map((entry) => entry.text)).toEqual(['before', 'after']);
      },
      caseTimeoutMs,
    );

    it(
      'drops a host result that arrives after the end, and sends no event after the result',
      async () => {
        const settled = deferred();
        let abortedWhenResolving: boolean | undefined;
        const slow = recording(async (_input, { signal }) => {
          const ended = new Promise<void>((resolve) =>
            signal.addEventListener('abort', () => resolve(), { once: true }),
          );
          // Without a revoked signal this gives up after a while, so the case fails rather than hangs.
          await Promise.race([ended, pause(5_000)]);
          await pause(20);
          abortedWhenResolving = signal.aborted;
          settled.resolve();
          return 'too late';
        });
        const recorder = eventRecorder();
        const result = successOf(
          await runtime().run({
            program: programs.fireAndForget,
            bindings: { tools: { slow, echo: echo() } },
            onEvent: recorder.onEvent,
          }),
        );
        const eventsAtResult = recorder.events.length;
        expect(result.value).toBe('done');
        await settled.promise;
        await pause(100);
        expect(abortedWhenResolving).toBe(true);
        expect(recorder.events.length).toBe(eventsAtResult);
        expect(slow.invocations).toHaveLength(1);
        // Every call that started also ended, the cut-off one included, before the result.
        const starts = recorder.events.flatMap((event) => (event.type === 'host-call-start' ? [event.callId] : []));
        const ends = recorder.events.flatMap((event) => (event.type === 'host-call-end' ? [event.callId] : []));
        expect([...ends].sort()).toEqual([...starts].sort());
        expect(starts).toHaveLength(2);
        expect(result.calls.find((call) => call.name === 'slow')).toMatchObject({ namespace: 'tools', ok: false });
        expect(result.calls.find((call) => call.name === 'echo')).toMatchObject({ namespace: 'tools', ok: true });
      },
      caseTimeoutMs,
    );
  });
}
