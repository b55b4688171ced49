import { afterAll, describe, expect, it } from 'vitest';
import { createQuickJsCodeRuntime } from './index.js';

const runtime = createQuickJsCodeRuntime({
  poolSize: 2,
  wallTimeMs: 15_000,
  cpuTimeMs: 6_000,
  memoryBytes: 32 * 1024 * 1024,
});
afterAll(() => runtime.dispose());

async function outcome(program: string): Promise<{ ok: boolean; value?: unknown; kind?: string }> {
  const result = await runtime.run({ program, bindings: { tools: { echo: async (input) => input } } });
  return result.ok ? { ok: true, value: result.value } : { ok: false, kind: result.failure.kind };
}

describe('QuickJS provider against hostile programs', () => {
  it.each([
    [
      'many small objects past the WebAssembly memory cap',
      'const a = []; while (true) a.push({ a: [1, 2, 3] });',
      'memory',
    ],
    ['a huge ArrayBuffer', 'return new ArrayBuffer(1e9).byteLength;', 'memory'],
    // Past the cap where the engine cannot even make its error: what it throws is no value at all.
    [
      'an object with ever more keys',
      "const bag = {}; for (let index = 0; ; index += 1) bag['key' + index] = index;",
      'memory',
    ],
    ['a program that throws undefined itself', 'throw undefined;', 'exception'],
    ['a runaway loop', 'while (true) {}', 'timeout'],
    ['a runaway loop after an await', 'await tools.echo(1); for (;;) {}', 'timeout'],
    [
      'a microtask flood',
      'const spin = () => { Promise.resolve().then(spin); }; spin(); await new Promise(() => {});',
      'timeout',
    ],
    // Each promise is resolved with the next one: a chain that grows while it spins, so whichever
    // budget it reaches first ends it (memory in about a second on a quiet machine, the clock under load).
    [
      'a microtask flood that chains its promises',
      'const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {});',
      'memory|timeout',
    ],
  ])(
    'ends %s, and the next run is served',
    async (_name, program, kinds) => {
      const ended = await outcome(program);
      expect(ended.ok).toBe(false);
      expect(kinds.split('|')).toContain(ended.kind);
      expect(await outcome('return 1 + 1;')).toEqual({ ok: true, value: 2 });
    },
    30_000,
  );

  it("refuses one huge string inside the guest (the engine's string limit or the memory budget), and the next run is served", async () => {
    expect(await outcome("let s = 'x'; while (true) s += s;")).toMatchObject({ ok: false });
    expect(await outcome('return 1 + 1;')).toEqual({ ok: true, value: 2 });
  }, 30_000);

  it('keeps deep recursion, a Proxy get loop and deep JSON inside the guest', async () => {
    const roomy = createQuickJsCodeRuntime({ poolSize: 1 });
    const result = await roomy.run({
      program: `
      const out = [];
      function r(n) { return r(n + 1) + 1; }
      try { r(0); } catch (error) { out.push(error.name); }
      const p = new Proxy({}, { get(target, key) { return p[key]; } });
      try { p.x; } catch (error) { out.push(error.name); }
      let o = {}; for (let i = 0; i < 100000; i++) o = { o };
      try { JSON.stringify(o); } catch (error) { out.push(error.name); }
      return out;`,
    });
    await roomy.dispose();
    expect(result).toMatchObject({ ok: true, value: ['RangeError', 'RangeError', 'RangeError'] });
  }, 30_000);

  it('reports the CPU time of a run the CPU budget stopped before its first await', async () => {
    const strict = createQuickJsCodeRuntime({ poolSize: 1, cpuTimeMs: 100 });
    const result = await strict.run({ program: 'for (;;) {}' });
    await strict.dispose();
    expect(result).toMatchObject({ ok: false, failure: { kind: 'timeout', budget: 'cpu-time' } });
    // The run ended inside its first turn: the time of that turn is the run's CPU time.
    expect(result.usage.cpuMs).toBeGreaterThanOrEqual(100);
  }, 30_000);

  it('lets the program catch deep nesting in eval and new Function, and the next run is served', async () => {
    const nested = (depth: number, open: string, close: string, middle: string) =>
      JSON.stringify(open.repeat(depth) + middle + close.repeat(depth));
    const caught = (expression: string) =>
      `try { return ['no error', ${expression}]; } catch (error) { return [error.name, error.message]; }`;
    for (const program of [
      caught(`eval(${nested(5_000, '(', ')', '1')})`),
      caught(`new Function('return ' + ${nested(5_000, '(', ')', '1')})()`),
      caught(`eval(${nested(50_000, '(', ')', '1')})`),
      caught(`eval(${nested(50_000, '1+(', ')', '1')})`),
      caught(`eval('['.repeat(1e6) + ']'.repeat(1e6))`),
    ]) {
      expect(await outcome(program)).toEqual({ ok: true, value: ['RangeError', 'Maximum call stack size exceeded'] });
    }
    // Uncaught, it ends the run as the program's exception, not as the engine's failure.
    const uncaught = await runtime.run({ program: `return eval(${nested(5_000, '(', ')', '1')});` });
    expect(uncaught).toMatchObject({
      ok: false,
      failure: { kind: 'exception', name: 'RangeError', message: expect.stringContaining('Maximum call stack size') },
    });
    // A program nested as deep (prepared on the host first) is not the engine's failure either.
    for (const program of [
      `return ${'('.repeat(5_000)}1${')'.repeat(5_000)};`,
      `return ${'1+('.repeat(5_000)}1${')'.repeat(5_000)};`,
    ]) {
      expect((await outcome(program)).kind).not.toBe('substrate-exit');
    }
    expect(await outcome('return 1 + 1;')).toEqual({ ok: true, value: 2 });
  }, 60_000);

  it('offers no SharedArrayBuffer, Atomics, WebAssembly or host objects', async () => {
    expect(
      await outcome(
        'return [typeof SharedArrayBuffer, typeof Atomics, typeof WebAssembly, typeof process, typeof require, typeof fetch, typeof Buffer];',
      ),
    ).toEqual({
      ok: true,
      value: ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined'],
    });
  }, 30_000);

  it('finds no way out through constructor chains of the globals it offers', async () => {
    const value = await outcome(`
      const found = [];
      for (const f of [console.log, setTimeout, tools.echo, Math.random, crypto.randomUUID, performance.now]) {
        const F = f.constructor;
        try { found.push(typeof F('return typeof process')()); } catch (error) { found.push(error.name); }
      }
      return found;`);
    expect(value).toEqual({ ok: true, value: ['string', 'string', 'string', 'string', 'string', 'string'] });
    // The Function constructor reached is the guest's own: it sees the guest's globals only.
    expect(await outcome("return Function('return typeof process')();")).toEqual({ ok: true, value: 'undefined' });
  }, 30_000);

  it('leaves no prototype pollution for the next run', async () => {
    await outcome("Object.prototype.polluted = 'yes'; Array.prototype.map = () => 'hijacked'; return 1;");
    expect(await outcome('return [typeof ({}).polluted, [1].map((x) => x * 2)];')).toEqual({
      ok: true,
      value: ['undefined', [2]],
    });
  }, 30_000);

  it('drops a host result that arrives after the run ended', async () => {
    const late = await runtime.run({
      program: "tools.slow(); return 'done';",
      bindings: { tools: { slow: () => new Promise((resolve) => setTimeout(() => resolve('late'), 100)) } },
    });
    expect(late).toMatchObject({ ok: true, value: 'done' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await outcome('return 3;')).toEqual({ ok: true, value: 3 });
  }, 30_000);
});
