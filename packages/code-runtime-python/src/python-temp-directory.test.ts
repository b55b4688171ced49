import { describe, expect, it } from 'vitest';
import { failureOf, successValue, testRuntime } from './__fixtures__/test-runtime.js';

const missing = '/nonexistent-sluice-tmp/nowhere';

/** Runs `body` with TMPDIR pointing at a directory that does not exist, and restores it after. */
async function withMissingTemp<T>(body: () => Promise<T>): Promise<T> {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = missing;
  try {
    return await body();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

describe('PythonCodeRuntime with a missing temp directory', () => {
  it('says in isolation that nothing could be applied, instead of throwing', async () => {
    const runtime = testRuntime();
    try {
      const isolation = await withMissingTemp(async () => runtime.isolation);
      expect(isolation).toMatch(
        /^No program can run: the private working directory could not be created in \/nonexistent-sluice-tmp\/nowhere \(.*ENOENT.*\), so no containment layer could be applied$/,
      );
    } finally {
      await runtime.dispose();
    }
  });

  it('ends a run as substrate-exit naming the directory, and the host keeps serving', async () => {
    const runtime = testRuntime();
    try {
      const result = await withMissingTemp(() => runtime.run({ program: 'return 1' }));
      const failure = failureOf(result, 'substrate-exit');
      expect(failure.message).toMatch(/the private working directory could not be created in \/nonexistent-sluice-tmp/);
      expect(runtime.isolation).toMatch(/^No program can run: .*private working directory could not be created/);
    } finally {
      await runtime.dispose();
    }
    const fresh = testRuntime();
    try {
      expect(successValue(await fresh.run({ program: 'return 2' }))).toBe(2);
    } finally {
      await fresh.dispose();
    }
  }, 60_000);
});
