import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { echo, failureOf, successValue, testRuntime } from './__fixtures__/test-runtime.js';

const runnerDirectory = fileURLToPath(new URL('../python', import.meta.url));
const fixture = fileURLToPath(new URL('./__fixtures__/zygote_interrupted_connect.py', import.meta.url));

describe('python: a child that fails to start', () => {
  it('is connected by the zygote even when a run ends while the host is slow to accept', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'sluice-connect-'));
    try {
      const output = execFileSync('python3', ['-I', '-S', fixture, runnerDirectory, scratch], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(JSON.parse(output)).toEqual({ reports: [], forked: 1 });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('is forked once more before the run fails', { timeout: 30_000 }, async () => {
    const runtime = testRuntime({}, { spareChildren: 0, refusedForks: 1 });
    try {
      const result = await runtime.run({ program: 'return await tools.echo(1)', bindings: { tools: { echo } } });
      expect(successValue(result)).toEqual({ echoed: 1 });
    } finally {
      await runtime.dispose();
    }
  });

  it('fails the run with the reason when the second fork fails too', { timeout: 30_000 }, async () => {
    const runtime = testRuntime({}, { spareChildren: 0, refusedForks: 2 });
    try {
      const failure = failureOf(await runtime.run({ program: 'return 1' }), 'substrate-exit');
      expect(failure.message).toContain('malformed token');
      // The third fork is a good one: nothing of the failures stays behind.
      expect(successValue(await runtime.run({ program: 'return 1' }))).toBe(1);
    } finally {
      await runtime.dispose();
    }
  });
});
