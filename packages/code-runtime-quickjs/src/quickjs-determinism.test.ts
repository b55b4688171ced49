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
