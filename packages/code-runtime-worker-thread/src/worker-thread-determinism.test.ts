import { execFileSync } from 'node:child_process';
import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';

const runtime = createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

const startTime = 1_700_000_000_000;

// Repeatability, the clock (Date), the seed (Math.random, crypto), answers in call order and ordinary
// runs between deterministic ones are the shared conformance suite's determinism cases
// (conformance.test.ts). What is the worker-thread provider's own is below.

describe('worker-thread deterministic runs (request.deterministic)', () => {
  it('loads the built-ins polyfill without drawing from the seeded randomness or reading the clock', async () => {
    const deterministic = { seed: 11, startTime };
    const plain = await runtime.run({ program: 'return [Math.random(), Math.random(), Date.now()];', deterministic });
    const polyfilled = await runtime.run({
      program:
        "const first = Math.random(); const grouped = Object.groupBy([1, 2, 3], (x) => (x % 2 ? 'odd' : 'even')); return [first, Math.random(), Date.now(), grouped];",
      deterministic,
    });
    expect(plain.ok && polyfilled.ok).toBe(true);
    const [first, second, now] = plain.ok ? (plain.value as number[]) : [];
    expect(polyfilled).toMatchObject({ value: [first, second, now, { odd: [1, 3], even: [2] }] });
  });

  it('runs performance.now() from 0, an interval on the virtual clock, and reports an unhandled rejection before the timers', async () => {
    const program = `
setTimeout(() => console.log('zero timer', performance.now()), 0);
console.log('start', new Date().toISOString(), performance.now());
await tools.echo({ key: 'a' });
console.log('then', performance.now());
Promise.reject(new Error('nobody handles this'));
const ticks: number[] = [];
const interval = setInterval(() => ticks.push(performance.now()), 40);
await new Promise((resolve) => setTimeout(resolve, 100));
clearInterval(interval);
return ticks;`;
    const echo: HostFunction = (input) => input;
    const run = async () => {
      const result = await runtime.run({
        program,
        bindings: { tools: { echo } },
        deterministic: { seed: 7, startTime },
      });
      return { ok: result.ok, value: result.ok ? result.value : result.failure, logs: result.logs };
    };
    const result = await run();
    expect(JSON.stringify(await run())).toBe(JSON.stringify(result));
    expect(result).toMatchObject({ ok: true, value: [41, 81] });
    const texts = result.logs.map((line) => line.text);
    expect(texts.slice(0, 2)).toEqual(['start 2023-11-14T22:13:20.000Z 0', 'then 1']);
    const warning = texts.findIndex((text) => text.startsWith('[sluice] A promise was rejected'));
    expect(warning).toBe(2);
    // The timer set first fires only when nothing else can happen: after the answer and the warning.
    expect(texts.filter((text) => /timer/.test(text))).toEqual(['zero timer 1']);
    expect(texts.indexOf('zero timer 1')).toBeGreaterThan(warning);
  }, 60_000);

  it('leaves the native globals to a plain run after a deterministic one on the same worker', async () => {
    await runtime.run({ program: 'return Math.random()', deterministic: { seed: 11, startTime: 5_000 } });
    const plain = await runtime.run({
      program: `
const native = (f: unknown) => /\\[native code\\]/.test(Function.prototype.toString.call(f));
return { now: Date.now(), date: new Date().getTime(), natives: [Date, Date.now, Math.random, WeakRef, FinalizationRegistry].map(native) };`,
    });
    expect(plain.ok).toBe(true);
    const value = (plain.ok ? plain.value : {}) as { now: number; date: number; natives: boolean[] };
    expect(value.date).toBeGreaterThanOrEqual(value.now);
    expect(value.natives).toEqual([true, true, true, true, true]);
  }, 60_000);

  it('gives a deterministic run globals that cannot observe the garbage collector or the real clock', async () => {
    const result = await runtime.run({
      program: `
const target = { big: new Array(1000).fill(0) };
const ref = new WeakRef(target);
const registry = new FinalizationRegistry(() => console.log('never'));
registry.register({}, 'held', target);
return {
  kept: ref.deref() === target,
  unregistered: registry.unregister(target),
  tags: [String(ref), String(registry)],
  formatted: new Intl.DateTimeFormat('en', { timeZone: 'UTC', dateStyle: 'medium' }).format(),
  parts: new Intl.DateTimeFormat('en', { timeZone: 'UTC', year: 'numeric' }).formatToParts()[0].value,
  called: Date(),
  isDate: new Date() instanceof Date && Object.getPrototypeOf(new Date()) === Date.prototype,
  subclass: new (class extends Date {})().getTime(),
};`,
      deterministic: { seed: 1, startTime },
    });
    expect(result).toMatchObject({
      ok: true,
      value: {
        kept: true,
        unregistered: true,
        tags: ['[object WeakRef]', '[object FinalizationRegistry]'],
        formatted: 'Nov 14, 2023',
        parts: '2023',
        called: new Date(startTime).toString(),
        isDate: true,
        subclass: startTime,
      },
    });
  }, 60_000);
});

describe('worker-thread determinism fingerprint', () => {
  it('names V8 and hashes the built files, the same outside the test runner', () => {
    const { fingerprint } = runtime.determinism;
    expect(fingerprint).toMatch(/^v8-[0-9][0-9a-z.-]*:[0-9a-f]{32}$/);
    expect(fingerprint.startsWith(`v8-${process.versions.v8}:`)).toBe(true);
    // A host that loads the package from dist/ (no test runner's transform) computes the same.
    const index = new URL('../dist/index.js', import.meta.url).href;
    const outside = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { createWorkerThreadCodeRuntime } = await import(${JSON.stringify(index)}); process.stdout.write(createWorkerThreadCodeRuntime().determinism.fingerprint);`,
      ],
      { encoding: 'utf8' },
    );
    expect(outside).toBe(fingerprint);
  });
});
