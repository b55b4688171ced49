import { getEventListeners } from 'node:events';
import { type Bindings, type CodeRunEvent, normalizeBindings } from '@sluice/code-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { abortReasonText, RunController } from './run-controller.js';
import { defaultRunLimits, type RunLimits } from './run-limits.js';

const created: RunController[] = [];

/**
 * How much earlier than `performance.now()` says a Node timer may fire: timers run by the event
 * loop's clock, cached at the start of each turn, in whole milliseconds.
 */
const timerSlackMs = 2;

afterEach(() => {
  for (const controller of created.splice(0)) controller.cancel('the test ended');
});

function createController(
  options: {
    bindings?: Bindings;
    limits?: Partial<RunLimits>;
    signal?: AbortSignal;
    onEvent?: (event: CodeRunEvent) => void;
  } = {},
): RunController {
  const controller = new RunController({
    bindings: normalizeBindings(options.bindings),
    limits: { ...defaultRunLimits, ...options.limits },
    signal: options.signal,
    onEvent: options.onEvent,
  });
  created.push(controller);
  return controller;
}

describe('RunController', () => {
  it('settles with the first outcome and ignores every later one', async () => {
    const run = createController();
    run.finish({ ok: true, value: 1 });
    run.finish({ ok: true, value: 2 });
    run.finish({ ok: false, failure: { kind: 'exception', message: 'late' } });
    run.cancel('late');
    const result = await run.result;
    expect(result).toMatchObject({ ok: true, value: 1, runId: run.id });
    expect(run.ended).toBe(true);
    expect(run.signal.aborted).toBe(true);
  });

  it('keeps the first outcome when a listener cancels while the run is finishing', async () => {
    const run = createController({
      bindings: { tools: { wait: () => new Promise(() => {}) } },
      onEvent: (event) => {
        if (event.type === 'host-call-end') run.cancel('a listener reacting to the end');
      },
    });
    void run.call('tools', 'wait', null);
    run.finish({ ok: true, value: 'finished' });
    expect(await run.result).toMatchObject({ ok: true, value: 'finished' });
  });

  it('has no value when the program returned nothing', async () => {
    const run = createController();
    run.finish({ ok: true });
    const result = await run.result;
    expect(result.ok).toBe(true);
    expect('value' in result).toBe(false);
  });

  it('ends as invalid-output for a value that is not lossless JSON', async () => {
    for (const value of [Number.NaN, { when: new Date(Number.NaN) }, [1, undefined], { big: 1n }, () => 1]) {
      const run = createController();
      run.finish({ ok: true, value });
      expect(await run.result).toMatchObject({ ok: false, failure: { kind: 'invalid-output' } });
    }
  });

  it('ends as output-limit for a value over the byte budget, and accepts one exactly at it', async () => {
    const over = createController({ limits: { valueBytes: 5 } });
    over.finish({ ok: true, value: 'abcd' });
    expect(await over.result).toMatchObject({ ok: false, failure: { kind: 'output-limit', limitBytes: 5 } });
    const multiByte = createController({ limits: { valueBytes: 5 } });
    multiByte.finish({ ok: true, value: 'éé' });
    expect(await multiByte.result).toMatchObject({ ok: false, failure: { kind: 'output-limit' } });
    const exact = createController({ limits: { valueBytes: 5 } });
    exact.finish({ ok: true, value: 'abc' });
    expect(await exact.result).toMatchObject({ ok: true, value: 'abc', usage: { outputBytes: 5 } });
  });

  it('counts kept log bytes and value bytes as output', async () => {
    const run = createController();
    run.log('log', 'hi');
    run.finish({ ok: true, value: [1] });
    expect((await run.result).usage).toMatchObject({ outputBytes: 3 + 3, hostCalls: 0 });
  });

  it('ends as a wall-time timeout when the program runs past its budget', async () => {
    const run = createController({ limits: { wallTimeMs: 20 } });
    run.log('log', 'still going');
    const result = await run.result;
    expect(result).toMatchObject({
      ok: false,
      failure: { kind: 'timeout', budget: 'wall-time', limitMs: 20 },
      logs: [{ level: 'log', text: 'still going' }],
    });
    expect(run.signal.aborted).toBe(true);
  });

  it('starts the wall clock at begin, not while the run waits for a substrate, and reports the wait', async () => {
    const run = createController({ limits: { wallTimeMs: 20 } });
    expect(run.begun).toBe(false);
    expect(run.elapsedMs).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(run.ended).toBe(false);
    run.begin();
    run.begin();
    expect(run.begun).toBe(true);
    run.finish({ ok: true, value: 1 });
    const { usage } = await run.result;
    expect(usage.queuedMs).toBeGreaterThanOrEqual(60 - timerSlackMs);
    expect(usage.wallMs).toBeLessThan(usage.queuedMs!);
  });

  it('ends a run still waiting at acquireTimeoutMs as unavailable, its program never started', async () => {
    const run = createController({ limits: { wallTimeMs: 5, acquireTimeoutMs: 30 } });
    const result = await run.result;
    expect(result).toMatchObject({
      ok: false,
      failure: { kind: 'unavailable', limitMs: 30 },
      logs: [],
      calls: [],
      usage: { wallMs: 0, hostCalls: 0 },
    });
    expect(result.usage.queuedMs).toBeGreaterThanOrEqual(30 - timerSlackMs);
    expect(run.signal.aborted).toBe(true);
    // A provider that begins too late changes nothing.
    run.begin();
    expect(run.begun).toBe(false);
  });

  it('stops the acquire timer once the program began', async () => {
    const run = createController({ limits: { wallTimeMs: 200, acquireTimeoutMs: 10 } });
    run.begin();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(run.ended).toBe(false);
    run.finish({ ok: true });
    expect((await run.result).ok).toBe(true);
  });

  it('ends at once as abort with the reason of a signal that was already aborted', async () => {
    const events: CodeRunEvent[] = [];
    const run = createController({ signal: AbortSignal.abort('already gone'), onEvent: (event) => events.push(event) });
    expect(run.ended).toBe(true);
    run.log('log', 'dropped');
    expect(await run.call('tools', 'echo', null)).toBeUndefined();
    const result = await run.result;
    expect(result).toMatchObject({
      ok: false,
      failure: { kind: 'abort', reason: 'already gone' },
      logs: [],
      calls: [],
    });
    expect(events).toEqual([]);
  });

  it("ends as abort with the signal's reason when the request's signal aborts, and then lets go of it", async () => {
    const controller = new AbortController();
    const run = createController({ signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort(new Error('the caller gave up'));
    expect(await run.result).toMatchObject({ ok: false, failure: { kind: 'abort', reason: 'the caller gave up' } });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it("stops listening to the request's signal once the run has ended", async () => {
    const controller = new AbortController();
    const run = createController({ signal: controller.signal });
    run.finish({ ok: true, value: 'done' });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort('too late');
    expect(await run.result).toMatchObject({ ok: true, value: 'done' });
  });

  it('cancels with a default reason, idempotently', async () => {
    const run = createController();
    run.cancel();
    run.cancel('second');
    const result = await run.result;
    expect(result).toMatchObject({ ok: false, failure: { kind: 'abort' } });
    expect(result.ok ? '' : (result.failure as { reason: string }).reason).not.toBe('second');
  });

  it('streams logs as they happen and drops them after the end', async () => {
    const events: CodeRunEvent[] = [];
    const run = createController({ onEvent: (event) => events.push(event) });
    run.log('info', 'one');
    expect(events).toEqual([{ type: 'log', runId: run.id, level: 'info', text: 'one' }]);
    run.finish({ ok: true });
    run.log('log', 'after the end');
    expect(events).toHaveLength(1);
    expect((await run.result).logs).toEqual([{ level: 'info', text: 'one' }]);
  });

  it('streams the truncation notice and flags truncated logs', async () => {
    const events: CodeRunEvent[] = [];
    const run = createController({ limits: { logBytes: 8 }, onEvent: (event) => events.push(event) });
    for (let index = 0; index < 10; index += 1) run.log('log', `line ${index}`);
    run.finish({ ok: true });
    const result = await run.result;
    expect(result.logsTruncated).toBe(true);
    expect(result.logs.at(-1)?.text).toMatch(/^\[sluice\]/);
    expect(events.map((event) => (event.type === 'log' ? event.text : ''))).toEqual(
      result.logs.map((entry) => entry.text),
    );
  });

  it('ignores a listener that throws', async () => {
    const run = createController({
      bindings: { tools: { echo: (input) => input } },
      onEvent: () => {
        throw new Error('a broken listener');
      },
    });
    run.log('log', 'one');
    expect(await run.call('tools', 'echo', 'hi')).toEqual({ ok: true, value: 'hi' });
    run.finish({ ok: true, value: 'done' });
    expect(await run.result).toMatchObject({ ok: true, value: 'done', logs: [{ text: 'one' }] });
  });

  it('aborts its signal before the result resolves', async () => {
    const order: string[] = [];
    const run = createController();
    run.signal.addEventListener('abort', () => order.push('signal'));
    const result = run.result.then(() => order.push('result'));
    run.finish({ ok: true });
    await result;
    expect(order).toEqual(['signal', 'result']);
  });

  it('runs beforeFinish hooks once, while the run still takes logs, ignoring one that throws', async () => {
    const run = createController();
    let calls = 0;
    run.beforeFinish(() => {
      throw new Error('a broken drain');
    });
    run.beforeFinish(() => {
      calls += 1;
      run.log('log', 'the last line');
    });
    run.finish({ ok: false, failure: { kind: 'timeout', budget: 'wall-time', limitMs: 1, message: 'stopped' } });
    run.finish({ ok: true });
    run.beforeFinish(() => {
      calls += 1;
    });
    const result = await run.result;
    expect(calls).toBe(1);
    expect(result).toMatchObject({ ok: false, failure: { kind: 'timeout' }, logs: [{ text: 'the last line' }] });
  });

  it('gives every run its own id', () => {
    const ids = new Set(Array.from({ length: 100 }, () => createController().id));
    expect(ids.size).toBe(100);
  });
});

describe('abortReasonText', () => {
  it('reads a string or an Error message, and falls back otherwise', () => {
    expect(abortReasonText('stop')).toBe('stop');
    expect(abortReasonText(new Error('gave up'))).toBe('gave up');
    for (const reason of ['', undefined, 42, new Error(''), { message: 'not an error' }]) {
      expect(abortReasonText(reason)).toBe('the request signal was aborted');
    }
  });
});
