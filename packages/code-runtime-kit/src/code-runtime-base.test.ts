import {
  type Bindings,
  type CodeRunRequest,
  type CodeRuntimeLanguage,
  InvalidRequestError,
  RuntimeDisposedError,
} from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { CodeRuntimeBase } from './code-runtime-base.js';
import type { RunController } from './run-controller.js';
import { defaultRunLimits, type RunLimits } from './run-limits.js';

/** The smallest provider: it records what it is asked to launch and leaves each run to the test. */
class RecordingRuntime extends CodeRuntimeBase {
  readonly id = 'recording';
  readonly language: CodeRuntimeLanguage = 'typescript';
  readonly isolation = 'None: a test double that runs nothing.';
  readonly launched: Array<{ run: RunController; program: string }> = [];
  readonly order: string[] = [];
  launchError: Error | undefined;

  constructor(limits: Partial<RunLimits> = {}) {
    super({ ...defaultRunLimits, ...limits });
  }

  protected launch(run: RunController, program: string): void {
    if (this.launchError !== undefined) throw this.launchError;
    this.launched.push({ run, program });
  }

  protected async shutdown(): Promise<void> {
    this.order.push('shutdown');
  }
}

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('CodeRuntimeBase', () => {
  it('refuses a deterministic run on a runtime that cannot give one, naming what to do', () => {
    const runtime = new RecordingRuntime();
    const error = thrownBy(() => runtime.start({ program: 'return 1;', deterministic: { seed: 1, startTime: 0 } }));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).field).toBe('deterministic');
    expect(String(error)).toMatch(/recording code runtime cannot run a program deterministically; leave out/);
    expect(runtime.launched).toHaveLength(0);
  });

  it('launches a request and hands back the run, which settles when the provider finishes it', async () => {
    const runtime = new RecordingRuntime();
    expect(runtime.specificationVersion).toBe('code-runtime-v1');
    const run = runtime.start({ program: 'return 1;' });
    expect(runtime.launched).toHaveLength(1);
    const [launched] = runtime.launched;
    expect(launched?.program).toBe('return 1;');
    expect(launched?.run.id).toBe(run.id);
    launched?.run.finish({ ok: true, value: 1 });
    expect(await run.result).toMatchObject({ ok: true, value: 1, runId: run.id });
    await runtime.dispose();
  });

  it('publishes just its budgets as limits, frozen, whatever other settings the provider passed', () => {
    const runtime = new RecordingRuntime({ wallTimeMs: 1234, cpuTimeMs: 500, poolSize: 4 } as Partial<RunLimits>);
    expect(runtime.limits).toEqual({ ...defaultRunLimits, wallTimeMs: 1234, cpuTimeMs: 500 });
    expect(Object.isFrozen(runtime.limits)).toBe(true);
  });

  it('throws InvalidRequestError naming the field for a malformed request, and launches nothing', async () => {
    const runtime = new RecordingRuntime();
    const malformed: Array<[unknown, string]> = [
      [null, 'request'],
      ['return 1;', 'request'],
      [{}, 'program'],
      [{ program: 42 }, 'program'],
      [{ program: '', signal: { aborted: 'no' } }, 'signal'],
      [{ program: '', onEvent: 'not a function' }, 'onEvent'],
      [{ program: '', bindings: [] }, 'bindings'],
      [{ program: '', bindings: { 'not-a-name': {} } }, 'bindings.not-a-name'],
      [{ program: '', bindings: { tools: { echo: 'not a function' } } }, 'bindings.tools.echo'],
    ];
    for (const [request, field] of malformed) {
      const error = thrownBy(() => runtime.start(request as CodeRunRequest));
      expect(InvalidRequestError.isInstance(error)).toBe(true);
      expect((error as InvalidRequestError).field).toBe(field);
      const rejection = await runtime.run(request as CodeRunRequest).catch((reason: unknown) => reason);
      expect(InvalidRequestError.isInstance(rejection)).toBe(true);
    }
    expect(runtime.launched).toEqual([]);
    await runtime.dispose();
  });

  it('ends a program over the source budget as an exception without launching it', async () => {
    const runtime = new RecordingRuntime({ sourceBytes: 10 });
    const result = await runtime.run({ program: `${'é'.repeat(5)}x` });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'exception' } });
    expect(runtime.launched).toEqual([]);
    runtime.start({ program: 'é'.repeat(5) });
    expect(runtime.launched).toHaveLength(1);
    await runtime.dispose();
  });

  it('does not launch a run whose signal is already aborted', async () => {
    const runtime = new RecordingRuntime();
    const result = await runtime.run({ program: 'return 1;', signal: AbortSignal.abort('never mind') });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'abort', reason: 'never mind' } });
    expect(runtime.launched).toEqual([]);
    await runtime.dispose();
  });

  it('ends the run as substrate-exit when launch throws, and does not wait for it on dispose', async () => {
    const runtime = new RecordingRuntime();
    runtime.launchError = new Error('no substrate today');
    const result = await runtime.run({ program: 'return 1;' });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'substrate-exit' } });
    expect(result.ok ? '' : result.failure.message).toContain('no substrate today');
    await runtime.dispose();
    expect(runtime.order).toEqual(['shutdown']);
  });

  it('ends runs in flight as abort on dispose, waits for them, then shuts down once', async () => {
    const runtime = new RecordingRuntime();
    const hold = () => new Promise<never>(() => {});
    const bindings: Bindings = { tools: { hold } };
    const first = runtime.start({ program: 'one', bindings });
    const second = runtime.start({ program: 'two' });
    const finished = runtime.start({ program: 'three' });
    runtime.launched[2]?.run.finish({ ok: true, value: 'done' });
    void runtime.launched[0]?.run.call('tools', 'hold', null);
    for (const [name, run] of [
      ['first', first],
      ['second', second],
    ] as const) {
      void run.result.then(() => runtime.order.push(name));
    }
    const disposal = runtime.dispose();
    expect(runtime.dispose()).toBe(disposal);
    await disposal;
    expect(runtime.order).toEqual(['first', 'second', 'shutdown']);
    for (const run of [first, second]) {
      expect(await run.result).toMatchObject({ ok: false, failure: { kind: 'abort', reason: expect.any(String) } });
    }
    expect(await finished.result).toMatchObject({ ok: true, value: 'done' });
    expect(runtime.launched[0]?.run.signal.aborted).toBe(true);
    await runtime.dispose();
    expect(runtime.order.filter((entry) => entry === 'shutdown')).toHaveLength(1);
  });

  it('throws RuntimeDisposedError from start and rejects from run once disposed', async () => {
    const runtime = new RecordingRuntime();
    void runtime.dispose();
    expect(RuntimeDisposedError.isInstance(thrownBy(() => runtime.start({ program: 'return 1;' })))).toBe(true);
    const rejection = await runtime.run({ program: 'return 1;' }).catch((reason: unknown) => reason);
    expect(RuntimeDisposedError.isInstance(rejection)).toBe(true);
    expect(runtime.launched).toEqual([]);
  });
});
