import { writeFileSync } from 'node:fs';
import type { JsonValue } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { type FaultProgram, faultPrograms, type StoreKind } from './__fixtures__/fault-host-kit.js';
import { ledgerOf, resumeWhenFree, useFaultPlaces } from './__fixtures__/fault-places.js';
import { startOutageProxy } from './__fixtures__/store-outage-proxy.js';
import { editStoredProgram, terminateBackends } from './__fixtures__/store-sql.js';
import type { DurableOutcome } from './index.js';

// The fault suite of issue 24: real host processes (fault-host.ts) stopped at chosen points of a
// run, signalled, stalled, cut off from their store, or racing each other, on the embedded store
// and on a real PostgreSQL. Each host appends every real tool execution to a ledger file; the
// tests assert on the ledger (no call that is not replay-safe ran twice), on what the program saw
// and on the store. Hosts print stage markers; every wait for one has a deadline.

const stores: readonly StoreKind[] = ['pglite', 'postgres'];
/** How long a host may take to reach a marker, exit, or report: generous, for a loaded 2-core machine. */
const within = 60_000;
const testTimeout = 120_000;

const { freshPlace, spawnHost, withHost } = useFaultPlaces();

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const interrupted = expect.stringMatching(/^interrupted: tools\.send was running when its host stopped/);

describe('durable runs whose host process is killed or terminated inside a call that is not replay-safe', () => {
  // Program `basic`: call 1 send (audit), call 2 read (replay-safe), call 3 send (ann). Host A is
  // stopped at a point of call 3 (or inside call 2), then signalled; host B resumes the run.
  const points = [
    {
      stop: 'before-intent:3',
      marker: 'stage before-intent 3',
      sees: 'the call whose intent was never written runs on resume',
      value: { first: 'A', page: 'A', sent: 'B' },
      ledger: ['A send 1', 'A read 2', 'B send 3'],
    },
    {
      stop: 'after-intent:3',
      marker: 'stage intent-written 3',
      sees: 'the call in flight, never run, is `interrupted`',
      value: { first: 'A', page: 'A', sent: interrupted },
      ledger: ['A send 1', 'A read 2'],
    },
    {
      stop: 'in-tool:3',
      marker: 'stage executing 3',
      sees: 'the call in flight is `interrupted`, not run again',
      value: { first: 'A', page: 'A', sent: interrupted },
      ledger: ['A send 1', 'A read 2', 'A send 3'],
    },
    {
      stop: 'after-execution:3',
      marker: 'stage executed 3',
      sees: 'the call run but not recorded is `interrupted`, not run again',
      value: { first: 'A', page: 'A', sent: interrupted },
      ledger: ['A send 1', 'A read 2', 'A send 3'],
    },
    {
      stop: 'in-tool:2',
      marker: 'stage executing 2',
      sees: 'the replay-safe read in flight runs again, and the send after it runs once',
      value: { first: 'A', page: 'B', sent: 'B' },
      ledger: ['A send 1', 'A read 2', 'B read 2', 'B send 3'],
    },
  ];
  const cases = stores.flatMap((store) =>
    (['SIGKILL', 'SIGTERM'] as const).flatMap((signal) => points.map((point) => ({ store, signal, ...point }))),
  );

  it.each(cases.map((row) => [`${row.store}, ${row.signal} at ${row.stop}: ${row.sees}`, row] as const))(
    '%s',
    async (_name, { store: kind, signal, stop, marker, value, ledger }) => {
      const place = await freshPlace(kind);
      const host = spawnHost(place, 'A', 'start', { stop });
      await host.waitFor(marker, within, `the stop at ${stop}`);
      host.signal(signal);
      if (signal === 'SIGTERM') {
        // What a service does on SIGTERM: close the runs, which lets this one go unfinished.
        expect(await host.outcome(within)).toMatchObject({ status: 'stopped', reason: 'host-stopped' });
        expect(await host.exited(within)).toEqual({ code: 143, signal: null });
      } else {
        expect(await host.exited(within)).toEqual({ code: null, signal: 'SIGKILL' });
      }
      await withHost(place, 'B', async ({ runs, store }) => {
        const stored = await store.getRun(place.runId);
        // Not finished (an orderly stop once stored a finished `abort`), and after SIGTERM let go.
        expect(stored?.status).toBe('running');
        if (signal === 'SIGTERM') expect(stored?.owner).toBeUndefined();
        // After SIGTERM the lease was released, so B takes the run at once.
        const outcome = signal === 'SIGTERM' ? await runs.resume(place.runId) : await resumeWhenFree(runs, place.runId);
        expect(outcome.status).toBe('finished');
        expect(outcome.result).toMatchObject({ ok: true, value });
        expect(await store.getRun(place.runId)).toMatchObject({ status: 'finished', outcome: { status: 'finished' } });
        const journal = await store.readJournal(place.runId);
        expect(journal.map((entry) => [entry.seq, entry.intent.name, entry.outcome?.ok])).toEqual([
          [1, 'send', true],
          [2, 'read', true],
          [3, 'send', typeof value.sent === 'string'],
        ]);
      });
      expect(ledgerOf(place)).toEqual(ledger);
    },
    testTimeout,
  );
});

// PGlite runs inside its host process: it cannot become unreachable while the host goes on.
describe('durable runs whose PostgreSQL store is unreachable for a while', () => {
  it(
    'goes on or stays resumable when the host’s connections are terminated mid-call, and runs no unsafe call twice',
    async () => {
      const place = await freshPlace('postgres');
      const go = `${place.ledger}.go`;
      const host = spawnHost(place, 'A', 'start', { stop: 'in-tool:2', go });
      await host.waitFor('stage executing 2', within, 'call 2 running');
      expect(await terminateBackends(place.where)).toBeGreaterThan(0);
      writeFileSync(go, '');
      const ended = await host.waitFor(/^(outcome|rejected) /, within, 'how its run ended');
      expect(await host.exited(within)).toEqual({ code: 0, signal: null });
      await withHost(place, 'B', async ({ runs, store }) => {
        // Either A's pool reconnected and the run finished, or a write failed and the run is resumable.
        if (ended.startsWith('rejected ')) expect(ended).toMatch(/Resume run/);
        const outcome = ended.startsWith('outcome ')
          ? (JSON.parse(ended.slice('outcome '.length)) as DurableOutcome)
          : await resumeWhenFree(runs, place.runId);
        expect(outcome.status).toBe('finished');
        expect(await store.getRun(place.runId)).toMatchObject({ status: 'finished', outcome: { status: 'finished' } });
        const sent = (outcome.result as { value?: { sent?: JsonValue } }).value?.sent;
        const senders = ledgerOf(place)
          .filter((line) => line.endsWith(' send 3'))
          .map((line) => line.split(' ')[0]);
        // The program saw the send by whoever ran it, or `interrupted` when its outcome was lost.
        if (typeof sent === 'string' && sent.startsWith('interrupted:')) expect(senders.length).toBeLessThanOrEqual(1);
        else expect(senders).toEqual([sent]);
      });
    },
    testTimeout,
  );

  it.each(
    [
      {
        seq: 2,
        call: 'read (replay-safe)',
        value: { first: 'A', page: 'B', sent: 'B' },
        ledger: ['A send 1', 'A read 2', 'B read 2', 'B send 3'],
      },
      {
        seq: 3,
        call: 'send',
        value: { first: 'A', page: 'A', sent: interrupted },
        ledger: ['A send 1', 'A read 2', 'A send 3'],
      },
    ].map((row) => [`call ${row.seq}, ${row.call}`, row] as const),
  )(
    'stops with a store failure when the store is away for ~2 s across the outcome of %s, and resumes once it is back',
    async (_name, { seq, value, ledger }) => {
      const place = await freshPlace('postgres');
      const proxy = await startOutageProxy(place.where);
      try {
        const go = `${place.ledger}.go`;
        const host = spawnHost({ ...place, where: proxy.url }, 'A', 'start', { stop: `in-tool:${seq}`, go });
        await host.waitFor(`stage executing ${seq}`, within, `call ${seq} running`);
        const cutAt = Date.now();
        proxy.cut();
        writeFileSync(go, '');
        const ended = await host.waitFor(/^(outcome|rejected) /, within, 'how its run ended');
        await sleep(Math.max(0, 2_000 - (Date.now() - cutAt)));
        proxy.restore();
        expect(ended).toMatch(/^rejected The run store failed, so the run stopped: .*Resume run/);
        expect(await host.exited(within)).toEqual({ code: 0, signal: null });
        await withHost(place, 'B', async ({ runs }) => {
          const outcome = await resumeWhenFree(runs, place.runId);
          expect(outcome).toMatchObject({ status: 'finished', result: { ok: true, value } });
        });
        expect(ledgerOf(place)).toEqual(ledger);
      } finally {
        await proxy.close();
      }
    },
    testTimeout,
  );
});

// The embedded store admits one process at a time by design, so two hosts at once need PostgreSQL.
describe('a durable host stalled past its lease (PostgreSQL)', () => {
  it(
    'loses the run to another host: continued, it calls nothing more, writes nothing, and says it lost the run',
    async () => {
      const place = await freshPlace('postgres');
      const go = `${place.ledger}.go`;
      // A short lease, so the test need not wait long past it; not shorter, or A could lose it under
      // load before the stall (by its own clock, its renewals being slow).
      const host = spawnHost(place, 'A', 'start', { stop: 'in-tool:2', go, lease: 2000 });
      await host.waitFor('stage executing 2', within, 'call 2 running');
      host.signal('SIGSTOP');
      // B takes the run once A's 2 s lease has lapsed, reruns the read A was in, and sends.
      const finished = await withHost(place, 'B', async ({ runs, store }) => {
        const outcome = await resumeWhenFree(runs, place.runId);
        expect(outcome).toMatchObject({
          status: 'finished',
          result: { ok: true, value: { first: 'A', page: 'B', sent: 'B' } },
        });
        return { run: await store.getRun(place.runId), journal: await store.readJournal(place.runId) };
      }).finally(() => {
        // A goes on (its read returns) whatever happened to B; afterEach kills it if it hangs.
        writeFileSync(go, '');
        host.signal('SIGCONT');
      });
      expect(await host.outcome(within)).toMatchObject({ status: 'stopped', reason: 'lease-lost' });
      expect(await host.exited(within)).toEqual({ code: 0, signal: null });
      expect(ledgerOf(place)).toEqual(['A send 1', 'A read 2', 'B read 2', 'B send 3']);
      await withHost(place, 'check', async ({ store }) => {
        expect(await store.getRun(place.runId)).toEqual(finished.run);
        expect(await store.readJournal(place.runId)).toEqual(finished.journal);
      });
    },
    testTimeout,
  );
});

describe('durable runs decided or resumed by two callers at once', () => {
  it.each(stores)(
    '%s: two decisions of one token at once, in one process, run the approved call once and give both the same outcome',
    async (kind) => {
      const place = await freshPlace(kind);
      await withHost(place, 'A', async ({ runs }) => {
        const paused = await runs.start({ runId: place.runId, program: faultPrograms.pay });
        if (paused.status !== 'paused') throw new Error(`expected a pause, got ${JSON.stringify(paused)}`);
        const decisions = await Promise.all([
          runs.decide(paused.pause.token, { decision: 'allow' }),
          runs.decide(paused.pause.token, { decision: 'allow' }),
        ]);
        for (const decided of decisions) {
          expect(decided).toMatchObject({
            status: 'finished',
            result: { ok: true, value: { page: 'A', paid: 'A', sent: 'A' } },
          });
          expect(decided.decision.decision).toEqual({ decision: 'allow' });
        }
        expect(decisions.map((decided) => decided.decision.applied).sort()).toEqual([false, true]);
        expect(decisions[0].result).toEqual(decisions[1].result);
      });
      expect(ledgerOf(place)).toEqual(['A read 1', 'A pay 2', 'A send 3']);
    },
    testTimeout,
  );

  it.each(stores)(
    '%s: two resumes of one run at once, in one process, are one execution with one outcome',
    async (kind) => {
      const place = await freshPlace(kind);
      const host = spawnHost(place, 'A', 'start', { stop: 'before-intent:3' });
      await host.waitFor('stage before-intent 3', within, 'the stop before call 3');
      host.signal('SIGTERM');
      expect(await host.outcome(within)).toMatchObject({ status: 'stopped', reason: 'host-stopped' });
      expect(await host.exited(within)).toEqual({ code: 143, signal: null });
      await withHost(place, 'B', async ({ runs }) => {
        const [first, second] = await Promise.all([runs.resume(place.runId), runs.resume(place.runId)]);
        expect(first).toMatchObject({
          status: 'finished',
          result: { ok: true, value: { first: 'A', page: 'A', sent: 'B' } },
        });
        expect(second).toEqual(first);
      });
      expect(ledgerOf(place)).toEqual(['A send 1', 'A read 2', 'B send 3']);
    },
    testTimeout,
  );

  // Two processes on one embedded store cannot be: it admits one process at a time.
  it(
    'postgres: two host processes deciding one token at once, allow and deny, agree on the decision that stands and its outcome',
    async () => {
      const place = await freshPlace('postgres');
      const token = await withHost(place, 'A', async ({ runs }) => {
        const paused = await runs.start({ runId: place.runId, program: faultPrograms.pay });
        if (paused.status !== 'paused') throw new Error(`expected a pause, got ${JSON.stringify(paused)}`);
        return paused.pause.token;
      });
      const barrier = `${place.ledger}.barrier`;
      const allow = spawnHost(place, 'C', 'decide', { token, decision: 'allow', barrier });
      const deny = spawnHost(place, 'D', 'decide', { token, decision: 'deny', barrier });
      await Promise.all([allow, deny].map((host) => host.waitFor('stage waiting-barrier', within, 'readiness')));
      writeFileSync(barrier, '');
      const [byAllow, byDeny] = await Promise.all([allow.outcome(within), deny.outcome(within)]);
      for (const host of [allow, deny]) expect(await host.exited(within)).toEqual({ code: 0, signal: null });

      type Decided = { status: string; result: { ok: boolean; value: { paid: string; sent: string } } } & {
        decision: { applied: boolean; decision: { decision: string } };
      };
      const outcomes = [byAllow, byDeny] as unknown as Decided[];
      expect(outcomes.filter((outcome) => outcome.decision.applied)).toHaveLength(1);
      const standing = outcomes[0]!.decision.applied ? 'allow' : 'deny';
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('finished');
        expect(outcome.decision.decision).toMatchObject({ decision: standing });
      }
      expect(byAllow.result).toEqual(byDeny.result);
      const ledger = ledgerOf(place);
      const { paid, sent } = outcomes[0]!.result.value;
      // One of them ran the rest of the run; the other waited for it and read its outcome.
      expect(['C', 'D']).toContain(sent);
      if (standing === 'allow') {
        expect(paid).toBe(sent);
        expect(ledger).toEqual(['A read 1', `${sent} pay 2`, `${sent} send 3`]);
      } else {
        expect(paid).toMatch(/^Permission denied: tools\.pay was not approved/);
        expect(ledger).toEqual(['A read 1', `${sent} send 3`]);
      }
    },
    testTimeout,
  );
});

describe('a durable run replayed by a program that changed', () => {
  const changes = [
    {
      change: 'its program text edited in the store',
      program: 'basic' as FaultProgram,
      notify: false,
      message: /call 1 was tools\.send\(\{"to":"audit".* is tools\.send\(\{"to":"board"/,
    },
    {
      change: 'a host that offers another tool set',
      program: 'adaptive' as FaultProgram,
      notify: true,
      message: /call 1 was tools\.send\(\{"to":"audit".* is tools\.notify\(\{"to":"audit"/,
    },
  ];
  it.each(
    stores.flatMap((store) => changes.map((change) => [`${store}, ${change.change}`, { store, ...change }] as const)),
  )(
    '%s: the resume ends `diverged`, runs no tool and leaves the journal as it was',
    async (_name, { store: kind, program, notify, message }) => {
      const place = await freshPlace(kind);
      const host = spawnHost(place, 'A', 'start', { program, stop: 'in-tool:2' });
      await host.waitFor('stage executing 2', within, 'call 2 running');
      host.signal('SIGKILL');
      await host.exited(within);
      if (notify === false) {
        const edited = faultPrograms.basic.replace("to: 'audit'", "to: 'board'");
        await editStoredProgram(kind, place.where, place.runId, edited);
      }
      await withHost(
        place,
        'B',
        async ({ runs, store }) => {
          const journal = await store.readJournal(place.runId);
          const outcome = await resumeWhenFree(runs, place.runId);
          expect(outcome).toMatchObject({ status: 'diverged', message: expect.stringMatching(message) });
          expect(await store.readJournal(place.runId)).toEqual(journal);
          expect(await store.getRun(place.runId)).toMatchObject({
            status: 'finished',
            outcome: { status: 'diverged' },
          });
        },
        { notify },
      );
      expect(ledgerOf(place)).toEqual(['A send 1', 'A read 2']);
    },
    testTimeout,
  );
});
