import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import {
  echo,
  eventually,
  failureOf,
  processAlive,
  python,
  successValue,
  testRuntime,
  zygotePids,
} from './__fixtures__/test-runtime.js';
import { createPythonCodeRuntime } from './index.js';

const runtime = testRuntime({ memoryBytes: 256 * 1024 * 1024, cpuTimeMs: 5_000 });
const scratch = mkdtempSync(join(tmpdir(), 'sluice-python-test-'));
afterAll(async () => {
  await runtime.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

describe('createPythonCodeRuntime', () => {
  // Two interpreter starts (the synchronous probe, then the zygote) and a fork: seconds on a loaded machine.
  it('describes itself, and the isolation this machine applies', { timeout: 60_000 }, async () => {
    const fresh = createPythonCodeRuntime();
    try {
      expect(fresh).toMatchObject({ id: 'python', language: 'python', specificationVersion: 'code-runtime-v1' });
      expect(createPythonCodeRuntime({ cpuTimeMs: 1_500, memoryBytes: 256 * 1024 * 1024 }).limits).toMatchObject({
        wallTimeMs: 30_000,
        cpuTimeMs: 2_000,
        memoryBytes: 256 * 1024 * 1024,
      });
      // Read before any run, the sentence comes from a synchronous probe; after a run, from the zygote.
      const probed = fresh.isolation;
      expect(probed).toMatch(/^Each run is its own CPython 3\.\d+/);
      expect(probed).toMatch(/Landlock (\(ABI \d+\) lets|is not applied)/);
      expect(probed).toMatch(/(A seccomp filter refuses|No seccomp filter is applied)/);
      successValue(await fresh.run({ program: 'return 1' }));
      expect(fresh.isolation).toBe(probed);
    } finally {
      await fresh.dispose();
    }
  });

  it('fails the first run clearly, without throwing, when the interpreter is missing', async () => {
    const missing = createPythonCodeRuntime({ pythonExecutable: join(scratch, 'no-such-python') });
    try {
      const failure = failureOf(await missing.run({ program: 'return 1' }), 'substrate-exit');
      expect(failure.message).toContain('was not found');
      expect(failure.message).toContain('pythonExecutable');
      expect(failure.message).toContain('SLUICE_PYTHON_EXECUTABLE');
      failureOf(await missing.run({ program: 'return 1' }), 'substrate-exit');
      expect(missing.isolation).toMatch(/^No program can run/);
    } finally {
      await missing.dispose();
    }
  });

  it('refuses an interpreter older than CPython 3.10', async () => {
    const fake = join(scratch, 'python-3.8');
    writeFileSync(fake, `#!/bin/sh\necho '["${fake}", [3, 8, 18], "CPython"]'\n`);
    chmodSync(fake, 0o755);
    const old = createPythonCodeRuntime({ pythonExecutable: fake });
    try {
      const failure = failureOf(await old.run({ program: 'return 1' }), 'substrate-exit');
      expect(failure.message).toContain('CPython 3.8.18');
      expect(failure.message).toContain('3.10 or newer');
    } finally {
      await old.dispose();
    }
  });
});

describe('programs', () => {
  it('fan out with asyncio.gather, several host calls in flight at once', async () => {
    let inFlight = 0;
    let most = 0;
    const slow: HostFunction = async (input) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 50));
      inFlight -= 1;
      return input;
    };
    const result = await runtime.run({
      program: python('import asyncio', 'return await asyncio.gather(*(tools.slow(n) for n in range(5)))'),
      bindings: { tools: { slow } },
    });
    expect(successValue(result)).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBeGreaterThan(1);
  });

  it('pass keyword arguments as an object, one positional as itself, several as a list, none as null', async () => {
    const result = await runtime.run({
      program: python(
        'outcome = [await tools.echo(city="Oslo", days=3), await tools.echo([1, 2]), await tools.echo()]',
        'outcome += [await tools.echo(1, 2), await tools.echo(1, city="Oslo")]',
        'return outcome',
      ),
      bindings: { tools: { echo } },
    });
    // A plain host function reads `context.positional` to tell `echo(1, 2)` from `echo([1, 2])`.
    expect(successValue(result)).toEqual([
      { echoed: { city: 'Oslo', days: 3 } },
      { echoed: [1, 2] },
      { echoed: null },
      { echoed: [1, 2] },
      { echoed: { city: 'Oslo' } },
    ]);
  });

  it('catch a failed host call as HostCallError, an Exception carrying the reason', async () => {
    const fail: HostFunction = () => {
      throw new Error('quota exceeded');
    };
    const result = await runtime.run({
      program: python(
        'try:',
        '    await tools.fail()',
        'except HostCallError as error:',
        '    return [issubclass(HostCallError, Exception), str(error)]',
      ),
      bindings: { tools: { fail } },
    });
    expect(successValue(result)).toEqual([true, 'quota exceeded']);
  });

  it('fail as an exception, running nothing, when the source cannot even be parsed', async () => {
    for (const program of ['value = 1\u0000', 'return "\ud800"']) {
      expect(failureOf(await runtime.run({ program }), 'exception')).toMatchObject({
        name: expect.stringMatching(/Error$/),
      });
    }
  });

  it('show only their own frames and lines in a traceback', async () => {
    const failure = failureOf(
      await runtime.run({
        program: python('import json', '', 'def parse(text):', '    return json.loads(text)', '', 'parse("{")'),
      }),
      'exception',
    );
    expect(failure).toMatchObject({ name: 'JSONDecodeError', line: 4 });
    if (failure.kind !== 'exception') throw new Error('unreachable');
    expect(failure.stack).toContain('File "<program>", line 6, in <module>');
    expect(failure.stack).toContain('File "<program>", line 4, in parse');
    expect(failure.stack).not.toMatch(/sluice_|json\/decoder|asyncio/);
  });

  it('report what they used', async () => {
    const result = await runtime.run({ program: 'return sum(range(100000))' });
    expect(successValue(result)).toBe(4999950000);
    expect(result.usage.cpuMs).toBeGreaterThan(0);
    expect(result.usage.peakMemoryBytes).toBeGreaterThan(1024 * 1024);
  });
});

describe('containment', () => {
  it('gives each run a fresh private working directory, removed afterwards', async () => {
    const program = python(
      'import os, stat',
      'open("note.txt", "w").write("mine")',
      'return {"cwd": os.getcwd(), "mode": stat.S_IMODE(os.stat(".").st_mode), "entries": os.listdir(".")}',
    );
    const first = successValue(await runtime.run({ program })) as { cwd: string; mode: number; entries: string[] };
    const second = successValue(await runtime.run({ program })) as { cwd: string };
    expect(first).toMatchObject({ mode: 0o700, entries: ['note.txt'] });
    expect(second.cwd).not.toBe(first.cwd);
    expect(await eventually(() => !existsSync(first.cwd))).toBe(true);
  });

  it('closes every inherited file descriptor above 3', async () => {
    const result = await runtime.run({
      program: python(
        'import asyncio, os',
        'await asyncio.sleep(0)', // top-level await: the program runs as a task in its event loop
        'loop = asyncio.get_running_loop()',
        'own = {loop._ssock.fileno(), loop._csock.fileno(), getattr(loop._selector, "fileno", lambda: -1)()}',
        'open_fds = []',
        'for fd in range(1024):',
        '    try:',
        '        os.fstat(fd)',
        '        open_fds.append(fd)',
        '    except OSError:',
        '        pass',
        'return {"standard": [fd for fd in open_fds if fd <= 3], "other": [fd for fd in open_fds if fd > 3 and fd not in own]}',
      ),
    });
    expect(successValue(result)).toEqual({ standard: [0, 1, 2, 3], other: [] });
  });

  it('sets the resource limits', async () => {
    const result = await runtime.run({
      program: python(
        'import resource',
        'names = ["RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE"]',
        'return {name: list(resource.getrlimit(getattr(resource, name))) for name in names}',
      ),
    });
    const memory = 256 * 1024 * 1024;
    expect(successValue(result)).toEqual({
      RLIMIT_AS: [memory, memory],
      RLIMIT_CPU: [5, 6],
      RLIMIT_FSIZE: [64 * 1024 * 1024, 64 * 1024 * 1024],
      RLIMIT_NOFILE: [64, 64],
      RLIMIT_CORE: [0, 0],
    });
  });

  it('runs in its own session and process group, without the capability to change user', async () => {
    const result = await runtime.run({
      program: python(
        'import os',
        'try:',
        '    os.setuid(12345)',
        '    setuid = "allowed"',
        'except PermissionError:',
        '    setuid = "refused"',
        'return [os.getsid(0) == os.getpid(), os.getpgid(0) == os.getpid(), setuid]',
      ),
    });
    expect(successValue(result)).toEqual([true, true, 'refused']);
  });
});

describe('the zygote', () => {
  it('is replaced after it crashes', async () => {
    const own = testRuntime();
    try {
      successValue(await own.run({ program: 'return 1' }));
      const [first] = zygotePids();
      expect(first).toBeDefined();
      process.kill(first!, 'SIGKILL');
      expect(successValue(await own.run({ program: 'return 2' }))).toBe(2);
      expect(zygotePids()).not.toContain(first);
    } finally {
      await own.dispose();
    }
  });

  it('is replaced when it stops answering', { timeout: 30_000 }, async () => {
    const own = testRuntime({}, { zygoteResponseMs: 1_000, spareChildren: 0 });
    try {
      successValue(await own.run({ program: 'return 1' }));
      const [stuck] = zygotePids();
      process.kill(stuck!, 'SIGSTOP');
      expect(successValue(await own.run({ program: 'return 2' }))).toBe(2);
      expect(await eventually(() => !zygotePids().includes(stuck!))).toBe(true);
    } finally {
      await own.dispose();
    }
  });

  it('is gone, with the private directory, once the runtime is disposed', async () => {
    const own = testRuntime();
    const cwd = successValue(await own.run({ program: 'import os\nreturn os.getcwd()' })) as string;
    expect(zygotePids()).toHaveLength(1);
    await own.dispose();
    expect(zygotePids()).toEqual([]);
    expect(existsSync(join(cwd, '..'))).toBe(false);
  });
});

describe('a host that exits without disposing', () => {
  it('leaves no zygote, child or private directory behind', { timeout: 30_000 }, async () => {
    const host = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, '__fixtures__', 'host-exits.ts')],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    const { directory, zygotes } = JSON.parse(host.stdout.trim().split('\n').at(-1) ?? '{}') as {
      directory: string;
      zygotes: number[];
    };
    expect(directory).toMatch(/sluice-python-/);
    expect(zygotes).toHaveLength(1);
    expect(await eventually(() => !existsSync(directory) && zygotes.every((pid) => !processAlive(pid)))).toBe(true);
  });
});

describe('requireContainment', () => {
  it('refuses to run when a layer is missing, and the isolation sentence says which', async () => {
    const strict = testRuntime({ requireContainment: true }, { disabledLayers: ['seccomp'] });
    try {
      const failure = failureOf(await strict.run({ program: 'return 1' }), 'substrate-exit');
      expect(failure.message).toContain('requireContainment');
      expect(failure.message).toContain('seccomp');
      expect(strict.isolation).toMatch(/^No program can run/);
    } finally {
      await strict.dispose();
    }
    const lax = testRuntime({}, { disabledLayers: ['seccomp'] });
    try {
      successValue(await lax.run({ program: 'return 1' }));
      expect(lax.isolation).toContain('No seccomp filter is applied (disabled by the runtime)');
    } finally {
      await lax.dispose();
    }
  });

  it('runs when every layer is there', async () => {
    const strict = testRuntime({ requireContainment: true });
    try {
      successValue(await strict.run({ program: 'return 1' }));
      expect(statSync(tmpdir()).isDirectory()).toBe(true);
    } finally {
      await strict.dispose();
    }
  });
});
