import { type ChildProcess, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { echo, testRuntime } from './__fixtures__/test-runtime.js';

// Bursts of runs beside CPU-bound processes: children exit while the zygote connects the next ones and
// the host is slow to accept, which is when an interrupted connect() used to fail a run (issue 13).
const bursts = 20;
const burstSize = 256;

describe('python: bursts of runs beside CPU-bound processes', () => {
  it(`start every run: 0 failures in ${bursts} bursts of ${burstSize}`, { timeout: 600_000 }, async () => {
    const hogs: ChildProcess[] = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    // Every run of a burst at once (poolSize), so the zygote connects hundreds of children together.
    const runtime = testRuntime({ wallTimeMs: 120_000, poolSize: burstSize });
    const failures = new Map<string, number>();
    try {
      for (let burst = 0; burst < bursts; burst += 1) {
        const results = await Promise.all(
          Array.from({ length: burstSize }, () =>
            runtime.run({ program: 'r = await tools.echo(1)\nprint(r)\nreturn r', bindings: { tools: { echo } } }),
          ),
        );
        for (const result of results) {
          if (!result.ok) failures.set(result.failure.message, (failures.get(result.failure.message) ?? 0) + 1);
        }
      }
    } finally {
      for (const hog of hogs) hog.kill('SIGKILL');
      await runtime.dispose();
    }
    expect(Object.fromEntries(failures)).toEqual({});
  });
});
