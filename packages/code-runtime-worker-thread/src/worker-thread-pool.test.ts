import type { RunController } from '@sluice/code-runtime-kit';
import { describe, expect, it } from 'vitest';
import { probeContainment } from './worker-process-spawn.js';
import { WorkerPool } from './worker-thread-pool.js';
import { resolveWorkerThreadSettings } from './worker-thread-settings.js';

/** The parts of a run controller the pool reads, for a run that never starts. */
function waitingRun(): RunController {
  return { signal: new AbortController().signal, ended: false } as unknown as RunController;
}

describe('worker pool hand-out order', () => {
  it('hands out the worker freed last, so runs back to back stay on one warm process', {
    timeout: 30_000,
  }, async () => {
    // Sequential runs on the least recently freed worker woke a process that had slept through the
    // others' runs: 1.2-1.5x the p50 of a new program each run (bench, A/B).
    const containment = probeContainment();
    const pool = new WorkerPool(resolveWorkerThreadSettings({ poolSize: 3 }), () => containment);
    try {
      const slots = [];
      for (let index = 0; index < 3; index += 1) slots.push(await pool.acquire(waitingRun()));
      for (const slot of slots) pool.release(slot!);
      const handedOut = [];
      for (let index = 0; index < 3; index += 1) {
        const slot = await pool.acquire(waitingRun());
        handedOut.push(slots.indexOf(slot));
        pool.release(slot!);
      }
      expect(handedOut).toEqual([2, 2, 2]);
    } finally {
      await pool.close();
    }
  });
});
