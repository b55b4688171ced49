import { randomUUID } from 'node:crypto';
import type { Tool } from '@sluice/permissions';
import { describe, expect, it } from 'vitest';
import { okValue } from './__fixtures__/durable-test-kit.js';
import {
  type FaultyRunStore,
  faultyRunStore,
  type StoreFault,
  type StoreMethod,
  storeFaultMessage,
} from './__fixtures__/faulty-run-store.js';
import { useQuickJsAndStore } from './__fixtures__/quickjs-and-store.js';
import { createDurableRuns, type DurableOutcome, DurableRunError, type DurableRunsOptions } from './index.js';

// A run store that fails while a run goes on: the run stops with a DurableRunError that names the
// store's failure, nothing escapes as an unhandled rejection or exception, and once the store works
// again the run continues from its journal (from another host, so the failed one let the run go).

const env = useQuickJsAndStore(2);

/** `step` answers with how many times a tool has run; `wait` answers once `until` resolves. */
function steppingTools(until: Promise<unknown> = Promise.resolve()) {
  const invoked: string[] = [];
  const tool = (name: string, execute: Tool['execute'], extra: Partial<Tool> = {}): Tool => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
    execute: async (input, context) => {
      invoked.push(`${name} ${JSON.stringify(input)}`);
      return execute(input, context);
    },
    ...extra,
  });
  const tools = [
    tool('step', () => ({ n: invoked.length })),
    tool('wait', async () => {
      await until;
      return 'waited';
    }),
    tool('pay', () => 'paid'),
  ];
  return { invoked, tools };
}

function hosts(faulty: FaultyRunStore, tools: readonly Tool[], extra: Partial<DurableRunsOptions> = {}) {
  const options = {
    runtime: env.runtime,
    tools,
    policy: { default: 'allow', rules: [{ tool: 'pay', effect: 'ask', description: 'payments need a person' }] },
    ...extra,
  } as const;
  return {
    first: createDurableRuns({ ...options, store: faulty.store, owner: 'first-host' }),
    // Shares the database, not the faults: it can resume only what the first host let go.
    second: createDurableRuns({ ...options, store: env.store, owner: 'second-host' }),
  };
}

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if ('value' in outcome) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  expect(DurableRunError.isInstance(outcome.error), String(outcome.error)).toBe(true);
  return outcome.error as Error;
}

const runIds = () => `durable_store_fault_${randomUUID()}`;

/** Three calls in turn, each error caught and reduced to its first word. */
const threeSteps = `
const out = [];
for (let i = 1; i <= 3; i++) {
  try { out.push((await tools.step({ i })).n); } catch (error) { out.push(String(error.message).split(':')[0]); }
}
return out;`;

describe('durable runs on a run store that fails mid-run', { timeout: 30_000 }, () => {
  it.each<[StoreMethod, StoreFault]>([
    ['recordIntent', 'reject'],
    ['recordIntent', 'throw'],
    ['recordOutcome', 'reject'],
    ['recordOutcome', 'throw'],
  ])(
    'stops the run when the second %s write fails (%s), and another host resumes it from the journal',
    async (method, fault) => {
      // A lost outcome: the second call ran, is not run again, and the program is told it was interrupted.
      const lost = method === 'recordOutcome';
      const steps = ['step {"i":1}', 'step {"i":2}', 'step {"i":3}'];
      const faulty = faultyRunStore(env.store);
      const { invoked, tools } = steppingTools();
      const { first, second } = hosts(faulty, tools);
      faulty.failOn(method, 2, fault);
      const runId = runIds();
      const error = await rejectionOf(first.start({ runId, program: threeSteps }));
      expect(error.message).toMatch(new RegExp(`run store failed.*${storeFaultMessage}.*Resume run ${runId}`));
      expect(invoked).toEqual(steps.slice(0, lost ? 2 : 1));
      expect((await env.store.getRun(runId))?.status).toBe('running');

      faulty.heal();
      const outcome = await second.resume(runId);
      expect(okValue(outcome)).toEqual(lost ? [1, 'interrupted', 3] : [1, 2, 3]);
      expect(invoked).toEqual(steps);
      const journal = await env.store.readJournal(runId);
      expect(journal.map((entry) => entry.outcome?.ok)).toEqual([true, !lost, true]);
    },
  );

  it('keeps the program waiting while a write hangs, and goes on when it goes through', async () => {
    const faulty = faultyRunStore(env.store);
    const { invoked, tools } = steppingTools();
    const { first } = hosts(faulty, tools);
    faulty.failOn('recordOutcome', 1, 'stall');
    const started = first.start({ runId: runIds(), program: threeSteps });
    await faulty.struck;
    // The result is not given to the program before its outcome is committed: no second call yet.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(invoked).toEqual(['step {"i":1}']);
    expect(faulty.calls.filter((call) => call === 'recordIntent')).toHaveLength(1);
    faulty.release();
    const outcome = await started;
    expect(okValue(outcome)).toEqual([1, 2, 3]);
    expect(outcome.journal).toMatchObject({ calls: 3, writes: 6 });
  });

  it('does not run a call whose intent was committed only after the run ended', async () => {
    const faulty = faultyRunStore(env.store);
    const { invoked, tools } = steppingTools();
    const { first } = hosts(faulty, tools);
    faulty.failOn('recordIntent', 1, 'stall');
    // The program does not wait for its call: the run ends while the intent is being written.
    const outcome = await first.start({ runId: runIds(), program: `tools.step({ i: 1 }); return 'done';` });
    expect(okValue(outcome)).toBe('done');
    faulty.release();
    // The late write carried the lease the finished run let go: the store refused it.
    expect(String(await faulty.stalled)).toMatch(/RunStoreLeaseLostError/);
    expect(await env.store.readJournal(outcome.runId)).toEqual([]);
    // Time for the host function to have been called, had the late write led to it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(invoked).toEqual([]);
  });

  it.each<StoreFault>(['reject', 'throw'])(
    'rejects start with the store failure when the start record cannot be written (%s), and runs nothing',
    async (fault) => {
      const faulty = faultyRunStore(env.store);
      const { invoked, tools } = steppingTools();
      const { first } = hosts(faulty, tools);
      faulty.failOn('createRun', 1, fault);
      const runId = runIds();
      const error = await rejectionOf(first.start({ runId, program: threeSteps }));
      expect(error.message).toMatch(new RegExp(`start record of run ${runId}.*${storeFaultMessage}`));
      expect(invoked).toEqual([]);
      faulty.heal();
      expect(okValue(await first.start({ runId, program: threeSteps }))).toEqual([1, 2, 3]);
    },
  );

  it('rejects start with the store failure when the conversation cannot be read', async () => {
    const faulty = faultyRunStore(env.store);
    const { first } = hosts(faulty, []);
    faulty.failOn('readValues', 1, 'throw');
    const error = await rejectionOf(first.start({ program: 'return 1', conversation: 'c-faulty' }));
    expect(error.message).toMatch(new RegExp(`c-faulty.*${storeFaultMessage}`));
  });

  it('rejects when the outcome cannot be recorded, and another host finishes the run from the journal alone', async () => {
    const faulty = faultyRunStore(env.store);
    const { invoked, tools } = steppingTools();
    const { first, second } = hosts(faulty, tools);
    faulty.failOn('setStatus', 1, 'reject');
    const runId = runIds();
    const error = await rejectionOf(first.start({ runId, program: threeSteps }));
    expect(error.message).toMatch(new RegExp(`${storeFaultMessage}.*${runId}`));
    faulty.heal();
    const outcome = await second.resume(runId);
    expect(okValue(outcome)).toEqual([1, 2, 3]);
    expect(outcome.journal).toMatchObject({ calls: 3, replayed: 3, writes: 0 });
    expect(invoked).toHaveLength(3);
    expect((await env.store.getRun(runId))?.status).toBe('finished');
  });

  it('lets the run go when its journal cannot be read on resume, so another host can resume it at once', async () => {
    const faulty = faultyRunStore(env.store);
    const { invoked, tools } = steppingTools();
    const { first, second } = hosts(faulty, tools);
    const runId = runIds();
    faulty.failOn('setStatus', 1, 'reject');
    await rejectionOf(first.start({ runId, program: threeSteps }));
    faulty.failOn('readJournal', 1, 'reject');
    const error = await rejectionOf(first.resume(runId));
    expect(error.message).toMatch(new RegExp(`journal of run ${runId}.*${storeFaultMessage}`));
    faulty.heal();
    expect(okValue(await second.resume(runId))).toEqual([1, 2, 3]);
    expect(invoked).toHaveLength(3);
  });

  it.each<StoreFault>(['throw', 'reject'])(
    'finishes the run when renewing its lease fails (%s): the lease then lapses on its own',
    async (fault) => {
      const faulty = faultyRunStore(env.store);
      faulty.failOn('renewRun', 1, fault);
      // The call lasts until the renewal (a third of the lease in) has failed. The lease is long enough
      // that a loaded machine still reaches the call before it lapses by the host's own clock.
      const { tools } = steppingTools(faulty.struck);
      const { first } = hosts(faulty, tools, { leaseMs: 2000 });
      expect(okValue(await first.start({ program: 'return await tools.wait({});' }))).toBe('waited');
    },
  );

  it.each<StoreFault>(['throw', 'reject'])('gives the outcome when letting the run go fails (%s)', async (fault) => {
    const faulty = faultyRunStore(env.store);
    const { tools } = steppingTools();
    const { first } = hosts(faulty, tools);
    faulty.failOn('releaseRun', 1, fault);
    const outcome = await first.start({ program: threeSteps });
    expect(okValue(outcome)).toEqual([1, 2, 3]);
    expect((await env.store.getRun(outcome.runId))?.status).toBe('finished');
  });

  it('stops a run whose pause cannot be written; on resume the call asking is interrupted, never run', async () => {
    const faulty = faultyRunStore(env.store);
    const { invoked, tools } = steppingTools();
    const { first, second } = hosts(faulty, tools);
    faulty.failOn('createPause', 1, 'reject');
    const runId = runIds();
    const program = `await tools.step({ i: 1 });
try { return await tools.pay({}); } catch (error) { return String(error.message).split(':')[0]; }`;
    const error = await rejectionOf(first.start({ runId, program }));
    expect(error.message).toMatch(new RegExp(`run store failed.*${storeFaultMessage}.*Resume run ${runId}`));
    faulty.heal();
    // Nothing records that the call only waited for an approval: as after a crash, it is not run blind.
    expect(okValue(await second.resume(runId))).toBe('interrupted');
    expect(invoked).toEqual(['step {"i":1}']);
  });

  it('lets a paused run go when its pauses cannot be read on resume', async () => {
    const faulty = faultyRunStore(env.store);
    const { tools } = steppingTools();
    const { first, second } = hosts(faulty, tools);
    const paused = await first.start({ program: 'return await tools.pay({});' });
    faulty.failOn('listPauses', 1, 'reject');
    const error = await rejectionOf(first.resume(paused.runId));
    expect(error.message).toMatch(new RegExp(`pauses of run ${paused.runId}.*${storeFaultMessage}`));
    // Not held by the first host: the second is told what the run waits for.
    await expect(second.resume(paused.runId)).rejects.toThrow(/waits for an approval of pay/);
  });

  it.each<[StoreMethod, StoreFault]>([
    ['getPause', 'throw'],
    ['decidePause', 'reject'],
    ['getRun', 'reject'],
  ])(
    'rejects decide with the store failure when %s fails (%s), and decides once the store is back',
    async (method, fault) => {
      const faulty = faultyRunStore(env.store);
      const { invoked, tools } = steppingTools();
      const { first } = hosts(faulty, tools);
      const paused = await first.start({ program: 'return await tools.pay({});' });
      if (paused.status !== 'paused') throw new Error(`expected a pause, got ${paused.status}`);
      faulty.failOn(method, 1, fault);
      const error = await rejectionOf(first.decide(paused.pause.token, { decision: 'allow' }));
      expect(error.message).toMatch(new RegExp(storeFaultMessage));
      faulty.heal();
      const done: DurableOutcome = await first.decide(paused.pause.token, { decision: 'allow' });
      expect(okValue(done)).toBe('paid');
      expect(invoked).toEqual(['pay {}']);
    },
  );
});
