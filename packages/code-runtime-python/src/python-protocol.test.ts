import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { echo, failureOf, python, successValue, testRuntime } from './__fixtures__/test-runtime.js';

process.env.SLUICE_WALK_SECRET = 'host only';
const runtime = testRuntime({ wallTimeMs: 10_000 });
afterAll(async () => {
  await runtime.dispose();
  delete process.env.SLUICE_WALK_SECRET;
});

/** A program that writes `frames` (Python bytes literals) straight to fd 3, then waits to be stopped. */
function forging(...frames: string[]): string {
  return python(
    'import asyncio, os',
    ...frames.map((frame) => `os.write(3, ${frame} + b"\\n")`),
    'await asyncio.sleep(30)',
    'return "not stopped"',
  );
}

function call(id: number | string, extra = ''): string {
  return `b'{"v":1,"type":"call","id":${id},"namespace":"tools","name":"echo","input":1${extra}}'`;
}

describe('the host reading fd 3', () => {
  const violations: Array<[string, string]> = [
    ['garbage', `b"this is not json"`],
    ['invalid UTF-8', `b'{"v":1,"type":"log","stream":"stdout","text":"\\xff\\xfe"}'`],
    ['an unknown frame type', `b'{"v":1,"type":"exec","command":"sh"}'`],
    ['another protocol version', `b'{"v":2,"type":"log","stream":"stdout","text":"hi"}'`],
    ['an unknown field', call(7, ',"as":"root"')],
    ['a call id of 0', call(0)],
    ['a fractional call id', call(1.5)],
    ['a second started frame', `b'{"v":1,"type":"started","layers":[],"addressSpaceBytes":null,"cpuSeconds":null}'`],
    [
      'a forged done claiming a timeout',
      `b'{"v":1,"type":"done","ok":false,"error":{"kind":"timeout","message":"x"}}'`,
    ],
    [
      'deeply nested JSON',
      `b'{"v":1,"type":"call","id":9,"namespace":"tools","name":"echo","input":' + b'[' * 100000 + b']' * 100000 + b'}'`,
    ],
  ];
  for (const [name, frame] of violations) {
    it(`stops the child with a protocol failure for ${name}`, async () => {
      const tool = echo;
      failureOf(await runtime.run({ program: forging(frame), bindings: { tools: { echo: tool } } }), 'protocol');
    });
  }

  it('stops the child for a duplicate call id, after serving the first', async () => {
    let calls = 0;
    const counted: HostFunction = () => {
      calls += 1;
      return null;
    };
    const result = await runtime.run({ program: forging(call(5), call(5)), bindings: { tools: { echo: counted } } });
    failureOf(result, 'protocol');
    expect(calls).toBeLessThanOrEqual(1);
  });

  it('refuses a forged call to a name that was not granted, on the host', async () => {
    let invoked = false;
    const secret: HostFunction = () => {
      invoked = true;
      return 'the crown jewels';
    };
    const result = await runtime.run({
      program: python(
        'import asyncio, os',
        `os.write(3, b'{"v":1,"type":"call","id":1000,"namespace":"admin","name":"secret","input":null}\\n')`,
        'await asyncio.sleep(0.2)',
        'return "carried on"',
      ),
      bindings: { tools: { echo }, other: { secret } },
    });
    expect(successValue(result)).toBe('carried on');
    expect(invoked).toBe(false);
    expect(result.calls).toMatchObject([{ namespace: 'admin', name: 'secret', ok: false }]);
  });

  it('refuses forged calls made through the runner, reached by frame walks of three kinds', async () => {
    let invoked = false;
    const secret: HostFunction = () => {
      invoked = true;
      return 'the crown jewels';
    };
    const result = await runtime.run({
      program: python(
        'import asyncio, sys',
        'def runner_globals(frame):',
        '    while frame is not None and "run_child" not in frame.f_globals:',
        '        frame = frame.f_back',
        '    return frame.f_globals if frame is not None else None',
        'pending = asyncio.ensure_future(tools.echo(1))',
        'await asyncio.sleep(0)', // the call is made: its coroutine waits inside the runner's channel
        'try:',
        '    raise RuntimeError("walk")',
        'except RuntimeError as error:',
        '    from_traceback = runner_globals(error.__traceback__.tb_frame)',
        'walks = {',
        '    "getframe": runner_globals(sys._getframe()),',
        '    "coroutine frame": pending.get_coro()._coroutine.cr_frame.f_globals,',
        '    "traceback": from_traceback,',
        '}',
        'await pending',
        'frame, channel = sys._getframe(), None',
        'while channel is None:',
        '    channel = frame.f_locals.get("channel")',
        '    frame = frame.f_back',
        'for index, (name, found) in enumerate(walks.items()):',
        '    assert found is not None and ("run_child" in found or "HostCallError" in found), name',
        '    channel.send({"v": 1, "type": "call", "id": 900 + index, "namespace": "admin", "name": "secret", "input": name})',
        'await asyncio.sleep(0.2)',
        'import os',
        'return {"reached": list(walks), "secret in environment": "SLUICE_WALK_SECRET" in os.environ}',
      ),
      bindings: { tools: { echo }, other: { secret } },
    });
    expect(successValue(result)).toEqual({
      reached: ['getframe', 'coroutine frame', 'traceback'],
      'secret in environment': false,
    });
    expect(invoked).toBe(false);
    const forged = result.calls.filter((call) => call.namespace === 'admin');
    expect(forged).toHaveLength(3);
    for (const call of forged) expect(call).toMatchObject({ namespace: 'admin', name: 'secret', ok: false });
  });

  it('ends the run with a protocol failure for a frame after a forged done', async () => {
    const result = await runtime.run({
      program: python(
        'import os',
        `os.write(3, b'{"v":1,"type":"done","ok":true,"value":"forged"}\\n')`,
        'return "real"',
      ),
    });
    failureOf(result, 'protocol');
  });

  it('survives a child that closes fd 3, and serves the next run', async () => {
    const result = await runtime.run({ program: python('import os', 'os.close(3)', 'return "unreachable"') });
    expect(result.ok).toBe(false);
    expect(successValue(await runtime.run({ program: 'return "next"' }))).toBe('next');
  });

  it('survives a 600 MiB line with no newline, holding no more than the line limit', { timeout: 30_000 }, async () => {
    const before = process.memoryUsage().rss;
    const result = await runtime.run({
      program: python(
        'import os',
        'os.set_blocking(3, True)',
        'chunk = b"x" * (1 << 20)',
        'for _ in range(600):',
        '    os.write(3, chunk)',
        'return "wrote it all"',
      ),
    });
    failureOf(result, 'protocol');
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    expect(successValue(await runtime.run({ program: 'return "next"' }))).toBe('next');
  });
});
