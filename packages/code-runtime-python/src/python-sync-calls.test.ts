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
} from './__fixtures__/test-runtime.js';

// Host calls written without `await`, as smolagents and Monty programs call tools: made at once where
// their value is used (docs/decisions/2026-12-02-python-unawaited-tool-calls.md), while the kill and
// every budget hold as for awaited calls.

const runtime = testRuntime();
afterAll(async () => {
  await runtime.dispose();
});

/** Answers after `ms` milliseconds (default 50), counting how many calls were in flight at once. */
function slowCalls() {
  let inFlight = 0;
  const peak = { value: 0 };
  const slow: HostFunction = async (input) => {
    inFlight += 1;
    peak.value = Math.max(peak.value, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 50));
    inFlight -= 1;
    return input;
  };
  return { slow, peak };
}

describe('a host call without await', () => {
  it('is made where its value is used: in functions, lambdas, generator expressions, classes and methods', async () => {
    const program = python(
      'def temperature(city):',
      '    return tools.echo(city)["echoed"]',
      'class Report:',
      '    first = tools.echo("class body")["echoed"]',
      '    def shout(self, text):',
      '        return tools.echo(text)["echoed"].upper()',
      'ordered = sorted(["b", "a"], key=lambda word: tools.echo(word)["echoed"])',
      'total = sum(len(tools.echo(word)["echoed"]) for word in ["ab", "c"])',
      'if tools.echo(True)["echoed"]:',
      '    print(f"made: {tools.echo(1)}")',
      'tools.echo("a statement")',
      '[temperature("Oslo"), Report.first, Report().shout("hi"), ordered, total]',
    );
    const result = await runtime.run({ program, bindings: { tools: { echo } } });
    expect(successValue(result)).toEqual(['Oslo', 'class body', 'HI', ['a', 'b'], 3]);
    expect(result.logs.map((entry) => entry.text)).toEqual(["made: {'echoed': 1}"]);
    expect(result.calls).toHaveLength(10);
  });

  it('by its bare name, inside an async function and at a top level that awaits', async () => {
    const program = python(
      'async def main():',
      '    reply = echo("inside")',
      '    return reply["echoed"]',
      'first = await main()',
      '[first, echo("top")["echoed"]]',
    );
    expect(successValue(await runtime.run({ program, bindings: { tools: { echo } } }))).toEqual(['inside', 'top']);
  });

  it('stays a coroutine where the program treats it as one, and those run at once', async () => {
    const { slow, peak } = slowCalls();
    const program = python(
      'import asyncio',
      'stored = [tools.slow(i) for i in range(3)]',
      'appended = []',
      'for i in range(3):',
      '    appended.append(tools.slow(i))',
      'def make(i):',
      '    return tools.slow(i)',
      'by_key = {i: tools.slow(i) for i in range(3)}',
      'task = asyncio.create_task(tools.slow("task"))',
      'pending = tools.slow("later")',
      'looped = [tools.slow(i) for i in range(2)]',
      'each = []',
      'for call in looped:',
      '    each.append(await call)',
      'results = [',
      '    await asyncio.gather(*stored),',
      '    await asyncio.gather(*appended),',
      '    await asyncio.gather(*map(make, range(3))),',
      '    await asyncio.gather(*by_key.values()),',
      '    await asyncio.wait_for(tools.slow("wait_for"), 10),',
      '    await task,',
      '    await pending,',
      '    each,',
      ']',
      'results',
    );
    const result = await runtime.run({ program, bindings: { tools: { slow } } });
    expect(successValue(result)).toEqual([
      [0, 1, 2],
      [0, 1, 2],
      [0, 1, 2],
      [0, 1, 2],
      'wait_for',
      'task',
      'later',
      [0, 1],
    ]);
    expect(peak.value).toBeGreaterThanOrEqual(3);
  });

  it('blocks the program while calls it awaits are in flight, whose replies then arrive as usual', async () => {
    const { slow } = slowCalls();
    const program = python(
      'import asyncio',
      'first = asyncio.create_task(tools.slow("first"))',
      'await asyncio.sleep(0)',
      'middle = tools.echo("middle")["echoed"]',
      'return [await first, middle, tools.slow("last")]',
    );
    expect(successValue(await runtime.run({ program, bindings: { tools: { slow, echo } } }))).toEqual([
      'first',
      'middle',
      'last',
    ]);
  });

  it('raises HostCallError where it is written when the call fails, as an awaited one does', async () => {
    const fail: HostFunction = () => {
      throw new Error('no station');
    };
    const program = python(
      'try:',
      '    tools.fail("Oslo")',
      'except HostCallError as error:',
      '    caught = str(error)',
      'caught',
    );
    expect(successValue(await runtime.run({ program, bindings: { tools: { fail } } }))).toContain('no station');
  });

  it('is refused, with a message, from a thread of the program', async () => {
    const program = python(
      'import threading',
      'seen = []',
      'def work():',
      '    try:',
      '        tools.echo(1)',
      '    except RuntimeError as error:',
      '        seen.append(str(error))',
      'thread = threading.Thread(target=work)',
      'thread.start()',
      'thread.join()',
      'seen',
    );
    const value = successValue(await runtime.run({ program, bindings: { tools: { echo } } }));
    expect(value).toEqual([expect.stringContaining("only in the program's main thread")]);
  });

  it('interrupted by a signal handler that raises, leaves the channel usable; the late reply is dropped', async () => {
    const { slow } = slowCalls();
    const program = python(
      'import signal',
      'def interrupt(number, frame):',
      '    raise TimeoutError("too slow")',
      'signal.signal(signal.SIGALRM, interrupt)',
      'signal.setitimer(signal.ITIMER_REAL, 0.01)',
      'try:',
      '    tools.slow("interrupted")',
      'except TimeoutError as error:',
      '    outcome = str(error)',
      'signal.setitimer(signal.ITIMER_REAL, 0)',
      '[outcome, tools.slow("after")]',
    );
    expect(successValue(await runtime.run({ program, bindings: { tools: { slow } } }))).toEqual(['too slow', 'after']);
  });

  it('gives a deterministic run the same value and clock every time', async () => {
    const { slow } = slowCalls();
    const program = python(
      'import asyncio, time',
      'early = asyncio.create_task(tools.slow("early"))',
      'await asyncio.sleep(0)',
      'now = tools.echo("now")["echoed"]',
      'at = time.monotonic()',
      'return [now, at, await early, time.monotonic()]',
    );
    const run = async () =>
      successValue(
        await runtime.run({
          program,
          bindings: { tools: { slow, echo } },
          deterministic: { seed: 7, startTime: 1_700_000_000_000 },
        }),
      );
    const first = await run();
    expect(first).toEqual(['now', 0.001, 'early', 0.002]);
    expect(await run()).toEqual(first);
  });
});

describe('a host call without await, against the budgets', () => {
  it('in a tight loop ends at the host-call budget, every call counted', async () => {
    const limited = testRuntime({ hostCalls: 40 });
    try {
      const result = await limited.run({
        program: python('count = 0', 'while True:', '    tools.echo(count)', '    count += 1'),
        bindings: { tools: { echo } },
      });
      const failure = failureOf(result, 'exception');
      expect(failure.message).toContain('The host-call budget of 40 calls per run is used up');
      expect(result.usage.hostCalls).toBe(41);
      expect(result.calls.filter((call) => call.ok)).toHaveLength(40);
    } finally {
      await limited.dispose();
    }
  });

  it('in a tight loop that swallows the refusals ends at the CPU budget', { timeout: 60_000 }, async () => {
    const limited = testRuntime({ hostCalls: 20, cpuTimeMs: 1_000, wallTimeMs: 30_000 });
    try {
      const result = await limited.run({
        program: python(
          'while True:',
          '    try:',
          '        tools.echo(1)',
          '    except HostCallError:',
          '        pass',
        ),
        bindings: { tools: { echo } },
      });
      expect(failureOf(result, 'timeout')).toMatchObject({ budget: 'cpu-time' });
      expect(result.calls.filter((call) => call.ok)).toHaveLength(20);
    } finally {
      await limited.dispose();
    }
  });

  it('blocked on a call the host never answers is killed at the wall clock, its process gone', async () => {
    const limited = testRuntime({ wallTimeMs: 1_500 });
    try {
      const hang: HostFunction = () => new Promise(() => {});
      const result = await limited.run({
        program: python('import os', 'print(os.getpid(), flush=True)', 'tools.hang()', 'print("never")'),
        bindings: { tools: { hang } },
      });
      expect(failureOf(result, 'timeout')).toMatchObject({ budget: 'wall-time' });
      const pid = Number(result.logs[0]?.text);
      expect(result.logs).toHaveLength(1);
      expect(await eventually(() => !processAlive(pid))).toBe(true);
    } finally {
      await limited.dispose();
    }
  });

  it('blocked on a call, is killed when the run is cancelled, and the host function sees its signal revoked', async () => {
    let revoked: Promise<void> | undefined;
    const hang: HostFunction = (_input, context) => {
      revoked = new Promise((resolve) => context.signal.addEventListener('abort', () => resolve()));
      return new Promise(() => {});
    };
    let pid = 0;
    const run = runtime.start({
      program: python('import os', 'print(os.getpid(), flush=True)', 'tools.hang()', 'print("never")'),
      bindings: { tools: { hang } },
      onEvent: (event) => {
        if (event.type === 'host-call-start') run.cancel('enough');
        if (event.type === 'log') pid = Number(event.text);
      },
    });
    const result = await run.result;
    expect(failureOf(result, 'abort').message).toContain('enough');
    await revoked;
    expect(pid).toBeGreaterThan(0);
    expect(await eventually(() => !processAlive(pid))).toBe(true);
  });

  it('with a result over hostCallBytes fails the call, as an awaited one does, without filling memory', async () => {
    const limited = testRuntime({ hostCallBytes: 1024 });
    try {
      const big: HostFunction = () => 'x'.repeat(4096);
      const program = python(
        'try:',
        '    tools.big()',
        'except HostCallError as error:',
        '    now = str(error)',
        'try:',
        '    await tools.big()',
        'except HostCallError as error:',
        '    awaited = str(error)',
        '[now == awaited, now]',
      );
      const value = successValue(await limited.run({ program, bindings: { tools: { big } } }));
      expect(value).toEqual([true, expect.stringContaining('the limit is 1024 bytes per call')]);
    } finally {
      await limited.dispose();
    }
  });
});
