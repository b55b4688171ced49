import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createQuickJsCodeRuntime } from './index.js';

const program = `
const started = Date.now();
const first = Math.random();
const bytes = crypto.getRandomValues(new Uint8Array(4));
const id = crypto.randomUUID();
console.log('start', new Date().toISOString(), first);
const reply = await tools.echo({ id });
await new Promise((resolve) => setTimeout(resolve, 250));
console.log('after', Date.now() - started, performance.now());
return { started, first, bytes: Array.from(bytes), id, reply, end: Date.now(), again: Math.random() };
`;

async function runOnce(seed: number): Promise<string> {
  const runtime = createQuickJsCodeRuntime({ poolSize: 1, deterministic: { seed, startTime: 1_700_000_000_000 } });
  try {
    const result = await runtime.run({ program, bindings: { tools: { echo: async (input) => input } } });
    return JSON.stringify({
      ok: result.ok,
      value: result.ok ? result.value : result.failure,
      logs: result.logs,
      calls: result.calls.map(({ namespace, name, ok }) => ({ namespace, name, ok })),
    });
  } finally {
    await runtime.dispose();
  }
}

describe('QuickJS deterministic mode', () => {
  it('repeats calls, logs and value byte for byte for the same seed and start time', async () => {
    const first = await runOnce(7);
    const second = await runOnce(7);
    expect(second).toBe(first);
    const parsed = JSON.parse(first) as { ok: boolean; value: { started: number; end: number } };
    expect(parsed.ok).toBe(true);
    expect(parsed.value.started).toBe(1_700_000_000_000);
    // One host result (1 ms) and a 250 ms timer: the clock moves only with them.
    expect(parsed.value.end).toBe(1_700_000_000_251);
  }, 60_000);

  it('loads the built-ins polyfill without drawing from the seeded randomness or reading the clock', async () => {
    const runtime = createQuickJsCodeRuntime({
      poolSize: 1,
      deterministic: { seed: 11, startTime: 1_700_000_000_000 },
    });
    try {
      const plain = await runtime.run({ program: 'return [Math.random(), Math.random(), Date.now()];' });
      const polyfilled = await runtime.run({
        program:
          "const first = Math.random(); const grouped = Object.groupBy([1, 2, 3], (x) => (x % 2 ? 'odd' : 'even')); return [first, Math.random(), Date.now(), grouped];",
      });
      expect(plain.ok && polyfilled.ok).toBe(true);
      const [first, second, now] = plain.ok ? (plain.value as number[]) : [];
      expect(polyfilled).toMatchObject({ value: [first, second, now, { odd: [1, 3], even: [2] }] });
    } finally {
      await runtime.dispose();
    }
  }, 60_000);

  it('draws different numbers from a different seed', async () => {
    expect(await runOnce(8)).not.toBe(await runOnce(7));
  }, 60_000);
});

// Per run (request.deterministic): repeatability, the clock, the seed, answers in call order and
// ordinary runs between deterministic ones are the shared conformance suite's determinism cases
// (conformance.test.ts). What is QuickJS's own is below.
describe('QuickJS determinism per run (request.deterministic)', () => {
  it('publishes a fingerprint that names the engine', () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 1 });
    expect(runtime.determinism.fingerprint).toMatch(/^quickjs-ng:[0-9a-f]{32}$/);
  });

  it('says which rule a malformed determinism breaks', () => {
    // The suite checks the error's class and field for every provider; the wording is pinned here once.
    const runtime = createQuickJsCodeRuntime({ poolSize: 1 });
    expect(() => runtime.start({ program: 'return 1', deterministic: { seed: -1, startTime: 0 } })).toThrow(
      /seed must be an integer in \[0, 2\^32\)/,
    );
    expect(() => runtime.start({ program: 'return 1', deterministic: { seed: 1, startTime: Number.NaN } })).toThrow(
      /startTime must be milliseconds since the Unix epoch/,
    );
  });
});

// Each thread makes its next runtimes and contexts before their runs arrive: what a run's clock
// and randomness read must still come from the run, never from when its context was made.
describe('QuickJS contexts made ahead of their runs', () => {
  const clock = `
await new Promise((resolve) => setTimeout(resolve, 5));
return { origin: performance.timeOrigin, now: Date.now(), random: Math.random(), url: new URL('https://a.example/p').pathname };`;

  it('gives a run its own start time and seed, whichever runs the context served before', async () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 1 });
    try {
      const results = [];
      // The same thread serves them all, alternating plain and deterministic runs on contexts made ahead.
      for (const startTime of [1_000, 0, 2_000, 0, 1_000]) {
        const result = await runtime.run({
          program: clock,
          ...(startTime === 0 ? {} : { deterministic: { seed: 5, startTime } }),
        });
        expect(result.ok).toBe(true);
        results.push(result.ok ? (result.value as { origin: number; now: number; random: number }) : undefined);
      }
      expect(results[0]).toMatchObject({ origin: 1_000, now: 1_005 });
      expect(results[2]).toMatchObject({ origin: 2_000, now: 2_005 });
      expect(results[4]).toEqual(results[0]);
      // A plain run reads the real clock: its time origin is when it started, not when its context
      // was made (while the thread waited, here at least 20 ms earlier).
      await new Promise((resolve) => setTimeout(resolve, 20));
      const before = Date.now();
      const plain = await runtime.run({ program: clock });
      expect(plain.ok && (plain.value as { origin: number }).origin).toBeGreaterThanOrEqual(before);
    } finally {
      await runtime.dispose();
    }
  }, 60_000);
});

describe('QuickJS local time', () => {
  it('is UTC whatever time zone the host process has, so a deterministic run reads the same hours everywhere', () => {
    const script = `
import { createQuickJsCodeRuntime } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
const runtime = createQuickJsCodeRuntime({ poolSize: 1, deterministic: { seed: 1, startTime: Date.UTC(2024, 2, 5, 10) } });
const result = await runtime.run({ program: 'const d = new Date(); return [d.getHours(), d.getDay(), d.getTimezoneOffset(), new Date(2024, 6, 1).toISOString(), String(d)];' });
await runtime.dispose();
process.stdout.write(JSON.stringify(result.ok ? result.value : result.failure));
`;
    const outputs = ['America/New_York', 'Asia/Kolkata', 'UTC'].map((zone) =>
      execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, TZ: zone },
        encoding: 'utf8',
      }),
    );
    expect(JSON.parse(outputs[0]!)).toEqual([
      10,
      2,
      0,
      '2024-07-01T00:00:00.000Z',
      'Tue Mar 05 2024 10:00:00 GMT+0000',
    ]);
    expect(new Set(outputs).size).toBe(1);
  }, 60_000);
});
