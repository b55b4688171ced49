// The fault cases of a host process stopped by a signal inside a call that is not replay-safe, on
// each store: durable-faults-sigkill.test.ts and durable-faults-sigterm.test.ts run them, one signal
// each, so the two halves run side by side.
import { describe, expect, it } from 'vitest';
import {
  faultStores,
  faultTestTimeout,
  interruptedSend,
  ledgerOf,
  resumeWhenFree,
  useFaultPlaces,
  within,
} from './fault-places.js';

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
    value: { first: 'A', page: 'A', sent: interruptedSend },
    ledger: ['A send 1', 'A read 2'],
  },
  {
    stop: 'in-tool:3',
    marker: 'stage executing 3',
    sees: 'the call in flight is `interrupted`, not run again',
    value: { first: 'A', page: 'A', sent: interruptedSend },
    ledger: ['A send 1', 'A read 2', 'A send 3'],
  },
  {
    stop: 'after-execution:3',
    marker: 'stage executed 3',
    sees: 'the call run but not recorded is `interrupted`, not run again',
    value: { first: 'A', page: 'A', sent: interruptedSend },
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

/** Registers the cases of host processes stopped by `signal` at each point, on each store. */
export function describeHostStops(signal: 'SIGKILL' | 'SIGTERM'): void {
  const { freshPlace, spawnHost, withHost } = useFaultPlaces();
  const how = signal === 'SIGKILL' ? 'killed' : 'terminated';
  const cases = faultStores.flatMap((store) => points.map((point) => ({ store, ...point })));

  describe(`durable runs whose host process is ${how} inside a call that is not replay-safe`, () => {
    it.each(cases.map((row) => [`${row.store}, ${signal} at ${row.stop}: ${row.sees}`, row] as const))(
      '%s',
      async (_name, { store: kind, stop, marker, value, ledger }) => {
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
          const outcome =
            signal === 'SIGTERM' ? await runs.resume(place.runId) : await resumeWhenFree(runs, place.runId);
          expect(outcome.status).toBe('finished');
          expect(outcome.result).toMatchObject({ ok: true, value });
          expect(await store.getRun(place.runId)).toMatchObject({
            status: 'finished',
            outcome: { status: 'finished' },
          });
          const journal = await store.readJournal(place.runId);
          expect(journal.map((entry) => [entry.seq, entry.intent.name, entry.outcome?.ok])).toEqual([
            [1, 'send', true],
            [2, 'read', true],
            [3, 'send', typeof value.sent === 'string'],
          ]);
        });
        expect(ledgerOf(place)).toEqual(ledger);
      },
      faultTestTimeout,
    );
  });
}
