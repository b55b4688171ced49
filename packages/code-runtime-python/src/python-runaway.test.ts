import { afterAll, describe, expect, it } from 'vitest';
import {
  echo,
  eventually,
  failureOf,
  processAlive,
  python,
  successValue,
  testRuntime,
} from './__fixtures__/test-runtime.js';

const runtime = testRuntime({ wallTimeMs: 3_000 });
// A CPU budget far beyond the wall clock, so only the wall clock's kill can stop these programs.
const wallBound = testRuntime({ wallTimeMs: 3_000, cpuTimeMs: 600_000 });
// A spinning program gets a fraction of a core on a loaded machine, so the wall clock is far off here.
const cpuBound = testRuntime({ wallTimeMs: 60_000, cpuTimeMs: 1_000 });
// Without seccomp a program can fork, so what kills its processes at the end is on show.
const forking = testRuntime({ wallTimeMs: 3_000 }, { disabledLayers: ['seccomp'] });

afterAll(() => Promise.all([runtime.dispose(), wallBound.dispose(), cpuBound.dispose(), forking.dispose()]));

/** The pids a program printed, one per line. */
function printedPids(logs: readonly { text: string }[]): number[] {
  return logs.map((entry) => Number(entry.text)).filter((pid) => Number.isInteger(pid) && pid > 0);
}

describe('a program that will not stop', () => {
  it('is stopped by the CPU budget, even ignoring SIGXCPU', async () => {
    const [plain, stubborn] = await Promise.all([
      cpuBound.run({ program: python('while True:', '    pass') }),
      cpuBound.run({
        program: python('import signal', 'signal.signal(signal.SIGXCPU, signal.SIG_IGN)', 'while True:', '    pass'),
      }),
    ]);
    expect(failureOf(plain, 'timeout')).toMatchObject({ budget: 'cpu-time', limitMs: 1_000 });
    expect(failureOf(stubborn, 'timeout')).toMatchObject({ budget: 'cpu-time', limitMs: 1_000 });
  }, 60_000);

  it('is killed at the wall clock while ignoring SIGTERM and sleeping, and leaves no process', {
    timeout: 30_000,
  }, async () => {
    const result = await wallBound.run({
      program: python(
        'import os, signal, time',
        'signal.signal(signal.SIGTERM, signal.SIG_IGN)',
        'print(os.getpid(), flush=True)',
        'time.sleep(3600)',
      ),
    });
    expect(failureOf(result, 'timeout')).toMatchObject({ budget: 'wall-time', limitMs: 3_000 });
    const [pid] = printedPids(result.logs);
    expect(pid).toBeDefined();
    expect(await eventually(() => !processAlive(pid!))).toBe(true);
  });

  it('stops a long C-level call (pbkdf2_hmac) at the wall clock', { timeout: 30_000 }, async () => {
    const result = await wallBound.run({
      program: python(
        'import hashlib, os',
        'print(os.getpid(), flush=True)',
        'hashlib.pbkdf2_hmac("sha256", b"password", b"salt", 10**9)',
      ),
    });
    expect(failureOf(result, 'timeout').kind).toBe('timeout');
    const [pid] = printedPids(result.logs);
    expect(await eventually(() => !processAlive(pid!))).toBe(true);
  });

  it('cannot fork: a fork bomb fails at its first fork', async () => {
    const result = await runtime.run({
      program: python(
        'import os',
        'forks = 0',
        'try:',
        '    while True:',
        '        if os.fork() == 0:',
        '            while True:',
        '                os.fork()',
        '        forks += 1',
        'except OSError as error:',
        '    return {"forks": forks, "error": type(error).__name__}',
      ),
    });
    expect(successValue(result)).toEqual({ forks: 0, error: 'PermissionError' });
  });

  it('leaves no thread running after the run', async () => {
    const result = await runtime.run({
      program: python(
        'import os, threading',
        'threading.Thread(target=lambda: [None for _ in iter(int, 1)]).start()',
        'print(os.getpid(), flush=True)',
        'return "returned"',
      ),
    });
    expect(successValue(result)).toBe('returned');
    const [pid] = printedPids(result.logs);
    expect(await eventually(() => !processAlive(pid!))).toBe(true);
  });

  it('kills processes that detach into sessions of their own when the run ends (without seccomp)', {
    timeout: 30_000,
  }, async () => {
    const result = await forking.run({
      program: python(
        'import os, time',
        'def detach():',
        '    os.setsid()',
        '    if os.fork() > 0:',
        '        os._exit(0)',
        '    print(os.getpid(), flush=True)',
        '    time.sleep(3600)',
        'child = os.fork()',
        'if child == 0:',
        '    detach()',
        'sibling = os.fork()',
        'if sibling == 0:',
        '    os.setsid()',
        '    time.sleep(3600)',
        'print(sibling, flush=True)',
        'os.waitpid(child, 0)',
        'time.sleep(0.2)',
        'return "left them behind"',
      ),
    });
    expect(successValue(result)).toBe('left them behind');
    const pids = printedPids(result.logs);
    expect(pids).toHaveLength(2);
    expect(await eventually(() => pids.every((pid) => !processAlive(pid)))).toBe(true);
  });
});

describe('a program that exhausts what it is given', () => {
  it('fails with memory past the address-space limit and serves the next run', async () => {
    // 2 GiB of zero pages from calloc, never touched: cheap for the machine without the limit, refused with it.
    const program = python('hoard = [bytes(64 << 20) for _ in range(32)]', 'return "allocated"');
    const failure = failureOf(await runtime.run({ program }), 'memory');
    expect(failure).toMatchObject({ limitBytes: 512 * 1024 * 1024 });
    expect(successValue(await runtime.run({ program: 'return 1' }))).toBe(1);
  });

  it('reports deep recursion as a RecursionError at its line', async () => {
    const failure = failureOf(
      await runtime.run({ program: python('def down(n):', '    return down(n + 1)', 'down(0)') }),
      'exception',
    );
    expect(failure).toMatchObject({ name: 'RecursionError', line: 2 });
  });

  it('cuts a flood written straight to fd 1 and 2: past the budget the writes fail', async () => {
    const result = await runtime.run({
      program: python(
        'import os',
        'try:',
        '    for _ in range(2000):',
        '        os.write(1, b"x" * 65536 + b"\\n")',
        '        os.write(2, b"y" * 65536 + b"\\n")',
        'except BrokenPipeError:',
        '    return "cut off"',
        'return "wrote it all"',
      ),
    });
    expect(successValue(result)).toBe('cut off');
    expect(result.logsTruncated).toBe(true);
  });

  it('fails with output-limit for a huge result without sending it', async () => {
    const result = await runtime.run({ program: 'return "x" * (64 * 1024 * 1024)' });
    expect(failureOf(result, 'output-limit')).toMatchObject({ limitBytes: 1024 * 1024 });
  });

  it('reports sys.exit() as an exception and os._exit() as a substrate exit', async () => {
    const exited = failureOf(await runtime.run({ program: python('import sys', 'sys.exit(3)') }), 'exception');
    expect(exited).toMatchObject({ name: 'SystemExit', line: 2 });
    failureOf(await runtime.run({ program: python('import os', 'os._exit(0)') }), 'substrate-exit');
    expect(successValue(await runtime.run({ program: 'return "next"' }))).toBe('next');
  });

  it('refuses a value or an argument nested deeper than 64 levels', async () => {
    failureOf(
      await runtime.run({ program: python('v = []', 'for _ in range(100):', '    v = [v]', 'return v') }),
      'invalid-output',
    );
    const result = await runtime.run({
      program: python(
        'v = []',
        'for _ in range(100):',
        '    v = [v]',
        'try:',
        '    await tools.echo(v)',
        'except HostCallError as error:',
        '    return str(error)',
      ),
      bindings: { tools: { echo } },
    });
    expect(successValue(result)).toContain('deeper than 64');
  });
});
