import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { failureOf, testRuntime } from './__fixtures__/test-runtime.js';

// This file lowers its own process's address-space limit, as `ulimit -v` in the shell that started
// the host would, so it runs alone in its own test process.
describe('an inherited address-space limit stricter than memoryBytes', () => {
  it('fails the runtime at boot, saying which limit is short, instead of failing mid-run', async () => {
    const limit = 2 * 1024 * 1024 * 1024;
    execFileSync('python3', [
      '-c',
      `import resource; resource.prlimit(${process.pid}, resource.RLIMIT_AS, (${limit}, ${limit}))`,
    ]);
    // memoryBytes passes the gate at creation; the limit the zygote really gets does not.
    const runtime = testRuntime({ memoryBytes: 8 * 1024 * 1024 * 1024, valueBytes: 100 * 1024 * 1024 });
    try {
      const failure = failureOf(await runtime.run({ program: 'return 1' }), 'substrate-exit');
      expect(failure.message).toContain(`really got is ${limit} bytes`);
      expect(failure.message).toContain('ulimit -v');
    } finally {
      await runtime.dispose();
    }
  });
});
