import { execFileSync } from 'node:child_process';
import type { CodeRunDeterminism, HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';

const runtime = createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

const startTime = 1_700_000_000_000;

// Date, Math.random, crypto, performance.now, timers (one set before the calls, which must wait for
// them), an interval, a promise nobody handles, and a Promise.all over host calls whose chains
// continue after their reply.
const program = `
setTimeout(() => console.log('zero timer', performance.now()), 0);
const started: number = Date.now();
const first = Math.random();
const bytes = crypto.getRandomValues(new Uint8Array(4));
const id = crypto.randomUUID();
console.log('start', new Date().toISOString(), first, performance.now());
const order: string[] = [];
const replies = await Promise.all(['a', 'b', 'c'].map(async (key) => {
  const reply = await tools.echo({ key });
  order.push(key);
  console.log('reply', key, Date.now());
  await null;
  console.log('then', key, performance.now());
  return reply;
}));
Promise.reject(new Error('nobody handles this'));
const ticks: number[] = [];
const interval = setInterval(() => ticks.push(performance.now()), 40);
setTimeout(() => console.log('timer 30', Date.now() - started), 30);
setTimeout(() => console.log('timer 10', Date.now() - started), 10);
await new Promise((resolve) => setTimeout(resolve, 100));
clearInterval(interval);
const late = await tools.echo({ key: 'late', at: Date.now() });
return { started, first, bytes: Array.from(bytes), id, order, replies, ticks, late, end: Date.now(), again: Math.random() };
`;

/**
 * Runs `program` deterministically with an echo tool whose n-th call finishes after `delaysMs[n]`
 * of real time, so the host's results come back in whatever order the delays give. Returns the
 * calls the host saw, the run's records of them, its logs and its value, as one string.
 */
async function runWith(deterministic: CodeRunDeterminism, delaysMs: readonly number[]): Promise<string> {
  const seen: unknown[] = [];
  const echo: HostFunction = async (input) => {
    const delayMs = delaysMs[seen.length] ?? 0;
    seen.push(input);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return input;
  };
  const result = await runtime.run({ program, bindings: { tools: { echo } }, deterministic });
  return JSON.stringify({
    ok: result.ok,
    value: result.ok ? result.value : result.failure,
    logs: result.logs,
    seen,
    calls: result.calls.map(({ namespace, name, ok, error }) => ({ namespace, name, ok, error })),
  });
}

describe('worker-thread deterministic runs (request.deterministic)', () => {
  it("repeats calls, logs and value byte for byte, however the host's calls finish", async () => {
    const reversed = await runWith({ seed: 7, startTime }, [90, 45, 1]);
    const inOrder = await runWith({ seed: 7, startTime }, [1, 45, 90]);
    const mixed = await runWith({ seed: 7, startTime }, [45, 1, 90]);
    expect(inOrder).toBe(reversed);
    expect(mixed).toBe(reversed);

    const parsed = JSON.parse(reversed) as {
      ok: boolean;
      value: Record<string, unknown>;
      logs: Array<{ level: string; text: string }>;
      seen: unknown[];
    };
    expect(parsed.ok).toBe(true);
    // Three results (1 ms each), then timers only when nothing else can happen: the clock jumps to
    // each due time (10, 30, the interval at 40 and 80, the 100 ms wait), then one more result.
    expect(parsed.value).toMatchObject({
      started: startTime,
      order: ['a', 'b', 'c'],
      ticks: [43, 83],
      late: { key: 'late', at: startTime + 103 },
      end: startTime + 104,
    });
    expect(parsed.seen).toEqual([{ key: 'a' }, { key: 'b' }, { key: 'c' }, { key: 'late', at: startTime + 103 }]);
    const texts = parsed.logs.map((line) => line.text);
    expect(texts[0]).toMatch(/^start 2023-11-14T22:13:20\.000Z 0\.\d+ 0$/);
    // Each result's chain runs to its end before the next result is delivered.
    expect(texts.slice(1, 7)).toEqual([
      `reply a ${startTime + 1}`,
      'then a 1',
      `reply b ${startTime + 2}`,
      'then b 2',
      `reply c ${startTime + 3}`,
      'then c 3',
    ]);
    const warning = texts.findIndex((text) => text.startsWith('[sluice] A promise was rejected'));
    expect(warning).toBeGreaterThan(6);
    expect(texts.filter((text) => /timer/.test(text))).toEqual(['zero timer 3', 'timer 10 13', 'timer 30 33']);
    expect(texts.indexOf('zero timer 3')).toBeGreaterThan(warning);
  }, 60_000);

  it('draws other numbers from another seed, on the same clock', async () => {
    const seven = JSON.parse(await runWith({ seed: 7, startTime }, [1, 1, 1])) as { value: Record<string, unknown> };
    const eight = JSON.parse(await runWith({ seed: 8, startTime }, [1, 1, 1])) as { value: Record<string, unknown> };
    for (const key of ['first', 'bytes', 'id', 'again']) expect(eight.value[key]).not.toEqual(seven.value[key]);
    expect(eight.value.end).toBe(seven.value.end);
  }, 60_000);

  it('leaves a plain run between deterministic ones on the same worker as it was', async () => {
    const first = await runWith({ seed: 11, startTime: 5_000 }, [20, 1, 1]);
    const before = Date.now();
    const plain = await runtime.run({
      program: `
const native = (f: unknown) => /\\[native code\\]/.test(Function.prototype.toString.call(f));
return { now: Date.now(), date: new Date().getTime(), natives: [Date, Date.now, Math.random, WeakRef, FinalizationRegistry].map(native) };`,
    });
    const after = Date.now();
    expect(plain.ok).toBe(true);
    const value = (plain.ok ? plain.value : {}) as { now: number; date: number; natives: boolean[] };
    expect(value.now).toBeGreaterThanOrEqual(before);
    expect(value.now).toBeLessThanOrEqual(after);
    expect(value.date).toBeGreaterThanOrEqual(value.now);
    expect(value.natives).toEqual([true, true, true, true, true]);
    expect(await runWith({ seed: 11, startTime: 5_000 }, [1, 1, 20])).toBe(first);
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
  it('names V8 and hashes the built files, the same in every runtime and outside the test runner', () => {
    const { fingerprint } = runtime.determinism;
    expect(fingerprint).toMatch(/^v8-[0-9][0-9a-z.-]*:[0-9a-f]{32}$/);
    expect(fingerprint.startsWith(`v8-${process.versions.v8}:`)).toBe(true);
    expect(createWorkerThreadCodeRuntime({ poolSize: 1 }).determinism.fingerprint).toBe(fingerprint);
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

  it('refuses a malformed determinism before anything runs', () => {
    expect(() => runtime.start({ program: 'return 1', deterministic: { seed: 2 ** 32, startTime } })).toThrow(
      /seed must be an integer in \[0, 2\^32\)/,
    );
    expect(() => runtime.start({ program: 'return 1', deterministic: { seed: 1, startTime: -1 } })).toThrow(
      /startTime must be milliseconds since the Unix epoch/,
    );
  });
});
