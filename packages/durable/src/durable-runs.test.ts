import type { CodeRuntime, JsonValue } from '@sluice/code-runtime';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import type { Tool } from '@sluice/permissions';
import { createPGliteRunStore, createPostgresRunStore, type RunStore } from '@sluice/run-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from './__fixtures__/test-stores.js';
import { createDurableRuns, type DurableOutcome, DurableRunError, type DurableRunsOptions } from './index.js';

let runtime: CodeRuntime;
let store: RunStore;

beforeAll(async () => {
  runtime = createQuickJsCodeRuntime({ poolSize: 2, wallTimeMs: 10_000 });
  await runtime.run({ program: 'return 1' });
}, 60_000);

afterAll(async () => {
  await runtime.dispose();
});

/** Every behaviour below runs on both stores: the embedded one, and a database on the package's test PostgreSQL. */
const stores: Record<string, () => Promise<{ store: RunStore; stop: () => Promise<void> }>> = {
  'the embedded store (PGlite)': async () => ({ store: createPGliteRunStore(), stop: async () => {} }),
  PostgreSQL: async () => ({
    store: createPostgresRunStore({ connectionString: await freshPostgresDatabase('durable_runs') }),
    stop: async () => {},
  }),
};

/** Tools that count their invocations, so a test can tell a replayed call from a live one. */
function countingTools() {
  const invoked: string[] = [];
  const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
    execute: (input) => {
      invoked.push(`${name} ${JSON.stringify(input)}`);
      return { name, input, n: invoked.length };
    },
    ...extra,
  });
  return { invoked, tool };
}

function value(outcome: DurableOutcome): JsonValue | undefined {
  expect(outcome.result.ok, JSON.stringify(outcome.result)).toBe(true);
  return outcome.result.ok ? outcome.result.value : undefined;
}

function durable(options: Partial<DurableRunsOptions> & Pick<DurableRunsOptions, 'tools' | 'policy'>) {
  return createDurableRuns({ runtime, store, ...options });
}

describe.each(Object.keys(stores))('durable runs on %s', (name) => {
  let stop: () => Promise<void> = async () => {};
  beforeAll(async () => {
    ({ store, stop } = await (stores[name] as (typeof stores)[string])());
    // The embedded database loads on first use (seconds on a busy machine).
    await store.readValues('warm-up');
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await stop();
  });

  describe('durable runs: the journal', () => {
    it('journals each call in the order the program made it, intent and outcome, Promise.all included', async () => {
      const { tool } = countingTools();
      const runs = durable({ tools: [tool('search'), tool('fetch')], policy: { default: 'allow', rules: [] } });
      const outcome = await runs.start({
        program: `
const [a, b] = await Promise.all([tools.search({ q: 'one' }), tools.fetch({ id: 2 })]);
const c = await tools.search({ q: 'three' });
return [a.input, b.input, c.input];`,
      });
      expect(outcome.status).toBe('finished');
      expect(value(outcome)).toEqual([{ q: 'one' }, { id: 2 }, { q: 'three' }]);
      const journal = await store.readJournal(outcome.runId);
      expect(journal.map((entry) => [entry.seq, entry.intent.name, entry.intent.input, entry.outcome?.ok])).toEqual([
        [1, 'search', { q: 'one' }, true],
        [2, 'fetch', { id: 2 }, true],
        [3, 'search', { q: 'three' }, true],
      ]);
      expect((await store.getRun(outcome.runId))?.status).toBe('finished');
    });

    it('journals calls as mapBindings adapts them', async () => {
      const { tool } = countingTools();
      const runs = durable({
        tools: [tool('list')],
        policy: { default: 'allow', rules: [] },
        mapBindings: (bindings) => ({
          tools: { list: (input, context) => bindings.tools!.list!(input === null ? {} : input, context) },
        }),
      });
      const outcome = await runs.start({ program: 'return (await tools.list()).input;' });
      expect(value(outcome)).toEqual({});
      expect((await store.readJournal(outcome.runId))[0]?.intent.input).toBeNull();
    });

    it('journals a refused or failing call as the error the program saw', async () => {
      const runs = durable({
        tools: [
          {
            name: 'boom',
            description: 'fails',
            inputSchema: { type: 'object' },
            execute: () => {
              throw new Error('the disk is full');
            },
          },
        ],
        policy: { default: 'allow', rules: [] },
      });
      const outcome = await runs.start({
        program: `try { await tools.boom({}); } catch (error) { return String(error.message); }`,
      });
      expect(value(outcome)).toMatch(/the disk is full/);
      const [entry] = await store.readJournal(outcome.runId);
      expect(entry?.outcome).toMatchObject({ ok: false, message: expect.stringMatching(/the disk is full/) });
    });

    it('refuses bad options with a message naming the setting', () => {
      const base = { runtime, store, tools: [], policy: { default: 'allow' as const, rules: [] } };
      expect(() => createDurableRuns({ ...base, leaseMs: 5 })).toThrow(
        /leaseMs must be an integer number of milliseconds from 100/,
      );
      expect(() => createDurableRuns({ ...base, pauseTtlMs: 2 ** 40 })).toThrow(/pauseTtlMs must be/);
      expect(() => createDurableRuns({ ...base, store: {} as RunStore })).toThrow(/store must be a run store/);
    });

    it('refuses a runtime that cannot run deterministically, naming one that can', () => {
      const plain = { ...runtime, id: 'plain', determinism: undefined } as unknown as CodeRuntime;
      expect(() =>
        createDurableRuns({ runtime: plain, store, tools: [], policy: { default: 'allow', rules: [] } }),
      ).toThrow(/plain code runtime cannot run programs deterministically.*quickjs, worker-thread or python provider/);
    });
  });

  describe('durable runs: replay and divergence', () => {
    it('answers journaled calls from the journal on resume: the tools are not called again', async () => {
      const { invoked, tool } = countingTools();
      const runs = durable({ tools: [tool('step')], policy: { default: 'allow', rules: [] } });
      // A journal as a host that died after two calls leaves it: a running run with two outcomes.
      const runId = await startedRun(
        runs.fingerprint,
        'const out = []; for (let i = 1; i <= 3; i++) out.push((await tools.step({ i })).n); return { out, at: Date.now(), r: Math.random() };',
      );
      await store.recordIntent(runId, 1, { namespace: 'tools', name: 'step', input: { i: 1 } });
      await store.recordOutcome(runId, 1, { ok: true, value: { n: 101 } });
      await store.recordIntent(runId, 2, { namespace: 'tools', name: 'step', input: { i: 2 } });
      await store.recordOutcome(runId, 2, { ok: true, value: { n: 102 } });
      const outcome = await runs.resume(runId);
      expect(value(outcome)).toMatchObject({ out: [101, 102, 1], at: 1_700_000_000_003 });
      expect(outcome.journal).toMatchObject({ calls: 3, replayed: 2, writes: 2 });
      expect(invoked).toEqual(['step {"i":3}']);
      // A finished run resumes to its stored outcome, nothing run again.
      expect(await runs.resume(runId)).toEqual(JSON.parse(JSON.stringify(outcome)));
      expect(invoked).toHaveLength(1);
    });

    it('ends with a divergence naming both calls when the program asks for another call than the journal holds', async () => {
      const { invoked, tool } = countingTools();
      const runs = durable({ tools: [tool('charge'), tool('refund')], policy: { default: 'allow', rules: [] } });
      const runId = await startedRun(runs.fingerprint, `await tools.refund({ order: 7 }); return 'done';`);
      await store.recordIntent(runId, 1, { namespace: 'tools', name: 'charge', input: { order: 7 } });
      await store.recordOutcome(runId, 1, { ok: true, value: null });
      const outcome = await runs.resume(runId);
      expect(outcome.status).toBe('diverged');
      expect(outcome.status === 'diverged' && outcome.message).toMatch(
        /call 1 was tools\.charge\(\{"order":7\}\) when the run started, and is tools\.refund\(\{"order":7\}\) now/,
      );
      expect(outcome.result).toMatchObject({ ok: false, failure: { kind: 'abort' } });
      expect(invoked).toEqual([]);
    });

    it('refuses to replay a run recorded under another fingerprint', async () => {
      const runs = durable({ tools: [], policy: { default: 'allow', rules: [] } });
      const runId = await startedRun('quickjs-ng:0000+durable-1', 'return 1');
      await expect(runs.resume(runId)).rejects.toThrow(/started under quickjs-ng:0000\+durable-1 and this host runs/);
      await expect(runs.resume('durable_nope')).rejects.toBeInstanceOf(DurableRunError);
    });

    it('reruns an in-flight call only for a replay-safe tool; otherwise the program gets an interrupted error', async () => {
      const { invoked, tool } = countingTools();
      const runs = durable({
        tools: [tool('read', { replay: 'safe' }), tool('send')],
        policy: { default: 'allow', rules: [] },
      });
      const program = `
const got = await tools.read({ id: 1 });
try { await tools.send({ to: 'ann' }); return { got: got.n, sent: true }; }
catch (error) { return { got: got.n, sent: String(error.message) }; }`;
      const inFlightRead = await startedRun(runs.fingerprint, program);
      await store.recordIntent(inFlightRead, 1, { namespace: 'tools', name: 'read', input: { id: 1 } });
      expect(value(await runs.resume(inFlightRead))).toEqual({ got: 1, sent: true });
      expect(invoked).toEqual(['read {"id":1}', 'send {"to":"ann"}']);

      const inFlightSend = await startedRun(runs.fingerprint, program);
      await store.recordIntent(inFlightSend, 1, { namespace: 'tools', name: 'read', input: { id: 1 } });
      await store.recordOutcome(inFlightSend, 1, { ok: true, value: { n: 9 } });
      await store.recordIntent(inFlightSend, 2, { namespace: 'tools', name: 'send', input: { to: 'ann' } });
      const outcome = await runs.resume(inFlightSend);
      expect(value(outcome)).toEqual({ got: 9, sent: expect.stringMatching(/^interrupted: tools\.send was running/) });
      expect(invoked).toHaveLength(2);
      // The interruption is journaled, so a later replay gives the program the same error.
      expect((await store.readJournal(inFlightSend))[1]?.outcome).toMatchObject({ ok: false });
    });
  });

  describe('durable runs: pause for approval', () => {
    const program = `
console.log('before');
const paid = await tools.pay({ amount: 40 });
console.log('after', paid.n);
return { paid: paid.input.amount, at: Date.now() };`;

    it('pauses on ask, resumes by replay on allow, and gives the same outcome when decided twice', async () => {
      const { invoked, tool } = countingTools();
      const runs = durable({
        tools: [tool('lookup'), tool('pay')],
        policy: { default: 'allow', rules: [{ tool: 'pay', effect: 'ask', description: 'payments need a person' }] },
      });
      const paused = await runs.start({ program: `await tools.lookup({}); ${program}` });
      expect(paused.status).toBe('paused');
      if (paused.status !== 'paused') return;
      expect(paused.pause).toMatchObject({
        tool: 'pay',
        binding: 'tools.pay',
        input: { amount: 40 },
        reason: 'payments need a person',
      });
      expect(paused.result.logs.map((line) => line.text)).toEqual(['before']);
      expect(invoked).toEqual(['lookup {}']);
      expect((await store.getRun(paused.runId))?.status).toBe('paused');
      await expect(runs.resume(paused.runId)).rejects.toThrow(/waits for an approval of pay: continue it with decide/);

      const done = await runs.decide(paused.pause.token, { decision: 'allow' });
      expect(done.status).toBe('finished');
      expect(value(done)).toMatchObject({ paid: 40 });
      expect(done.result.logs.map((line) => line.text)).toEqual(['before', 'after 2']);
      expect(invoked).toEqual(['lookup {}', 'pay {"amount":40}']);

      expect(done.decision).toEqual({ applied: true, decision: { decision: 'allow' } });
      const again = await runs.decide(paused.pause.token, { decision: 'deny' });
      // The first decision stands: the second changed nothing, and says so.
      expect(again).toEqual({
        ...JSON.parse(JSON.stringify(done)),
        decision: { applied: false, decision: { decision: 'allow' } },
      });
      expect(invoked).toHaveLength(2);
    });

    it('pauses for each asking call in turn when two ask at once, and continues after both are decided', async () => {
      const { invoked, tool } = countingTools();
      const runs = durable({ tools: [tool('pay'), tool('note')], policy: { default: 'ask', rules: [] } });
      const first = await runs.start({
        program: `const [a, b] = await Promise.all([tools.pay({ to: 'a' }), tools.pay({ to: 'b' })]); return [a.input.to, b.input.to];`,
      });
      if (first.status !== 'paused') throw new Error(`expected a pause, got ${first.status}`);
      expect(first.pause.input).toEqual({ to: 'a' });
      const second = await runs.decide(first.pause.token, { decision: 'allow' });
      if (second.status !== 'paused') throw new Error(`expected a second pause, got ${second.status}`);
      expect(second.pause.input).toEqual({ to: 'b' });
      await expect(runs.resume(first.runId)).rejects.toThrow(/waits for an approval of pay/);
      const done = await runs.decide(second.pause.token, { decision: 'allow' });
      expect(value(done)).toEqual(['a', 'b']);
      expect(invoked).toEqual(['pay {"to":"a"}', 'pay {"to":"b"}']);
    });

    it('gives the program the denial, with its reason, when the decision is deny', async () => {
      const { invoked, tool } = countingTools();
      const runs = durable({ tools: [tool('pay')], policy: { default: 'ask', rules: [] } });
      const paused = await runs.start({
        program: `try { await tools.pay({ amount: 1 }); return 'paid'; } catch (error) { return String(error.message); }`,
      });
      if (paused.status !== 'paused') throw new Error(`expected a pause, got ${paused.status}`);
      const done = await runs.decide(paused.pause.token, { decision: 'deny', reason: 'not this month' });
      expect(value(done)).toMatch(/not this month/);
      expect(invoked).toEqual([]);
    });

    it('refuses an unknown token and an expired one with a clear error', async () => {
      const { tool } = countingTools();
      const runs = durable({ tools: [tool('pay')], policy: { default: 'ask', rules: [] }, pauseTtlMs: 1 });
      await expect(runs.decide('pause_unknown', { decision: 'allow' })).rejects.toThrow(/no pause with this token/);
      const paused = await runs.start({ program: 'await tools.pay({}); return 1' });
      if (paused.status !== 'paused') throw new Error(`expected a pause, got ${paused.status}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await expect(runs.decide(paused.pause.token, { decision: 'allow' })).rejects.toThrow(/expired/);
    });
  });

  describe('durable runs: sluice.store and sluice.load', () => {
    it('commits values when a run succeeds, for the next run of the conversation only', async () => {
      const runs = durable({ tools: [], policy: { default: 'allow', rules: [] } });
      const conversation = `c-${Math.random()}`;
      const first = await runs.start({
        conversation,
        program: `await sluice.store('seen', { ids: [1, 2] }); return await sluice.load('seen');`,
      });
      expect(value(first)).toEqual({ ids: [1, 2] });
      const second = await runs.start({ conversation, program: `return await sluice.load('seen');` });
      expect(value(second)).toEqual({ ids: [1, 2] });
      const other = await runs.start({
        conversation: `${conversation}-other`,
        program: `return await sluice.load('seen');`,
      });
      expect(value(other)).toBeNull();
    });

    it('commits nothing from a run that fails', async () => {
      const runs = durable({ tools: [], policy: { default: 'allow', rules: [] } });
      const conversation = `c-${Math.random()}`;
      const failed = await runs.start({ conversation, program: `await sluice.store('x', 1); throw new Error('no');` });
      expect(failed.result.ok).toBe(false);
      expect(await store.readValues(conversation)).toEqual({});
    });

    it('refuses a value over 256 Ki characters, and a run without a conversation', async () => {
      const runs = durable({ tools: [], policy: { default: 'allow', rules: [] } });
      const big = await runs.start({
        conversation: 'c-big',
        program: `try { await sluice.store('big', 'x'.repeat(300_000)); } catch (error) { return error.message; }`,
      });
      expect(value(big)).toMatch(/is 300002 characters of JSON; the limit is 262144 a value/);
      const none = await runs.start({
        program: `try { await sluice.load('k'); } catch (error) { return error.message; }`,
      });
      expect(value(none)).toMatch(/needs a conversation/);
    });
  });
});

/** A run as a host leaves it when it dies right after creating it: a start record, owner gone. */
async function startedRun(fingerprint: string, program: string): Promise<string> {
  const runId = `durable_test_${Math.random().toString(36).slice(2)}`;
  await store.createRun(
    {
      runId,
      program,
      language: 'typescript',
      seed: 3,
      startTime: 1_700_000_000_000,
      fingerprint,
      metadata: { values: {} },
    },
    'a-host-that-died',
    1,
  );
  await new Promise((resolve) => setTimeout(resolve, 5));
  return runId;
}
