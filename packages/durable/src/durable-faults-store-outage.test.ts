import { writeFileSync } from 'node:fs';
import type { JsonValue } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import {
  faultTestTimeout,
  interruptedSend,
  ledgerOf,
  resumeWhenFree,
  useFaultPlaces,
  within,
} from './__fixtures__/fault-places.js';
import { startOutageProxy } from './__fixtures__/store-outage-proxy.js';
import { terminateBackends } from './__fixtures__/store-sql.js';
import type { DurableOutcome } from './index.js';

// The fault suite of issue 24, one of its files (durable-faults-*.test.ts; see
// durable-faults-sigkill.test.ts). Here: a host process whose PostgreSQL store goes away for a while,
// or that stalls past its lease while another host takes its run.

const { freshPlace, spawnHost, withHost } = useFaultPlaces();

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

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
    faultTestTimeout,
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
        value: { first: 'A', page: 'A', sent: interruptedSend },
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
    faultTestTimeout,
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
    faultTestTimeout,
  );
});
