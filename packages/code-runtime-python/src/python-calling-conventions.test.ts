import type { HostCallContext, HostFunction, JsonValue } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { python, testRuntime } from './__fixtures__/test-runtime.js';

const runtime = testRuntime();
afterAll(async () => {
  await runtime.dispose();
});

function recorder(): HostFunction & { seen: Array<[JsonValue, HostCallContext['positional']]> } {
  const seen: Array<[JsonValue, HostCallContext['positional']]> = [];
  const host: HostFunction = (input, context) => {
    seen.push([input, context.positional]);
    return input;
  };
  return Object.assign(host, { seen });
}

describe('python calling conventions', () => {
  it('sends positional arguments with context.positional, and keywords beside them as the input', async () => {
    const echo = recorder();
    const result = await runtime.run({
      program: python(
        'await tools.echo("oslo")',
        'await tools.echo(5, 3)',
        'await tools.echo("oslo", limit=3)',
        'await tools.echo(query="oslo")',
        'await tools.echo({"a": 1})',
        'await tools.echo(None)',
        'return "ok"',
      ),
      bindings: { tools: { echo } },
    });
    expect(result).toMatchObject({ ok: true, value: 'ok' });
    expect(echo.seen).toEqual([
      ['oslo', ['oslo']],
      [
        [5, 3],
        [5, 3],
      ],
      [{ limit: 3 }, ['oslo']],
      [{ query: 'oslo' }, undefined],
      [{ a: 1 }, undefined],
      [null, undefined],
    ]);
  });

  it('binds a function name unique across namespaces as a global, never over a builtin', async () => {
    const echo = recorder();
    const result = await runtime.run({
      program: python('return [await get_weather("oslo"), print is not tools.print, await tools.print(1)]'),
      bindings: { tools: { get_weather: echo, print: echo } },
    });
    expect(result).toMatchObject({ ok: true, value: ['oslo', true, 1] });
  });

  it('names every namespace of a bare name granted in more than one', async () => {
    const echo = recorder();
    const result = await runtime.run({
      program: python('return await get_weather("oslo")'),
      bindings: { tools: { get_weather: echo }, weather: { get_weather: echo } },
    });
    expect(result.ok ? '' : result.failure.message).toContain(
      "NameError: name 'get_weather' is not defined; did you mean tools.get_weather or weather.get_weather?",
    );
    expect(echo.seen).toEqual([]);
  });
});
