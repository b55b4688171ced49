import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { successValue, testRuntime } from './__fixtures__/test-runtime.js';

const mebibyte = 1024 * 1024;
const interpreter = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
const scratch = mkdtempSync(join(tmpdir(), 'sluice-wrapper-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An operator's wrapper: `ulimit -v` (KiB), then the interpreter; it records the zygote's environment. */
function wrapper(limitKib: number): { path: string; environment: string } {
  const path = join(scratch, `python-${limitKib}`);
  const environment = join(scratch, `environment-${limitKib}`);
  writeFileSync(
    path,
    `#!/bin/sh\nulimit -v ${limitKib}\ncase "$*" in *sluice_zygote.py*) env > '${environment}' ;; esac\nexec '${interpreter}' "$@"\n`,
  );
  chmodSync(path, 0o755);
  return { path, environment };
}

describe('python: a pythonExecutable that is a wrapper', () => {
  it('starts the zygote through it, so its ulimit -v holds for every child', { timeout: 60_000 }, async () => {
    const limitKib = 683 * 1024;
    const { path } = wrapper(limitKib);
    const runtime = testRuntime({ pythonExecutable: path, memoryBytes: 2048 * mebibyte });
    try {
      const program = 'import resource\nreturn list(resource.getrlimit(resource.RLIMIT_AS))';
      for (let index = 0; index < 3; index += 1) {
        const [soft, hard] = successValue(await runtime.run({ program })) as [number, number];
        expect(soft).toBeLessThanOrEqual(limitKib * 1024);
        expect(hard).toBeLessThanOrEqual(limitKib * 1024);
      }
      expect(runtime.isolation).toContain('address space 683 MiB');
    } finally {
      await runtime.dispose();
    }
  });

  it('says so in isolation when read before the first run', { timeout: 60_000 }, async () => {
    const { path } = wrapper(600 * 1024);
    const runtime = testRuntime({ pythonExecutable: path, memoryBytes: 2048 * mebibyte });
    try {
      expect(runtime.isolation).toContain('address space 600 MiB');
    } finally {
      await runtime.dispose();
    }
  });

  it('gives the wrapper the host’s PATH and nothing else of the host’s environment', { timeout: 60_000 }, async () => {
    const { path, environment } = wrapper(700 * 1024);
    process.env.SLUICE_WRAPPER_TEST_SECRET = 'not for the zygote';
    const runtime = testRuntime({ pythonExecutable: path });
    try {
      successValue(await runtime.run({ program: 'return 1' }));
      const names = readFileSync(environment, 'utf8')
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => line.slice(0, line.indexOf('=')));
      expect(names).toContain('PATH');
      expect(names).toContain('PYTHONHASHSEED');
      // What the shell itself sets (PWD, and SHLVL or _ in some shells) is not the host's.
      expect(names.filter((name) => !['PATH', 'PYTHONHASHSEED', 'PWD', 'SHLVL', '_', 'OLDPWD'].includes(name))).toEqual(
        [],
      );
    } finally {
      delete process.env.SLUICE_WRAPPER_TEST_SECRET;
      await runtime.dispose();
    }
  });

  it('runs the interpreter directly when the command is the interpreter itself', { timeout: 60_000 }, async () => {
    const runtime = testRuntime({ pythonExecutable: interpreter });
    try {
      const program = 'import os\nreturn sorted(os.environ)';
      expect(successValue(await runtime.run({ program }))).toEqual(['HOME', 'LANG', 'TMPDIR']);
    } finally {
      await runtime.dispose();
    }
  });
});
