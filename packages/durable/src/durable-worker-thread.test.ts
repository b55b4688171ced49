import { createWorkerThreadCodeRuntime, type WorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import type { PolicyRule, Tool } from '@sluice/permissions';
import { createPGliteRunStore, type RunStore } from '@sluice/run-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { okValue, slowSearchTools, startedRun } from './__fixtures__/durable-test-kit.js';
import { createDurableRuns } from './index.js';

// The worker-thread provider's deterministic mode under durable runs: the same journal, replay and
// pause as on QuickJS (durable-runs.test.ts), on a V8 context in a worker process.

let runtime: WorkerThreadCodeRuntime;
let store: RunStore;

beforeAll(async () => {
  runtime = createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 10_000 });
  store = createPGliteRunStore();
  await Promise.all([store.readValues('warm-up'), runtime.run({ program: 'return 1' })]);
}, 60_000);

afterAll(async () => {
  await runtime.dispose();
  await store.close();
});

function durableRuns(tools: Tool[], rules: PolicyRule[] = []) {
  return createDurableRuns({ runtime, store, tools, policy: { default: 'allow', rules } });
}

describe('durable runs on the worker-thread runtime', () => {
  it('records the fingerprint of the worker-thread runtime', () => {
    const runs = durableRuns([]);
    expect(runs.fingerprint).toMatch(/^v8-[^:]+:[0-9a-f]{32}\+durable-/);
  });

  it('replays journaled calls on resume, Promise.all included, and gives the value the first run would have', async () => {
    const { invoked, tool } = slowSearchTools();
    const runs = durableRuns([tool('search'), tool('fetch')]);
    const program = `
const order: string[] = [];
const [a, b] = await Promise.all(['search', 'fetch'].map(async (name) => {
  const reply = await (name === 'search' ? tools.search({ q: 'one' }) : tools.fetch({ id: 2 }));
  order.push(name);
  return reply.n;
}));
const c = (await tools.search({ q: 'three', at: Date.now() })).n;
return { a, b, c, order, at: Date.now(), r: Math.random() };`;
    // A host died after committing the outcomes of the Promise.all's two calls (the second first).
    const runId = await startedRun(store, { language: 'typescript', fingerprint: runs.fingerprint, program });
    await store.recordIntent(runId, 1, { namespace: 'tools', name: 'search', input: { q: 'one' } });
    await store.recordIntent(runId, 2, { namespace: 'tools', name: 'fetch', input: { id: 2 } });
    await store.recordOutcome(runId, 2, { ok: true, value: { n: 102 } });
    await store.recordOutcome(runId, 1, { ok: true, value: { n: 101 } });
    const resumed = await runs.resume(runId);
    // Two results from the journal and one live call: the clock reads 3 ms past the start.
    expect(okValue(resumed)).toMatchObject({ a: 101, b: 102, c: 1, order: ['search', 'fetch'], at: 1_700_000_000_003 });
    expect(invoked).toEqual(['search {"q":"three","at":1700000000002}']);

    // A first run journals its calls in the order the program made them, not the order they finished.
    const fresh = await runs.start({ program });
    expect(okValue(fresh)).toMatchObject({ a: 2, b: 3, c: 4, order: ['search', 'fetch'], at: expect.any(Number) });
    const journal = await store.readJournal(fresh.runId);
    expect(journal.map((entry) => [entry.seq, entry.intent.name, entry.outcome?.ok])).toEqual([
      [1, 'search', true],
      [2, 'fetch', true],
      [3, 'search', true],
    ]);
    expect(invoked).toHaveLength(4);
  }, 60_000);

  it('pauses on ask and resumes by replay, with the clock and randomness the first run had', async () => {
    const { invoked, tool } = slowSearchTools();
    const runs = durableRuns(
      [tool('lookup'), tool('pay')],
      [{ tool: 'pay', effect: 'ask', description: 'payments need a person' }],
    );
    const paused = await runs.start({
      program: `
const seen = await tools.lookup({});
const before = { at: Date.now(), r: Math.random(), id: crypto.randomUUID() };
console.log('before', JSON.stringify(before));
await new Promise((resolve) => setTimeout(resolve, 1_000));
const paid = await tools.pay({ amount: 40 });
console.log('after', paid.n);
return { before, paid: paid.input.amount, waited: Date.now() - before.at, lookup: seen.n };`,
    });
    if (paused.status !== 'paused') throw new Error(`expected a pause, got ${JSON.stringify(paused)}`);
    expect(paused.pause).toMatchObject({ tool: 'pay', input: { amount: 40 } });
    const firstLogs = paused.result.logs.map((line) => line.text);
    expect(firstLogs).toHaveLength(1);
    expect(invoked).toEqual(['lookup {}']);

    const done = await runs.decide(paused.pause.token, { decision: 'allow' });
    expect(done.status).toBe('finished');
    const logs = done.result.logs.map((line) => line.text);
    // The replayed run printed the same first line: same clock, same seed, same recorded result.
    expect(logs).toEqual([firstLogs[0], 'after 2']);
    const before = JSON.parse(firstLogs[0]!.slice('before '.length)) as { at: number };
    expect(okValue(done)).toEqual({ before, paid: 40, waited: 1_001, lookup: 1 });
    expect(invoked).toEqual(['lookup {}', 'pay {"amount":40}']);
  }, 60_000);
});
