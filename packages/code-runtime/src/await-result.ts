import type { CodeRunResult } from './code-run-result.js';
import type { CodeRun } from './code-runtime.js';

/** What {@link awaitResult} saw: the result, or that the run was still going when it stopped waiting. */
export type AwaitedResult =
  | { readonly status: 'settled'; readonly result: CodeRunResult }
  | { readonly status: 'still-running'; readonly waitedMs: number; readonly message: string };

const maxWaitMs = 2_147_483_647;

/**
 * Waits up to `ms` milliseconds for a run's result. Giving up stops the waiting, not the run: the
 * run goes on under its own budgets, `run.result` still resolves, and `run.cancel()` still stops
 * it. Use it where a caller must answer in time but the run may go on. Throws `RangeError` unless
 * `ms` is from 0 to 2,147,483,647 (the longest delay a timer can hold, about 24.8 days).
 */
export function awaitResult(run: CodeRun, ms: number): Promise<AwaitedResult> {
  // Timers clamp a delay past 2^31 - 1 ms to 1 ms, which would give up almost at once.
  if (!Number.isFinite(ms) || ms < 0 || ms > maxWaitMs) {
    throw new RangeError(`awaitResult: ms must be a number from 0 to ${maxWaitMs}, got ${String(ms)}.`);
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      resolve({
        status: 'still-running',
        waitedMs: ms,
        message: `Stopped waiting after ${ms} ms; run ${run.id} is still running. Its result will still arrive, or cancel it.`,
      });
    }, ms);
    // `result` never rejects under the contract; a provider that breaks that rule is reported, not hidden.
    run.result.then(
      (result) => {
        clearTimeout(timer);
        resolve({ status: 'settled', result });
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
