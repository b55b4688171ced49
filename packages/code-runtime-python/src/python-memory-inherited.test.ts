import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { failureOf, testRuntime } from './__fixtures__/test-runtime.js';

// This file lowers its own process's address-space limit, as `ulimit -v` in the shell that started
// the host would, so it runs alone in its own test process.
describe('a memory failure under an inherited address-space limit stricter than memoryBytes', () => {
  it('states the limit that really applied', async () => {
    const inherited = 1536 * 1024 * 1024;
    const memoryBytes = 3 * 1024 * 1024 * 1024;
    execFileSync('python3', [
      '-c',
      `import resource; resource.prlimit(${process.pid}, resource.RLIMIT_AS, (${inherited}, ${inherited}))`,
    ]);
    const runtime = testRuntime({ memoryBytes });
    try {
      for (const program of ['x = bytearray(2 << 30)', 'import mmap\nm = mmap.mmap(-1, 2 << 30)']) {
        const failure = failureOf(await runtime.run({ program }), 'memory');
        expect(failure).toMatchObject({ limitBytes: inherited });
        expect(failure.message).toContain(`at its ${inherited}-byte address-space limit`);
        expect(failure.message).not.toContain(String(memoryBytes));
      }
    } finally {
      await runtime.dispose();
    }
  });
});
