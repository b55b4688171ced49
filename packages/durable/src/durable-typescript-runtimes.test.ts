import type { CodeRuntime } from '@sluice/code-runtime';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import type { PolicyRule, Tool } from '@sluice/permissions';
import { createPGliteRunStore, type RunStore } from '@sluice/run-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectPauseAndReplay,
  expectReplayOfJournaledCalls,
  payAsks,
  slowSearchTools,
} from './__fixtures__/durable-test-kit.js';
import { createDurableRuns } from './index.js';

// The same replay and pause, in TypeScript, on both TypeScript providers' deterministic modes (and in
// Python in durable-python.test.ts); durable-runs.test.ts covers the rest on QuickJS and each store.

const runtimes: Array<{ name: string; fingerprint: RegExp; create: () => CodeRuntime }> = [
  {
    name: 'worker-thread',
    fingerprint: /^v8-[^:]+:[0-9a-f]{32}\+durable-/,
    create: () => createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 10_000 }),
  },
  {
    name: 'quickjs',
    fingerprint: /^quickjs-ng:[0-9a-f]+\+durable-/,
    create: () => createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 10_000 }),
  },
];

let store: RunStore;

beforeAll(async () => {
  store = createPGliteRunStore();
  await store.readValues('warm-up');
}, 60_000);

afterAll(() => store.close());

for (const { name, fingerprint, create } of runtimes) {
  let runtime: CodeRuntime;

  beforeAll(async () => {
    runtime = create();
    await runtime.run({ program: 'return 1' });
  }, 60_000);

  afterAll(() => runtime.dispose());

  function durableRuns(tools: Tool[], rules: PolicyRule[] = []) {
    return createDurableRuns({ runtime, store, tools, policy: { default: 'allow', rules } });
  }

  describe(`durable runs on the ${name} runtime`, () => {
    it('records the fingerprint of the runtime', () => {
      expect(durableRuns([]).fingerprint).toMatch(fingerprint);
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
      await expectReplayOfJournaledCalls(runs, store, 'typescript', program, invoked);
    }, 60_000);

    it('pauses on ask and resumes by replay, with the clock and randomness the first run had', async () => {
      const { invoked, tool } = slowSearchTools();
      const runs = durableRuns([tool('lookup'), tool('pay')], payAsks);
      const program = `
const seen = await tools.lookup({});
const before = { at: Date.now(), r: Math.random(), id: crypto.randomUUID() };
console.log('before', JSON.stringify(before));
await new Promise((resolve) => setTimeout(resolve, 1_000));
const paid = await tools.pay({ amount: 40 });
console.log('after', paid.n);
return { before, paid: paid.input.amount, waited: Date.now() - before.at, lookup: seen.n };`;
      await expectPauseAndReplay(runs, program, invoked);
    }, 60_000);
  });
}
