import type { HostCallContext, HostFunction, JsonValue } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';

const runtime = createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

function recorder(): HostFunction & { seen: Array<[JsonValue, HostCallContext['positional']]> } {
  const seen: Array<[JsonValue, HostCallContext['positional']]> = [];
  const host: HostFunction = (input, context) => {
    seen.push([input, context.positional]);
    return input;
  };
  return Object.assign(host, { seen });
}

describe('worker-thread calling conventions', () => {
  it('sends positional arguments with context.positional, dropping trailing undefined ones', async () => {
    const echo = recorder();
    const result = await runtime.run({
      program:
        "await tools.echo('oslo', undefined); await tools.echo(5, 3); await tools.echo({ a: 1 }); await tools.echo(null); return 'ok';",
      bindings: { tools: { echo } },
    });
    expect(result).toMatchObject({ ok: true, value: 'ok' });
    expect(echo.seen).toEqual([
      ['oslo', ['oslo']],
      [
        [5, 3],
        [5, 3],
      ],
      [{ a: 1 }, undefined],
      [null, undefined],
    ]);
  });

  it('binds a function name unique across namespaces as a global, never over an existing global', async () => {
    const echo = recorder();
    const result = await runtime.run({
      program: "return [await get_weather('oslo'), typeof setTimeout, await tools.setTimeout(1)];",
      bindings: { tools: { get_weather: echo, setTimeout: echo } },
    });
    expect(result).toMatchObject({ ok: true, value: ['oslo', 'function', 1] });
  });

  it('names every namespace of a bare name granted in more than one', async () => {
    const echo = recorder();
    const result = await runtime.run({
      program: "return await get_weather('oslo');",
      bindings: { tools: { get_weather: echo }, weather: { get_weather: echo } },
    });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'exception' } });
    expect(result.ok ? '' : result.failure.message).toContain(
      'ReferenceError: get_weather is granted in more than one namespace; did you mean tools.get_weather or weather.get_weather?',
    );
    expect(echo.seen).toEqual([]);
  });

  it('refuses a name that is not granted on the host side, records it, and lists what is available', async () => {
    const echo = recorder();
    const result = await runtime.run({
      program:
        'try { await tools.nope(1); } catch (error) { return [error.message, typeof tools.then, "nope" in tools]; }',
      bindings: { tools: { echo } },
    });
    expect(result).toMatchObject({
      ok: true,
      value: ['tools.nope is not available to this program. Available: tools.echo.', 'undefined', false],
      calls: [{ namespace: 'tools', name: 'nope', ok: false }],
    });
    expect(echo.seen).toEqual([]);
  });

  it('says to await a promise returned or passed where JSON is needed', async () => {
    const echo = recorder();
    const returned = await runtime.run({ program: 'return { x: tools.echo(1) };', bindings: { tools: { echo } } });
    expect(returned.ok ? '' : returned.failure.message).toContain(
      '$.x is a Promise (a call or an async function that was not awaited: write `await` before it)',
    );
    const passed = await runtime.run({
      program: 'try { await tools.echo({ inner: tools.echo(2) }); } catch (error) { return error.message; }',
      bindings: { tools: { echo } },
    });
    expect(passed.ok && passed.value).toContain(
      '$.inner is a Promise (a call or an async function that was not awaited',
    );
  });
});
