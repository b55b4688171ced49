import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { awaitResult } from './await-result.js';
import type { CodeRunResult } from './code-run-result.js';
import type { CodeRun } from './code-runtime.js';

interface ControlledRun extends CodeRun {
  finish(result: CodeRunResult): void;
  readonly cancelReasons: (string | undefined)[];
}

function controlledRun(id: string): ControlledRun {
  let finish!: (result: CodeRunResult) => void;
  const result = new Promise<CodeRunResult>((resolve) => {
    finish = resolve;
  });
  const cancelReasons: (string | undefined)[] = [];
  return {
    id,
    result,
    cancelReasons,
    finish,
    cancel(reason) {
      cancelReasons.push(reason);
    },
  };
}

function success(runId: string, value: number): CodeRunResult {
  return {
    ok: true,
    runId,
    value,
    logs: [],
    logsTruncated: false,
    calls: [],
    usage: { wallMs: 1, hostCalls: 0, outputBytes: 1 },
  };
}

describe('awaitResult', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('returns the result when the run settles in time', async () => {
    const run = controlledRun('run-1');
    const awaited = awaitResult(run, 1_000);
    run.finish(success('run-1', 42));
    await expect(awaited).resolves.toEqual({ status: 'settled', result: success('run-1', 42) });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes on the rejection of a run whose provider broke the contract, rather than leaving it unhandled', async () => {
    const broken: CodeRun = { id: 'run-9', result: Promise.reject(new Error('provider bug')), cancel() {} };
    await expect(awaitResult(broken, 1_000)).rejects.toThrow('provider bug');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('returns the result of a run that had already settled, even with a zero wait', async () => {
    const run = controlledRun('run-1');
    run.finish(success('run-1', 1));
    const awaited = awaitResult(run, 0);
    await vi.runAllTimersAsync();
    await expect(awaited).resolves.toMatchObject({ status: 'settled' });
  });

  it('returns still-running after the wait, naming the run and the wait', async () => {
    const run = controlledRun('run-7');
    const awaited = awaitResult(run, 250);
    await vi.advanceTimersByTimeAsync(250);
    const outcome = await awaited;
    expect(outcome).toMatchObject({ status: 'still-running', waitedMs: 250 });
    expect(outcome.status === 'still-running' && outcome.message).toContain('run-7');
    expect(outcome.status === 'still-running' && outcome.message).toContain('250 ms');
  });

  it('does not cancel a run it stopped waiting for', async () => {
    const run = controlledRun('run-1');
    const awaited = awaitResult(run, 10);
    await vi.advanceTimersByTimeAsync(10);
    await expect(awaited).resolves.toMatchObject({ status: 'still-running' });
    expect(run.cancelReasons).toEqual([]);

    run.finish(success('run-1', 3));
    await expect(run.result).resolves.toEqual(success('run-1', 3));
    expect(run.cancelReasons).toEqual([]);
  });

  it('leaves a later awaitResult free to see the result', async () => {
    const run = controlledRun('run-1');
    const first = awaitResult(run, 10);
    await vi.advanceTimersByTimeAsync(10);
    await expect(first).resolves.toMatchObject({ status: 'still-running' });

    const second = awaitResult(run, 1_000);
    run.finish(success('run-1', 5));
    await expect(second).resolves.toMatchObject({ status: 'settled', result: { value: 5 } });
  });

  it.each([Number.NaN, -1, Number.POSITIVE_INFINITY, 2_147_483_648, 3_000_000_000])(
    'throws RangeError for a wait of %s ms',
    (ms) => {
      expect(() => awaitResult(controlledRun('run-1'), ms)).toThrow(RangeError);
    },
  );

  it('accepts the longest wait a timer can hold', async () => {
    const run = controlledRun('run-1');
    const awaited = awaitResult(run, 2_147_483_647);
    await vi.advanceTimersByTimeAsync(1_000);
    run.finish(success('run-1', 9));
    await expect(awaited).resolves.toMatchObject({ status: 'settled' });
  });
});
