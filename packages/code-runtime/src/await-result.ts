import type { CodeRunResult } from './code-run-result.js';
import type { CodeRun } from './code-runtime.js';

/** What {@link awaitResult} saw: the result, or that the run was still going when it stopped waiting. */
export type AwaitedResult =
  | { readonly status: 'settled'; readonly result: CodeRunResult }
  | { readonly status: 'still-running'; readonly waitedMs: number; readonly message: string };

/**
 * Waits up to `ms` milliseconds for a run's result. Giving up stops the waiting, not the run: the
 * run goes on under its own budgets, `run.result` still resolves, and `run.cancel()` still stops
 * it. Use it where a caller must answer in time but the run may go on.
 */
export function awaitResult(run: CodeRun, ms: number): Promise<AwaitedResult> {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`awaitResult: ms must be a finite number >= 0, got ${String(ms)}.`);
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      resolve({
        status: 'still-running',
        waitedMs: ms,
        message: `Stopped waiting after ${ms} ms; run ${run.id} is still running. Its result will still arrive, or cancel it.`,
      });
    }, ms);
    void run.result.then((result) => {
      clearTimeout(timer);
      resolve({ status: 'settled', result });
    });
  });
}
