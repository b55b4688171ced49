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

describe('QuickJS determinism per run (request.deterministic)', () => {
  // Host results that arrive in the opposite order of the calls: a deterministic run still sees
  // them in call order, so the interleaving of its logs cannot depend on the host's timing.
  const bindings = {
    tools: {
      echo: async (input: unknown) => {
        const { delayMs } = input as { delayMs: number };
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        return input as { delayMs: number };
      },
    },
  };
  const fanOut = `
const order = [];
await Promise.all([30, 1].map(async (delayMs) => { await tools.echo({ delayMs }); order.push(delayMs); }));
return { order, at: Date.now(), random: Math.random() };
`;

  it('makes one runtime give repeatable runs with different seeds, and ordinary runs between them', async () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 1 });
    try {
      const run = async (seed: number) => {
        const result = await runtime.run({ program: fanOut, bindings, deterministic: { seed, startTime: 5_000 } });
        return JSON.stringify({ ok: result.ok, value: result.ok ? result.value : result.failure, logs: result.logs });
      };
      const first = await run(11);
      const plain = await runtime.run({ program: 'return Date.now() > 1_700_000_000_000', bindings });
      expect(plain).toMatchObject({ ok: true, value: true });
      expect(await run(11)).toBe(first);
      expect(await run(12)).not.toBe(first);
      expect(JSON.parse(first)).toMatchObject({ ok: true, value: { order: [30, 1], at: 5_002 } });
    } finally {
      await runtime.dispose();
    }
  }, 60_000);

  it('publishes a fingerprint that names the engine', () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 1 });
    expect(runtime.determinism.fingerprint).toMatch(/^quickjs-ng:[0-9a-f]{32}$/);
    expect(createQuickJsCodeRuntime({ poolSize: 1 }).determinism.fingerprint).toBe(runtime.determinism.fingerprint);
  });

  it('refuses a malformed determinism before anything runs', () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 1 });
    expect(() => runtime.start({ program: 'return 1', deterministic: { seed: -1, startTime: 0 } })).toThrow(
      /seed must be an integer in \[0, 2\^32\)/,
    );
    expect(() => runtime.start({ program: 'return 1', deterministic: { seed: 1, startTime: Number.NaN } })).toThrow(
      /startTime must be milliseconds since the Unix epoch/,
    );
  });
});

describe('QuickJS determinism: results arriving together or apart', () => {
  // Two chains that each await again after their host result: the program must interleave the
  // same way whether the host answers both at once or one after the other, or a durable replay
  // (which answers journaled calls at once) could differ from the run it replays.
  const program = `
const chain = async (name) => {
  const reply = await tools.echo({ name });
  console.log(name, 1, Date.now());
  await null;
  console.log(name, 2, Date.now());
  return reply.name;
};
return await Promise.all([chain('a'), chain('b')]);
`;

  it('interleaves the same for every order and timing of the answers', async () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 1 });
    try {
      const logsFor = async (delays: Record<string, number>) => {
        const result = await runtime.run({
          program,
          deterministic: { seed: 1, startTime: 0 },
          bindings: {
            tools: {
              echo: async (input) => {
                const { name } = input as { name: string };
                await new Promise((resolve) => setTimeout(resolve, delays[name]));
                return input;
              },
            },
          },
        });
        expect(result.ok).toBe(true);
        return result.logs.map((line) => line.text).join(' | ');
      };
      const together = await logsFor({ a: 0, b: 0 });
      expect(together).toBe('a 1 1 | a 2 1 | b 1 2 | b 2 2');
      expect(await logsFor({ a: 0, b: 40 })).toBe(together);
      expect(await logsFor({ a: 40, b: 0 })).toBe(together);
    } finally {
      await runtime.dispose();
    }
  }, 60_000);
});
