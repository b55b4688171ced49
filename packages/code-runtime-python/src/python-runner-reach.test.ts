import { afterAll, describe, expect, it } from 'vitest';
import { echo, python, successValue, testRuntime } from './__fixtures__/test-runtime.js';

const runtime = testRuntime();

afterAll(() => runtime.dispose());

/**
 * Python that forges the runner's result from inside a hook: it walks the frames under it and puts
 * "forged" into every dict shaped like an outcome (`ok` and `value`), and records where it ran.
 */
const forge = python(
  'import sys',
  'seen = []',
  'def forge(frame):',
  '    while frame is not None:',
  '        if frame.f_code.co_filename != "<program>":',
  '            seen.append(frame.f_code.co_name)',
  '        for value in list(frame.f_locals.values()):',
  '            if type(value) is dict and "ok" in value:',
  '                value["ok"] = True',
  '                value["value"] = "forged"',
  '        frame = frame.f_back',
);

describe('what a Python program can reach of the runner', () => {
  it('cannot import the runner modules', async () => {
    const result = await runtime.run({
      program: python(
        'found = {}',
        'for name in ("sluice_runner", "sluice_channel", "sluice_host_calls", "sluice_program", "sluice_values", "sluice_containment"):',
        '    try:',
        '        __import__(name)',
        '        found[name] = True',
        '    except ImportError:',
        '        found[name] = False',
        'return found',
      ),
    });
    expect(Object.values(successValue(result) as Record<string, boolean>)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('finds no finder of the runner among the import hooks', async () => {
    // The zygote loads the runner's modules through a finder of its own, removed once they are loaded.
    const result = await runtime.run({
      program: python(
        'import sys',
        'return [getattr(finder, "__module__", type(finder).__module__) for finder in sys.meta_path + sys.path_hooks]',
      ),
    });
    const modules = successValue(result) as string[];
    expect(modules.length).toBeGreaterThan(0);
    for (const name of modules) expect(name).toMatch(/^(_frozen_importlib|_frozen_importlib_external|zipimport)$/);
  });

  it.each([
    ['sys._getframe', 'start = sys._getframe()'],
    ['inspect.stack()', 'import inspect', 'start = inspect.stack()[0].frame'],
    [
      'a traceback',
      'try:',
      '    raise ValueError()',
      'except ValueError as error:',
      '    start = error.__traceback__.tb_frame',
    ],
    [
      'a running generator',
      'def walker():',
      '    yield',
      'generator = walker()',
      'next(generator)',
      'start = generator.gi_frame',
      'start = sys._getframe()',
    ],
    [
      'a running coroutine',
      'import asyncio',
      'async def inner():',
      '    return sys._getframe().f_back',
      'start = await inner()',
    ],
  ])('finds none of the zygote state under its frames, through %s', async (_route, ...lines) => {
    // The zygote's configuration names the host's socket; its command buffer may hold other children's tokens.
    const result = await runtime.run({
      program: python(
        'import sys',
        ...lines,
        'found = []',
        'frame = start',
        'while frame is not None:',
        '    spaces = [frame.f_locals, frame.f_globals]',
        '    spaces += [vars(value) for value in frame.f_locals.values() if hasattr(value, "__dict__") and not isinstance(value, type)]',
        '    for space in spaces:',
        '        for key, value in list(space.items()):',
        '            if key in ("socket", "token", "runs", "context", "config") and value and not hasattr(value, "__spec__"):',
        '                found.append(f"{frame.f_code.co_name}: {key}")',
        '            if isinstance(value, (bytes, bytearray)) and b"token" in value:',
        '                found.append(f"{frame.f_code.co_name}: fork orders")',
        '    frame = frame.f_back',
        'return sorted(set(found))',
      ),
    });
    expect(successValue(result)).toEqual([]);
  });

  it.each([
    ['sys.settrace', 'sys.settrace(lambda frame, event, argument: forge(frame))'],
    ['sys.setprofile', 'sys.setprofile(lambda frame, event, argument: forge(frame))'],
    ['sys.addaudithook', 'sys.addaudithook(lambda event, arguments: forge(sys._getframe(1)))'],
    [
      'gc.callbacks',
      'import gc',
      'gc.set_threshold(1)',
      'gc.callbacks.append(lambda phase, info: forge(sys._getframe(1)))',
    ],
  ])('cannot change the result it reported with a hook (%s)', async (_route, ...lines) => {
    const result = await runtime.run({ program: python(forge, ...lines, 'return "mine"') });
    expect(successValue(result)).toBe('mine');
  });

  it('cannot forge what the host records of its calls, even holding the channel', async () => {
    // The channel is in reach (through sys.stdout); every frame sent on it is checked by the host.
    const result = await runtime.run({
      program: python(
        'import sys',
        'channel = sys.stdout.buffer.channel',
        'real = await tools.echo(value=1)',
        'channel.send({"v": 1, "type": "call", "id": 100, "namespace": "secret", "name": "read", "input": None})',
        'forged = await tools.echo(value=2)',
        'return [real, forged]',
      ),
      bindings: { tools: { echo } },
    });
    // The forged call is refused by the host and recorded as such; the call after it reuses an id the
    // host has already seen (the channel counted from 1), so the host ends the run rather than record it.
    expect(result.calls.map((call) => [call.namespace, call.name, call.ok])).toEqual([
      ['tools', 'echo', true],
      ['secret', 'read', false],
    ]);
    expect(result.ok).toBe(false);
  });
});
