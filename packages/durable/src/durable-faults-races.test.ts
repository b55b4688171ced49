import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { faultPrograms } from './__fixtures__/fault-host-kit.js';
import { faultStores, faultTestTimeout, ledgerOf, useFaultPlaces, within } from './__fixtures__/fault-places.js';

// The fault suite of issue 24, one of its files (durable-faults-*.test.ts; see
// durable-faults-sigkill.test.ts). Here: one run decided or resumed by two callers at once, in one
// process or in two host processes released together through a file barrier.

const { freshPlace, spawnHost, withHost } = useFaultPlaces();

describe('durable runs decided or resumed by two callers at once', () => {
  it.each(faultStores)(
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
    faultTestTimeout,
  );

  it.each(faultStores)(
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
    faultTestTimeout,
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
    faultTestTimeout,
  );
});
