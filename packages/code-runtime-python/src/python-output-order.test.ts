import type { CodeRunResult } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { failureOf, python, successValue, testRuntime } from './__fixtures__/test-runtime.js';

const runtime = testRuntime();
// A CPU budget far beyond the wall clock, so only the wall clock's kill stops the spinning program; the wall
// clock is long enough for a child on a loaded machine to have started and printed.
const wallBound = testRuntime({ wallTimeMs: 6_000, cpuTimeMs: 600_000 });

afterAll(() => Promise.all([runtime.dispose(), wallBound.dispose()]));

function lines(result: CodeRunResult): string[] {
  return result.logs.map((entry) => `${entry.level}:${entry.text}`);
}

describe('output of a Python program', () => {
  it('keeps the unfinished last line when the wall clock kills the run', { timeout: 30_000 }, async () => {
    const result = await wallBound.run({
      program: python('print("step 1")', 'print("step 2 starting...", end="", flush=True)', 'while True:', '    pass'),
    });
    expect(failureOf(result, 'timeout')).toMatchObject({ budget: 'wall-time' });
    expect(lines(result)).toEqual(['log:step 1', 'log:step 2 starting...']);
  });

  it('keeps the unfinished last line when the run is cancelled', async () => {
    const controller = new AbortController();
    const result = await runtime.run({
      // Frames arrive in the order sent: once "waiting" is logged, the unfinished line has arrived too.
      program: python(
        'import sys, time',
        'print("step 2 starting...", end="", flush=True)',
        'print("waiting", file=sys.stderr)',
        'time.sleep(3600)',
      ),
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'log' && event.text === 'waiting') controller.abort('enough');
      },
    });
    expect(failureOf(result, 'abort').message).toContain('enough');
    expect(lines(result)).toEqual(['error:waiting', 'log:step 2 starting...']);
  });

  it('keeps print, sys.stderr and writes to fds 1 and 2 in the order written', async () => {
    const program = python(
      'import os, sys',
      'for round in range(20):',
      '    print("print", round)',
      '    os.write(1, f"fd1 {round}\\n".encode())',
      '    sys.stderr.write(f"stderr {round}\\n")',
      '    os.write(2, f"fd2 {round}\\n".encode())',
      '    sys.__stdout__.write(f"dunder {round}\\n")',
      '    os.write(sys.stdout.fileno(), f"fileno {round}\\n".encode())',
      'return os.write(1, b"")',
    );
    const expected: string[] = [];
    for (let round = 0; round < 20; round += 1) {
      expected.push(
        `log:print ${round}`,
        `log:fd1 ${round}`,
        `error:stderr ${round}`,
        `error:fd2 ${round}`,
        `log:dunder ${round}`,
        `log:fileno ${round}`,
      );
    }
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const result = await runtime.run({ program });
      expect(successValue(result)).toBe(0);
      expect(lines(result)).toEqual(expected);
    }
  }, 60_000);

  it('writes with os.write to a file put on fd 1, once the program has put one there', async () => {
    const result = await runtime.run({
      program: python(
        'import os',
        'saved = os.dup(1)',
        'target = os.open("out.txt", os.O_WRONLY | os.O_CREAT)',
        'os.dup2(target, 1)',
        'os.write(1, b"into the file\\n")',
        'os.dup2(saved, 1)',
        'os.write(1, b"back in the logs\\n")',
        'return open("out.txt").read()',
      ),
    });
    expect(successValue(result)).toBe('into the file\n');
    expect(lines(result)).toEqual(['log:back in the logs']);
  });

  it('is not corrupted by a 2 ms interval timer whose handler prints, 30 runs in a row', async () => {
    const program = python(
      'import signal',
      'ticks = 0',
      'def tick(number, frame):',
      '    global ticks',
      '    ticks += 1',
      '    print("tick")',
      'signal.signal(signal.SIGALRM, tick)',
      'signal.setitimer(signal.ITIMER_REAL, 0.002, 0.002)',
      'for index in range(300):',
      '    print("line", index)',
      'return "done"',
    );
    const failures: string[] = [];
    for (let attempt = 0; attempt < 30; attempt += 1) {
      const result = await runtime.run({ program });
      if (!result.ok) failures.push(`${result.failure.kind}: ${result.failure.message}`);
      else {
        expect(result.value).toBe('done');
        // As in plain CPython, the handler may run between the pieces `print` writes ("line tick", then " 7"):
        // without the ticks, the words are the program's, in its order.
        const words = result.logs.flatMap((entry) => entry.text.replaceAll('tick', ' ').split(/\s+/).filter(Boolean));
        expect(words).toEqual(Array.from({ length: 300 }, (_, index) => ['line', String(index)]).flat());
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('stops timers, alarms and handlers the program left armed before the result is sent', async () => {
    // Each handler raises only when it interrupts what runs after the program has ended: checking and
    // sending its result. Plain CPython has no such code; under this runner, nothing of the program may run there.
    const program = python(
      'import signal, time',
      'AFTER = {"_value_outcome", "check_and_encode", "never_awaited", "_finish", "encode_frame", "_shut_down", "send_final", "_send", "_write"}',
      'def late(number, frame):',
      '    if frame is not None and frame.f_code.co_name in AFTER:',
      '        raise RuntimeError(f"a handler ran after the program ended, in {frame.f_code.co_name}")',
      'for number in (signal.SIGALRM, signal.SIGVTALRM, signal.SIGPROF):',
      '    signal.signal(number, late)',
      'signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)',
      'signal.setitimer(signal.ITIMER_VIRTUAL, 0.001, 0.001)',
      'signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)',
      'signal.alarm(1)',
      'deadline = time.perf_counter() + 0.02',
      'while time.perf_counter() < deadline:',
      '    pass',
      'return [1] * 20000',
    );
    const failures: string[] = [];
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const result = await runtime.run({ program });
      if (!result.ok) failures.push(`${result.failure.kind}: ${result.failure.message}`);
      else expect(result.logs).toEqual([]);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('sends nothing after the result while a thread of the program still prints', async () => {
    const program = python(
      'import threading',
      'def chatter():',
      '    while True:',
      '        print("chatter " * 50)',
      'threading.Thread(target=chatter, daemon=True).start()',
      'for index in range(200):',
      '    print("main", index)',
      'return "done"',
    );
    const failures: string[] = [];
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const result = await runtime.run({ program });
      if (!result.ok) failures.push(`${result.failure.kind}: ${result.failure.message}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
