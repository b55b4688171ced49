import { describe, expect, it } from 'vitest';
import { type FaultProgram, faultPrograms } from './__fixtures__/fault-host-kit.js';
import {
  faultStores,
  faultTestTimeout,
  ledgerOf,
  resumeWhenFree,
  useFaultPlaces,
  within,
} from './__fixtures__/fault-places.js';
import { editStoredProgram } from './__fixtures__/store-sql.js';

// The fault suite of issue 24, one of its files (durable-faults-*.test.ts; see
// durable-faults-sigkill.test.ts). Here: a run whose host was killed, resumed by a program or a host
// that changed since, which must end `diverged` without running anything.

const { freshPlace, spawnHost, withHost } = useFaultPlaces();

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
    faultStores.flatMap((store) =>
      changes.map((change) => [`${store}, ${change.change}`, { store, ...change }] as const),
    ),
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
    faultTestTimeout,
  );
});
