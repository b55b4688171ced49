import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunController } from '@sluice/code-runtime-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { QuickJsPool } from './quickjs-pool.js';
import { resolveQuickJsSettings } from './quickjs-settings.js';

const directory = mkdtempSync(join(tmpdir(), 'sluice-quickjs-pool-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A worker script that cannot start, as the real one when the engine will not instantiate. */
function failingScript(): { path: string; starts: () => number } {
  const path = join(directory, 'failing-worker.mjs');
  const counter = join(directory, 'starts');
  writeFileSync(counter, '');
  writeFileSync(
    path,
    `import { appendFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
appendFileSync(${JSON.stringify(counter)}, 'x');
parentPort.postMessage({ type: 'failed', reason: 'memory import is smaller than initial' });
process.exit(1);
`,
  );
  return { path, starts: () => readFileSync(counter, 'utf8').length };
}

/** The parts of a run controller the pool reads. */
function waitingRun() {
  const controller = new AbortController();
  const finished: unknown[] = [];
  const run = {
    signal: controller.signal,
    get ended() {
      return finished.length > 0;
    },
    finish(outcome: unknown) {
      finished.push(outcome);
      controller.abort();
    },
  };
  return { run: run as unknown as RunController, finished };
}

describe('QuickJS pool when threads cannot start', () => {
  it('fails the waiting runs with the reason and stops starting threads until the next run', async () => {
    const script = failingScript();
    const pool = new QuickJsPool(resolveQuickJsSettings({ poolSize: 2 }), script.path);
    try {
      const { run, finished } = waitingRun();
      expect(await pool.acquire(run)).toBeUndefined();
      expect(finished).toEqual([
        {
          ok: false,
          failure: {
            kind: 'substrate-exit',
            message: 'The QuickJS worker threads could not start (memory import is smaller than initial); nothing ran.',
          },
        },
      ]);
      // No thread keeps being started in the background (one started before the second failure may
      // still be on its way: let it end first).
      await new Promise((resolve) => setTimeout(resolve, 500));
      const started = script.starts();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(script.starts()).toBe(started);
      expect(started).toBeLessThanOrEqual(4);
      // The next run tries again, and fails alike.
      const second = waitingRun();
      expect(await pool.acquire(second.run)).toBeUndefined();
      expect(second.finished).toHaveLength(1);
    } finally {
      await pool.close();
    }
  }, 30_000);
});

describe('QuickJS pool hand-out order', () => {
  it('hands out the thread freed last, so runs back to back stay on one warm thread', async () => {
    // Sequential runs on the least recently freed thread woke a thread that had slept through the
    // others' runs, while those did their idle work beside the run: 1.2-1.5x the p50 (bench, A/B).
    const pool = new QuickJsPool(resolveQuickJsSettings({ poolSize: 3 }));
    try {
      const slots = [];
      for (let index = 0; index < 3; index += 1) slots.push(await pool.acquire(waitingRun().run));
      for (const slot of slots) pool.release(slot!);
      const handedOut = [];
      for (let index = 0; index < 3; index += 1) {
        const slot = await pool.acquire(waitingRun().run);
        handedOut.push(slots.indexOf(slot));
        pool.release(slot!);
      }
      expect(handedOut).toEqual([2, 2, 2]);
    } finally {
      await pool.close();
    }
  });
});
