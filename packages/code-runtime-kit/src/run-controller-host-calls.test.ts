import {
  type Bindings,
  type CodeRunEvent,
  type HostCallContext,
  type JsonValue,
  normalizeBindings,
} from '@sluice/code-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { RunController } from './run-controller.js';
import { defaultRunLimits, type RunLimits } from './run-limits.js';

const created: RunController[] = [];

afterEach(() => {
  for (const controller of created.splice(0)) controller.cancel('the test ended');
});

function createController(
  options: { bindings?: Bindings; limits?: Partial<RunLimits>; onEvent?: (event: CodeRunEvent) => void } = {},
): RunController {
  const controller = new RunController({
    bindings: normalizeBindings(options.bindings),
    limits: { ...defaultRunLimits, ...options.limits },
    onEvent: options.onEvent,
  });
  created.push(controller);
  return controller;
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((settle, fail) => {
    resolve = settle;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** Lets queued promise callbacks and timers run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

describe('RunController host calls', () => {
  it('invokes the granted function with the input and the call context, and replies with its result', async () => {
    const contexts: HostCallContext[] = [];
    const events: CodeRunEvent[] = [];
    const run = createController({
      bindings: {
        tools: {
          echo: (input, context) => {
            contexts.push(context);
            return { echoed: input };
          },
        },
      },
      onEvent: (event) => events.push(event),
    });
    expect(await run.call('tools', 'echo', { a: [1, 'two'] })).toEqual({
      ok: true,
      value: { echoed: { a: [1, 'two'] } },
    });
    expect(await run.call('tools', 'echo', null)).toEqual({ ok: true, value: { echoed: null } });
    run.finish({ ok: true });
    const result = await run.result;
    expect(result.calls).toMatchObject([
      { namespace: 'tools', name: 'echo', ok: true },
      { namespace: 'tools', name: 'echo', ok: true },
    ]);
    expect(result.usage.hostCalls).toBe(2);
    expect(contexts.map((context) => context.callId)).toEqual(result.calls.map((call) => call.callId));
    expect(new Set(contexts.map((context) => context.callId)).size).toBe(2);
    for (const context of contexts) {
      expect(context.runId).toBe(run.id);
      expect(context.signal.aborted).toBe(true);
    }
    const [start, end] = events;
    expect(start).toEqual({
      type: 'host-call-start',
      runId: run.id,
      callId: contexts[0]?.callId,
      namespace: 'tools',
      name: 'echo',
      input: { a: [1, 'two'] },
    });
    expect(end).toMatchObject({ type: 'host-call-end', callId: contexts[0]?.callId, ok: true });
  });

  it('replies null for a host function that returns undefined', async () => {
    const run = createController({ bindings: { tools: { nothing: () => undefined as unknown as JsonValue } } });
    expect(await run.call('tools', 'nothing', null)).toEqual({ ok: true, value: null });
  });

  it('refuses a name that was not granted, looking nothing up on a prototype, and invokes nothing', async () => {
    const invoked: string[] = [];
    const run = createController({
      bindings: {
        tools: {
          echo: () => {
            invoked.push('echo');
            return null;
          },
        },
      },
    });
    const forged: Array<[string, string]> = [
      ['tools', 'secret'],
      ['admin', 'echo'],
      ['tools', 'constructor'],
      ['tools', '__proto__'],
      ['__proto__', 'echo'],
      ['tools', 'hasOwnProperty'],
      ['tools.echo', ''],
      ['', 'tools.echo'],
    ];
    for (const [namespace, name] of forged) {
      const reply = await run.call(namespace, name, {});
      expect(reply).toMatchObject({ ok: false });
      // The refusal names what is available, so the model can correct itself.
      expect(reply?.ok === false && reply.error).toContain('tools.echo');
    }
    expect(invoked).toEqual([]);
    run.finish({ ok: true });
    const result = await run.result;
    expect(result.calls).toHaveLength(forged.length);
    expect(result.calls.every((call) => !call.ok && typeof call.error === 'string')).toBe(true);
    expect(result.usage.hostCalls).toBe(forged.length);
  });

  it('refuses calls past the host-call budget, counting refused calls', async () => {
    let count = 0;
    const run = createController({ bindings: { tools: { count: () => ++count } }, limits: { hostCalls: 2 } });
    expect(await run.call('tools', 'count', null)).toEqual({ ok: true, value: 1 });
    expect(await run.call('tools', 'missing', null)).toMatchObject({ ok: false });
    expect(await run.call('tools', 'count', null)).toMatchObject({ ok: false });
    expect(count).toBe(1);
    run.finish({ ok: true });
    expect((await run.result).usage.hostCalls).toBe(3);
  });

  it('refuses an argument that is not JSON or is over the byte cap without invoking the function', async () => {
    const inputs: JsonValue[] = [];
    const events: CodeRunEvent[] = [];
    const run = createController({
      bindings: {
        tools: {
          take: (input) => {
            inputs.push(input);
            return 'taken';
          },
        },
      },
      limits: { hostCallBytes: 10 },
      onEvent: (event) => events.push(event),
    });
    for (const input of [Number.NaN, { when: new Date(0) }, [undefined], 'x'.repeat(20), 'ééééé']) {
      expect(await run.call('tools', 'take', input)).toMatchObject({ ok: false });
    }
    expect(inputs).toEqual([]);
    // A refused argument that is not JSON is shown as null, never passed on as it came.
    expect(events[0]).toMatchObject({ type: 'host-call-start', input: null });
    expect(await run.call('tools', 'take', '12345678')).toEqual({ ok: true, value: 'taken' });
    expect(inputs).toEqual(['12345678']);
  });

  it('replies with an error for a result that is not JSON or over the byte cap', async () => {
    const results: unknown[] = [Number.NaN, new Map([[{}, 1]]), { nested: [1, () => 2] }, 'x'.repeat(20)];
    const run = createController({
      bindings: { tools: { next: () => results.shift() as JsonValue } },
      limits: { hostCallBytes: 10 },
    });
    for (let index = 0; index < 4; index += 1) {
      const reply = await run.call('tools', 'next', null);
      expect(reply).toMatchObject({ ok: false, error: expect.stringContaining('tools.next') });
    }
    run.finish({ ok: true });
    expect((await run.result).calls.every((call) => !call.ok)).toBe(true);
  });

  it('replies with the message of whatever the host function threw or rejected with', async () => {
    const failures: Array<() => never> = [
      () => {
        throw new Error('thrown');
      },
      () => {
        throw new TypeError('');
      },
      () => {
        throw 'a plain string';
      },
      () => {
        throw { code: 7 };
      },
    ];
    const run = createController({
      bindings: {
        tools: {
          rejects: async () => Promise.reject(new Error('rejected')),
          throws: () => failures.shift()!(),
        },
      },
    });
    expect(await run.call('tools', 'rejects', null)).toEqual({ ok: false, error: 'rejected' });
    const errors: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      const reply = await run.call('tools', 'throws', null);
      errors.push(reply?.ok === false ? reply.error : 'not an error');
    }
    expect(errors).toEqual(['thrown', 'TypeError', 'a plain string', '{"code":7}']);
  });

  it('keeps at most the concurrency limit in flight and dispatches queued calls in order', async () => {
    const pending = new Map<number, (value: JsonValue) => void>();
    const dispatched: number[] = [];
    let inFlight = 0;
    let peak = 0;
    const run = createController({
      limits: { concurrentHostCalls: 2 },
      bindings: {
        tools: {
          work: (input) => {
            dispatched.push(input as number);
            peak = Math.max(peak, ++inFlight);
            return new Promise<JsonValue>((resolve) => pending.set(input as number, resolve)).finally(() => inFlight--);
          },
        },
      },
    });
    const replies = [0, 1, 2, 3, 4].map((index) => run.call('tools', 'work', index));
    await settle();
    expect(dispatched).toEqual([0, 1]);
    pending.get(1)?.(1);
    await settle();
    expect(dispatched).toEqual([0, 1, 2]);
    for (const index of [0, 2, 3, 4]) {
      pending.get(index)?.(index);
      await settle();
    }
    expect(await Promise.all(replies)).toEqual([0, 1, 2, 3, 4].map((value) => ({ ok: true, value })));
    expect(dispatched).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
  });

  it('records a call still pending at the end as not ok, and drops its late result', async () => {
    const late = deferred<JsonValue>();
    const events: CodeRunEvent[] = [];
    const run = createController({
      bindings: { tools: { slow: () => late.promise } },
      onEvent: (event) => events.push(event),
    });
    const reply = run.call('tools', 'slow', null);
    await settle();
    run.finish({ ok: true, value: 'done' });
    const result = await run.result;
    expect(result.calls).toMatchObject([{ name: 'slow', ok: false, error: expect.any(String) }]);
    expect(events.map((event) => event.type)).toEqual(['host-call-start', 'host-call-end']);
    late.resolve('too late');
    expect(await reply).toBeUndefined();
    await settle();
    expect(events).toHaveLength(2);
  });

  it('drops a late rejection the same way', async () => {
    const late = deferred<JsonValue>();
    const run = createController({ bindings: { tools: { slow: () => late.promise } } });
    const reply = run.call('tools', 'slow', null);
    await settle();
    run.cancel('stopped');
    late.reject(new Error('too late'));
    expect(await reply).toBeUndefined();
  });

  it('resolves a call with undefined at the end even when its host function never settles', async () => {
    const run = createController({ bindings: { tools: { hang: () => new Promise(() => {}) } } });
    const reply = run.call('tools', 'hang', null);
    await settle();
    run.finish({ ok: true });
    expect(await reply).toBeUndefined();
  });

  it('never dispatches a queued call once the run has ended', async () => {
    const dispatched: string[] = [];
    const run = createController({
      limits: { concurrentHostCalls: 1 },
      bindings: {
        tools: {
          hold: (input) => {
            dispatched.push(input as string);
            return new Promise(() => {});
          },
        },
      },
    });
    const first = run.call('tools', 'hold', 'first');
    const second = run.call('tools', 'hold', 'second');
    await settle();
    run.cancel('stopped');
    expect(await second).toBeUndefined();
    expect(await first).toBeUndefined();
    await settle();
    expect(dispatched).toEqual(['first']);
    expect((await run.result).calls).toMatchObject([{ ok: false }, { ok: false }]);
  });

  it('ignores calls after the end without recording them', async () => {
    const dispatched: string[] = [];
    const events: CodeRunEvent[] = [];
    const run = createController({
      bindings: {
        tools: {
          echo: () => {
            dispatched.push('echo');
            return null;
          },
        },
      },
      onEvent: (event) => events.push(event),
    });
    run.finish({ ok: true });
    expect(await run.call('tools', 'echo', null)).toBeUndefined();
    expect(dispatched).toEqual([]);
    expect(events).toEqual([]);
    expect((await run.result).calls).toEqual([]);
  });

  it("never invokes the host function when a listener cancels the run on the call's start event", async () => {
    const dispatched: string[] = [];
    const events: CodeRunEvent[] = [];
    const run = createController({
      bindings: {
        tools: {
          echo: () => {
            dispatched.push('echo');
            return null;
          },
        },
      },
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'host-call-start') run.cancel('stopped by the listener');
      },
    });
    expect(await run.call('tools', 'echo', null)).toBeUndefined();
    expect(await run.call('tools', 'missing', null)).toBeUndefined();
    expect(dispatched).toEqual([]);
    expect(events.map((event) => event.type)).toEqual(['host-call-start', 'host-call-end']);
    const result = await run.result;
    expect(result.ok).toBe(false);
    expect(result.calls).toMatchObject([{ callId: 'c1', ok: false }]);
  });
});
