import type { HostCallContext, HostFunction, JsonValue } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createQuickJsCodeRuntime } from './index.js';

const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

function recorder(): HostFunction & { seen: Array<[JsonValue, HostCallContext['positional']]> } {
  const seen: Array<[JsonValue, HostCallContext['positional']]> = [];
  const host: HostFunction = (input, context) => {
    seen.push([input, context.positional]);
    return input;
  };
  return Object.assign(host, { seen });
}

describe('quickjs calling conventions', () => {
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
      program:
        "return [await get_weather('oslo'), typeof setTimeout, await tools.setTimeout(1), typeof URL, await tools.URL(2)];",
      bindings: { tools: { get_weather: echo, setTimeout: echo, URL: echo } },
    });
    expect(result).toMatchObject({ ok: true, value: ['oslo', 'function', 1, 'function', 2] });
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
        'try { await tools.nope(1); } catch (error) { return [error.message, typeof tools.then, "nope" in tools, typeof tools.toJSON]; }',
      bindings: { tools: { echo } },
    });
    expect(result).toMatchObject({
      ok: true,
      value: ['tools.nope is not available to this program. Available: tools.echo.', 'undefined', false, 'undefined'],
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
      program:
        'const later = async () => 1;\ntry { await tools.echo({ inner: later() }); } catch (error) { return error.message; }',
      bindings: { tools: { echo } },
    });
    expect(passed.ok && passed.value).toContain(
      '$.inner is a Promise (a call or an async function that was not awaited',
    );
  });
});

describe('quickjs: a host call read before it is awaited', () => {
  const weather: HostFunction = async (input) => ({ temp: 3, city: (input as { city: string }).city });
  const bindings = { tools: { get_weather: weather } };

  it('throws naming the fix instead of giving undefined', async () => {
    const result = await runtime.run({
      program: 'const note = "reading";\nreturn tools.get_weather({ city: "Oslo" }).temp < 5 ? "cold" : "mild";',
      bindings,
    });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'exception', line: 2 } });
    expect(result.ok ? '' : result.failure.message).toContain('write `(await tools.get_weather(...)).temp`');
  });

  it('still behaves as a promise: await, then/catch/finally, Promise.all and race, instanceof', async () => {
    const program = [
      'const one = await tools.get_weather({ city: "A" });',
      'const all = await Promise.all([tools.get_weather({ city: "B" }), tools.get_weather({ city: "C" })]);',
      'const chained = await tools.get_weather({ city: "D" }).then((w) => w.city).finally(() => {});',
      'const raced = await Promise.race([tools.get_weather({ city: "E" })]);',
      'const caught = await tools.get_weather({ city: "F" }).catch(() => null);',
      'Promise.prototype.then = () => { throw new Error("replaced"); };',
      'const still = await tools.get_weather({ city: "G" });',
      'return [one.city, ...all.map((w) => w.city), chained, raced.city, caught.city, still.city, tools.get_weather({ city: "H" }) instanceof Promise];',
    ].join('\n');
    expect(await runtime.run({ program, bindings })).toMatchObject({
      ok: true,
      value: ['A', 'B', 'C', 'D', 'E', 'F', 'G', true],
    });
  });
});

describe('quickjs JSON at the boundary', () => {
  it('returns a Date as its ISO string, a URL as its href and a class instance through its toJSON', async () => {
    const result = await runtime.run({
      program: `
        class Money { constructor(readonly cents: number) {} toJSON() { return { amount: this.cents / 100 }; } }
        return { fetchedAt: new Date(Date.UTC(2026, 10, 30, 12)), price: new Money(1250), note: undefined, link: new URL('https://example.com/a?b=1') };`,
    });
    expect(result).toMatchObject({
      ok: true,
      value: { fetchedAt: '2026-11-30T12:00:00.000Z', price: { amount: 12.5 }, link: 'https://example.com/a?b=1' },
    });
    expect(result.ok && Object.keys(result.value as object)).toEqual(['fetchedAt', 'price', 'link']);
  });

  it('sends a URL argument as its href', async () => {
    const echo = recorder();
    const result = await runtime.run({
      program:
        "return await tools.echo({ link: new URL('https://example.com/x'), params: new URLSearchParams('a=1').toString() });",
      bindings: { tools: { echo } },
    });
    expect(result).toMatchObject({ ok: true, value: { link: 'https://example.com/x', params: 'a=1' } });
  });
});
