import type { Tool, ToolExecuteContext } from '@sluice/permissions';
import type { RunStore } from '@sluice/run-store';
import { describe, expect, it } from 'vitest';
import { okValue, resumeWhenFree } from './__fixtures__/durable-test-kit.js';
import { faultyRunStore } from './__fixtures__/faulty-run-store.js';
import { useQuickJsAndStore } from './__fixtures__/quickjs-and-store.js';
import { createDurableRuns, type DurableRunsOptions } from './index.js';

// One execution of a run at a time, and nothing lost when a host lets a run go: a double decision
// or resume in one process joins the execution in flight; a host whose lease was taken over makes
// no further call; a host that closes leaves its runs resumable; a journal with a gap still replays.

const env = useQuickJsAndStore(2);

/** A side-effect ledger: every tool execution, with the idempotency key it was given. */
function ledgerTools(gate?: Promise<unknown>) {
  const ledger: string[] = [];
  const keys: string[] = [];
  let entered: () => void = () => {};
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const tool = (name: string, extra: Partial<Tool> = {}, wait = false): Tool => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
    execute: async (input, context: ToolExecuteContext) => {
      ledger.push(`${name} ${JSON.stringify(input)}`);
      keys.push(`${name} ${context.idempotencyKey}`);
      if (wait) {
        entered();
        await gate;
      }
      return { name, input };
    },
    ...extra,
  });
  return { ledger, keys, tool, inside };
}

function hostOptions(tools: readonly Tool[], extra: Partial<DurableRunsOptions> = {}): DurableRunsOptions {
  return {
    runtime: env.runtime,
    store: env.store,
    tools,
    policy: { default: 'allow', rules: [{ tool: 'refund', effect: 'ask', description: 'refunds need a person' }] },
    ...extra,
  };
}

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const refundProgram = `
const order = await tools.lookup({ id: 7 });
await tools.refund({ order: order.input.id });
await tools.email({ to: 'customer' });
return 'refunded';`;

describe('one execution per run', () => {
  it('runs an approved call and every later call once when the same token is decided twice at once', async () => {
    const { ledger, keys, tool } = ledgerTools();
    const runs = createDurableRuns(hostOptions([tool('lookup'), tool('refund'), tool('email')]));
    const paused = await runs.start({ program: refundProgram });
    if (paused.status !== 'paused') throw new Error(`expected a pause, got ${paused.status}`);
    // A double click: the same decision twice, and a conflicting one, all at once.
    const answers = await Promise.all([
      runs.decide(paused.pause.token, { decision: 'allow' }),
      runs.decide(paused.pause.token, { decision: 'allow' }),
      runs.decide(paused.pause.token, { decision: 'deny', reason: 'no' }),
    ]);
    expect(ledger).toEqual(['lookup {"id":7}', 'refund {"order":7}', 'email {"to":"customer"}']);
    for (const answer of answers) expect(okValue(answer)).toBe('refunded');
    expect(answers.filter((answer) => answer.decision.applied)).toHaveLength(1);
    expect(keys).toEqual([`lookup ${paused.runId}/1`, `refund ${paused.runId}/2`, `email ${paused.runId}/3`]);
    for (const answer of answers) expect(answer.decision.decision).toEqual({ decision: 'allow' });
  });

  it('runs each call once when a run is resumed twice at once', async () => {
    const gate = deferred();
    const { ledger, tool, inside } = ledgerTools(gate.promise);
    const tools = [tool('lookup'), tool('refund', {}, true), tool('email')];
    const crashed = createDurableRuns(
      hostOptions(tools, { policy: { default: 'allow', rules: [] }, owner: 'crashed' }),
    );
    const first = crashed.start({ program: refundProgram, runId: `twice_${Date.now()}` });
    await inside;
    // The first host lets the run go (as a deploy would); its call in flight gives `interrupted` on resume.
    await crashed.close();
    gate.resolve();
    const stopped = await first;
    expect(stopped.status).toBe('stopped');
    const runs = createDurableRuns(hostOptions(tools, { policy: { default: 'allow', rules: [] } }));
    const [a, b] = await Promise.all([runs.resume(stopped.runId), runs.resume(stopped.runId)]);
    expect(a).toBe(b);
    expect(a.result.ok).toBe(false);
    expect(JSON.stringify(a.result)).toMatch(/interrupted: tools\.refund was running when its host stopped/);
    expect(ledger).toEqual(['lookup {"id":7}', 'refund {"order":7}']);
  });

  it('stops a host that lost its lease before its next call, and reports that it lost the run', async () => {
    const gate = deferred();
    const a = ledgerTools(gate.promise);
    const b = ledgerTools();
    const policy = { default: 'allow' as const, rules: [] };
    const hostTools = (host: typeof a, wait: boolean) => [
      host.tool('lookup'),
      host.tool('refund', { replay: 'safe' }, wait),
      host.tool('email'),
    ];
    // Host A's renewals hang, as in a process that is stopped: its lease lapses while a tool runs. A
    // short lease, so B need not wait long; not shorter, or a loaded machine could make A lose it before
    // it reaches the tool.
    const faulty = faultyRunStore(env.store);
    faulty.failOn('renewRun', 1, 'stall');
    const hostA = createDurableRuns(
      hostOptions(hostTools(a, true), { policy, owner: 'host-a', leaseMs: 1000, store: faulty.store }),
    );
    const runId = `stalled_${Date.now()}`;
    const running = hostA.start({ program: refundProgram, runId });
    await a.inside;
    const hostB = createDurableRuns(hostOptions(hostTools(b, false), { policy, owner: 'host-b' }));
    const taken = await resumeWhenFree(hostB, runId);
    expect(okValue(taken)).toBe('refunded');
    // Host A wakes: its tool returns, and it finds the run taken.
    gate.resolve();
    const lost = await running;
    faulty.heal();
    expect(lost).toMatchObject({ status: 'stopped', reason: 'lease-lost' });
    if (lost.status === 'stopped')
      expect(lost.message).toMatch(/let run stalled_\d+ go: its lease lapsed.*made no further call/);
    expect(a.ledger).toEqual(['lookup {"id":7}', 'refund {"order":7}']);
    expect(b.ledger).toEqual(['refund {"order":7}', 'email {"to":"customer"}']);
    // The replay-safe call ran again on B with the key it had on A.
    expect(b.keys[0]).toBe(a.keys[1]);
    expect(a.keys).toEqual([`lookup ${runId}/1`, `refund ${runId}/2`]);
    const stored = await env.store.getRun(runId);
    expect(stored).toMatchObject({
      status: 'finished',
      outcome: { status: 'finished', result: { ok: true, value: 'refunded' } },
    });
  });

  it("leaves a closed host's run resumable: not finished, its lease let go", async () => {
    const gate = deferred();
    const { ledger, tool, inside } = ledgerTools(gate.promise);
    const runs = createDurableRuns(
      hostOptions([tool('lookup'), tool('refund', {}, true)], { policy: { default: 'allow', rules: [] } }),
    );
    const running = runs.start({ program: refundProgram });
    await inside;
    await runs.close();
    const stopped = await running;
    gate.resolve();
    expect(stopped).toMatchObject({ status: 'stopped', reason: 'host-stopped' });
    if (stopped.status === 'stopped') expect(stopped.message).toMatch(/Nothing is lost: resume\("durable_/);
    const stored = await env.store.getRun(stopped.runId);
    expect(stored?.status).toBe('running');
    expect(stored?.owner).toBeUndefined();
    // No outcome was written for the call in flight, nor anything after it.
    expect((await env.store.readJournal(stopped.runId)).map((entry) => [entry.seq, entry.outcome?.ok])).toEqual([
      [1, true],
      [2, undefined],
    ]);
    await expect(runs.start({ program: 'return 1' })).rejects.toThrow(/closed \(their host is stopping\)/);
    expect(ledger).toEqual(['lookup {"id":7}', 'refund {"order":7}']);
  });

  it('times its lease from the start record, not from a store that was slow to open', async () => {
    const { ledger, tool } = ledgerTools();
    // A store whose first query takes longer than the lease (an embedded database booting on a loaded
    // machine), and a program that calls a tool before the first renewal (a third of the lease).
    let first = true;
    const slowToOpen = new Proxy(env.store, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (first) {
            first = false;
            await new Promise((resolve) => setTimeout(resolve, 4_000));
          }
          return (value as (...values: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    });
    const runs = createDurableRuns({
      ...hostOptions([tool('lookup'), tool('refund', {}, true), tool('email')], {
        policy: { default: 'allow', rules: [] },
      }),
      store: slowToOpen,
      leaseMs: 3_000,
    });
    const outcome = await runs.start({ program: refundProgram });
    expect(outcome).toMatchObject({ status: 'finished', result: { ok: true, value: 'refunded' } });
    expect(ledger).toEqual(['lookup {"id":7}', 'refund {"order":7}', 'email {"to":"customer"}']);
    await runs.close();
  });

  it('lets one run go through its detach signal, and the same host can still start others', async () => {
    const gate = deferred();
    const { tool, inside } = ledgerTools(gate.promise);
    const runs = createDurableRuns(
      hostOptions([tool('lookup'), tool('refund', {}, true)], { policy: { default: 'allow', rules: [] } }),
    );
    const away = new AbortController();
    const running = runs.start({ program: refundProgram, detach: away.signal });
    await inside;
    away.abort();
    const stopped = await running;
    gate.resolve();
    expect(stopped).toMatchObject({ status: 'stopped', reason: 'host-stopped' });
    const stored = await env.store.getRun(stopped.runId);
    expect(stored).toMatchObject({ status: 'running' });
    expect(stored?.owner).toBeUndefined();
    const other = await runs.start({ program: 'return 1' });
    expect(other).toMatchObject({ status: 'finished' });
    await runs.close();
  });

  it('does not run an approved call again that an earlier execution started', async () => {
    const gate = deferred();
    const first = ledgerTools(gate.promise);
    const later = ledgerTools();
    const tools = (host: typeof first, wait: boolean) => [
      host.tool('lookup'),
      host.tool('refund', {}, wait),
      host.tool('email'),
    ];
    const hostX = createDurableRuns(hostOptions(tools(first, true)));
    const paused = await hostX.start({ program: refundProgram });
    if (paused.status !== 'paused') throw new Error(`expected a pause, got ${paused.status}`);
    const deciding = hostX.decide(paused.pause.token, { decision: 'allow' });
    await first.inside;
    // The host stops while the approved refund runs: it may or may not have taken effect.
    await hostX.close();
    gate.resolve();
    expect((await deciding).status).toBe('stopped');
    const resumed = await createDurableRuns(hostOptions(tools(later, false))).resume(paused.runId);
    expect(resumed.result.ok).toBe(false);
    expect(JSON.stringify(resumed.result)).toMatch(/interrupted: tools\.refund was running when its host stopped/);
    expect([...first.ledger, ...later.ledger]).toEqual(['lookup {"id":7}', 'refund {"order":7}']);
  });
});

describe('a journal with a gap', () => {
  it('replays by sequence number when one intent of calls made at once failed to be written', async () => {
    const { ledger, tool } = ledgerTools();
    // Call 2's intent fails once call 3's is written: a database that drops one statement of several at once.
    const third = deferred();
    const gappy = new Proxy(env.store, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (key !== 'recordIntent' || typeof value !== 'function') return value;
        return async (...args: Parameters<RunStore['recordIntent']>) => {
          if (args[1] === 2) {
            await third.promise;
            throw new Error('the database connection was lost');
          }
          const entry = await target.recordIntent(...args);
          if (args[1] === 3) third.resolve();
          return entry;
        };
      },
    });
    const policy = { default: 'allow' as const, rules: [] };
    const tools = [tool('fetch', { replay: 'safe' })];
    const first = createDurableRuns(hostOptions(tools, { policy, store: gappy, owner: 'gap-first' }));
    const runId = `gap_${Date.now()}`;
    const program = `const pages = await Promise.all([1, 2, 3].map((page) => tools.fetch({ page })));
return pages.map((page) => page.input.page);`;
    await expect(first.start({ program, runId })).rejects.toThrow(/run store failed/);
    expect((await env.store.readJournal(runId)).map((entry) => entry.seq)).toEqual([1, 3]);
    const resumed = await createDurableRuns(hostOptions(tools, { policy })).resume(runId);
    expect(resumed.status).toBe('finished');
    expect(okValue(resumed)).toEqual([1, 2, 3]);
    expect(ledger.filter((line) => line === 'fetch {"page":2}')).toHaveLength(1);
  });
});
