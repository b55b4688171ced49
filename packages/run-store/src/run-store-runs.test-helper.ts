import { describe, expect, it } from 'vitest';
import { awkwardText, type CurrentStore, rejectionOf, startRecord } from './run-store-behaviour.test-helper.js';
import {
  RunStoreConflictError,
  RunStoreError,
  RunStoreLeaseLostError,
  RunStoreNotFoundError,
} from './run-store-errors.js';

export function describeRunBehaviour(store: CurrentStore): void {
  describe('listRuns', () => {
    it('lists runs newest first, by conversation and status, up to the limit', async () => {
      const mine = [startRecord({ conversation: 'listed-a' }), startRecord({ conversation: 'listed-a' })];
      const theirs = startRecord({ conversation: 'listed-b' });
      for (const start of [mine[0]!, theirs, mine[1]!]) {
        await store().createRun(start, 'host-a', 30_000);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await store().setStatus(mine[0]!.runId, 'finished', { ok: true });
      const listed = await store().listRuns({ conversation: 'listed-a' });
      expect(listed.map((run) => run.start.runId)).toEqual([mine[1]!.runId, mine[0]!.runId]);
      expect(
        (await store().listRuns({ conversation: 'listed-a', status: 'finished' })).map((run) => run.start.runId),
      ).toEqual([mine[0]!.runId]);
      expect(await store().listRuns({ conversation: 'listed-a', limit: 1 })).toHaveLength(1);
      const everyone = (await store().listRuns({ limit: 500 })).map((run) => run.start.runId);
      expect(everyone).toEqual(expect.arrayContaining([mine[0]!.runId, mine[1]!.runId, theirs.runId]));
    });

    it('filters by outcome kind and creation time, and pages after a run', async () => {
      const conversation = `kinds-${Date.now()}`;
      const starts = Array.from({ length: 4 }, () => startRecord({ conversation }));
      const created: number[] = [];
      for (const start of starts) {
        await store().createRun(start, 'host-a', 30_000);
        created.push((await store().getRun(start.runId))!.createdAt);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const failed = (kind: string) => ({ status: 'finished', result: { ok: false, failure: { kind, message: 'm' } } });
      await store().setStatus(starts[0]!.runId, 'finished', { status: 'finished', result: { ok: true, value: 1 } });
      await store().setStatus(starts[1]!.runId, 'finished', failed('timeout'));
      await store().setStatus(starts[2]!.runId, 'finished', failed('exception'));
      const ids = (runs: { start: { runId: string } }[]) => runs.map((run) => run.start.runId);
      expect((await store().getRun(starts[1]!.runId))?.outcomeKind).toBe('timeout');
      expect((await store().getRun(starts[3]!.runId))?.outcomeKind).toBeUndefined();
      expect(ids(await store().listRuns({ conversation, outcomeKinds: ['ok'] }))).toEqual([starts[0]!.runId]);
      expect(ids(await store().listRuns({ conversation, outcomeKinds: ['timeout', 'exception'] }))).toEqual([
        starts[2]!.runId,
        starts[1]!.runId,
      ]);
      expect(await store().listRuns({ conversation, outcomeKinds: [] })).toEqual([]);
      expect(ids(await store().listRuns({ conversation, createdFrom: created[1], createdBefore: created[3] }))).toEqual(
        [starts[2]!.runId, starts[1]!.runId],
      );
      const firstPage = await store().listRuns({ conversation, limit: 3 });
      expect(ids(firstPage)).toEqual([starts[3]!.runId, starts[2]!.runId, starts[1]!.runId]);
      const last = firstPage[2]!;
      const secondPage = await store().listRuns({
        conversation,
        limit: 3,
        after: { createdAt: last.createdAt, runId: last.start.runId },
      });
      expect(ids(secondPage)).toEqual([starts[0]!.runId]);
    });

    it('pages runs created in the same millisecond by run id, none twice and none left out', async () => {
      const conversation = `same-ms-${Date.now()}`;
      const starts = Array.from({ length: 5 }, () => startRecord({ conversation }));
      await Promise.all(starts.map((start) => store().createRun(start, 'host-a', 30_000)));
      const seen: string[] = [];
      let after: { createdAt: number; runId: string } | undefined;
      for (;;) {
        const page = await store().listRuns({ conversation, limit: 2, ...(after === undefined ? {} : { after }) });
        if (page.length === 0) break;
        seen.push(...page.map((run) => run.start.runId));
        const last = page[page.length - 1]!;
        after = { createdAt: last.createdAt, runId: last.start.runId };
      }
      expect([...seen].sort()).toEqual(starts.map((start) => start.runId).sort());
    });

    it('refuses a malformed query', async () => {
      await expect(store().listRuns({ limit: 0 })).rejects.toBeInstanceOf(RunStoreError);
      await expect(store().listRuns({ status: 'lost' as never })).rejects.toBeInstanceOf(RunStoreError);
      await expect(store().listRuns({ conversation: '' })).rejects.toBeInstanceOf(RunStoreError);
      await expect(store().listRuns({ outcomeKinds: ['ok', ''] })).rejects.toBeInstanceOf(RunStoreError);
      await expect(store().listRuns({ createdFrom: 1.5 })).rejects.toBeInstanceOf(RunStoreError);
      await expect(store().listRuns({ after: { createdAt: 1, runId: '' } })).rejects.toBeInstanceOf(RunStoreError);
    });
  });

  describe('createRun and getRun', () => {
    it('stores the start record exactly, running and owned for the lease', async () => {
      const metadata = { zeta: 1, alpha: { '10': 'ten', '2': 'two', b: [true, null, 1.5e300] }, text: awkwardText };
      const start = startRecord({ conversation: 'conversation-1', metadata, program: `return '${awkwardText}'` });
      const before = Date.now();
      await store().createRun(start, 'host-a', 30_000);
      const run = await store().getRun(start.runId);
      expect(run?.start).toEqual(start);
      expect(JSON.stringify(run?.start.metadata)).toBe(JSON.stringify(metadata));
      expect(run?.start.program).toBe(start.program);
      expect(run).toMatchObject({ status: 'running', owner: 'host-a' });
      expect(run?.createdAt).toBeGreaterThanOrEqual(before - 1_000);
      expect(run?.updatedAt).toBe(run?.createdAt);
      expect(run?.leaseExpiresAt).toBe((run?.createdAt ?? 0) + 30_000);
      expect(run && 'outcome' in run).toBe(false);
    });

    it('leaves out the optional fields that were not given, and keeps a null metadata', async () => {
      const bare = startRecord();
      await store().createRun(bare, 'host-a', 1_000);
      const run = await store().getRun(bare.runId);
      expect(Object.keys(run?.start ?? {}).sort()).toEqual([
        'fingerprint',
        'language',
        'program',
        'runId',
        'seed',
        'startTime',
      ]);
      const withNull = startRecord({ metadata: null });
      await store().createRun(withNull, 'host-a', 1_000);
      expect((await store().getRun(withNull.runId))?.start.metadata).toBeNull();
    });

    it('refuses a run id that exists with RunStoreConflictError naming it', async () => {
      const start = startRecord();
      await store().createRun(start, 'host-a', 1_000);
      const error = await rejectionOf(store().createRun({ ...start, program: 'return 2' }, 'host-b', 1_000));
      expect(RunStoreConflictError.isInstance(error)).toBe(true);
      expect(error.message).toContain(start.runId);
      expect((await store().getRun(start.runId))?.start.program).toBe(start.program);
    });

    it('resolves undefined for an unknown run', async () => {
      expect(await store().getRun('no-such-run')).toBeUndefined();
    });

    it.each([
      ['an empty run id', { runId: '' }, /start\.runId must be a non-empty string/],
      ['a run id with NUL', { runId: 'a\u0000b' }, /start\.runId must be well-formed text without NUL/],
      ['a seed past 32 bits', { seed: 2 ** 32 }, /start\.seed must be an integer from 0 to 4294967295/],
      ['a negative seed', { seed: -1 }, /start\.seed/],
      ['a fractional start time', { startTime: 1.5 }, /start\.startTime must be an integer/],
      ['a program that is not a string', { program: 1 as never }, /start\.program must be a string/],
      ['metadata that is not JSON', { metadata: (() => 1) as never }, /start\.metadata must be a JSON value/],
      [
        'metadata with a BigInt',
        { metadata: { n: 1n } as never },
        /start\.metadata must be a JSON value; JSON\.stringify threw/,
      ],
    ])('refuses %s with a RunStoreError saying what is wrong', async (_, overrides, message) => {
      const error = await rejectionOf(store().createRun(startRecord(overrides), 'host-a', 1_000));
      expect(RunStoreError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(message);
    });

    it('refuses a negative lease', async () => {
      await expect(store().createRun(startRecord(), 'host-a', -1)).rejects.toThrow(/leaseMs must be an integer from 0/);
    });
  });

  describe('claimRun and releaseRun', () => {
    it('refuses a live lease held by another owner, and renews the holder’s own', async () => {
      const start = startRecord();
      await store().createRun(start, 'host-a', 60_000);
      expect(await store().claimRun(start.runId, 'host-b', 60_000)).toBeUndefined();
      expect((await store().getRun(start.runId))?.owner).toBe('host-a');
      expect(await store().claimRun(start.runId, 'host-a', 120_000)).toMatchObject({ owner: 'host-a', fence: 2 });
      const run = await store().getRun(start.runId);
      expect(run?.leaseExpiresAt).toBeGreaterThanOrEqual((run?.createdAt ?? 0) + 120_000);
    });

    it('hands the run to another owner once the lease has expired', async () => {
      const start = startRecord();
      await store().createRun(start, 'host-a', 1_000);
      expect(await store().claimRun(start.runId, 'host-b', 60_000)).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await store().claimRun(start.runId, 'host-b', 60_000)).toMatchObject({ owner: 'host-b', fence: 2 });
      expect((await store().getRun(start.runId))?.owner).toBe('host-b');
      expect(await store().claimRun(start.runId, 'host-a', 60_000)).toBeUndefined();
    });

    it('releases only for the owner, and a released run is free for anyone', async () => {
      const start = startRecord();
      const lease = await store().createRun(start, 'host-a', 60_000);
      await store().releaseRun({ ...lease, owner: 'host-b' });
      await store().releaseRun({ ...lease, fence: 2 });
      expect((await store().getRun(start.runId))?.owner).toBe('host-a');
      await store().releaseRun(lease);
      const released = await store().getRun(start.runId);
      expect(released && ('owner' in released || 'leaseExpiresAt' in released)).toBe(false);
      expect(await store().claimRun(start.runId, 'host-b', 60_000)).toMatchObject({ owner: 'host-b' });
    });

    it('lets exactly one of many concurrent claimants win', async () => {
      const start = startRecord();
      await store().createRun(start, 'crashed-host', 0);
      const owners = Array.from({ length: 12 }, (_, index) => `host-${index}`);
      const results = await Promise.all(owners.map((owner) => store().claimRun(start.runId, owner, 60_000)));
      const winners = results.filter((lease) => lease !== undefined);
      expect(winners).toHaveLength(1);
      expect(winners[0]?.fence).toBe(2);
      expect((await store().getRun(start.runId))?.owner).toBe(winners[0]?.owner);
    });

    it('rejects a claim of an unknown run with RunStoreNotFoundError', async () => {
      const error = await rejectionOf(store().claimRun('no-such-run', 'host-a', 1_000));
      expect(RunStoreNotFoundError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/No run "no-such-run".*createRun/);
    });
  });

  describe('leases and fencing', () => {
    it('renews a lease it still holds, keeping its fence, and not one that was claimed since', async () => {
      const start = startRecord();
      const lease = await store().createRun(start, 'host-a', 1_000);
      expect(lease).toMatchObject({ runId: start.runId, owner: 'host-a', fence: 1 });
      const renewed = await store().renewRun(lease, 60_000);
      expect(renewed).toMatchObject({ owner: 'host-a', fence: 1 });
      expect(renewed?.expiresAt).toBeGreaterThan(lease.expiresAt);
      // The same owner claiming again (a second execution in one process) fences the first.
      expect(await store().claimRun(start.runId, 'host-a', 60_000)).toMatchObject({ fence: 2 });
      expect(await store().renewRun(lease, 60_000)).toBeUndefined();
    });

    it('refuses every write of a lease after another host claimed the run, writing nothing', async () => {
      const start = startRecord({ conversation: 'fenced' });
      const stale = await store().createRun(start, 'host-a', 0);
      await store().recordIntent(start.runId, 1, { namespace: 'tools', name: 'a', input: {} }, stale);
      const fresh = await store().claimRun(start.runId, 'host-b', 60_000);
      expect(fresh?.fence).toBe(2);
      const writes: [string, () => Promise<unknown>][] = [
        [
          'recordIntent',
          () => store().recordIntent(start.runId, 2, { namespace: 'tools', name: 'b', input: {} }, stale),
        ],
        ['recordOutcome', () => store().recordOutcome(start.runId, 1, { ok: true, value: 'stale' }, stale)],
        ['setStatus', () => store().setStatus(start.runId, 'finished', { stale: true }, stale)],
        [
          'createPause',
          () =>
            store().createPause(
              {
                token: 'pause_stale_0123456789abcdef',
                runId: start.runId,
                seq: 1,
                tool: 'a',
                input: {},
                reason: 'r',
                createdAt: 1,
                expiresAt: Date.now() + 60_000,
              },
              stale,
            ),
        ],
        ['commitValues', () => store().commitValues('fenced', { k: 1 }, stale)],
      ];
      for (const [name, write] of writes) {
        const error = await rejectionOf(write());
        expect(RunStoreLeaseLostError.isInstance(error), `${name}: ${String(error)}`).toBe(true);
        expect(error.message).toContain('claimed by another execution');
      }
      const journal = await store().readJournal(start.runId);
      expect(journal.map((entry) => [entry.seq, entry.outcome])).toEqual([[1, undefined]]);
      expect(await store().getRun(start.runId)).toMatchObject({ status: 'running', owner: 'host-b', fence: 2 });
      expect(await store().listPauses(start.runId)).toEqual([]);
      expect(await store().readValues('fenced')).toEqual({});
      // The holder's writes go through.
      await store().recordOutcome(start.runId, 1, { ok: true, value: 'fresh' }, fresh);
      await store().setStatus(start.runId, 'finished', { fresh: true }, fresh);
      expect((await store().getRun(start.runId))?.outcome).toEqual({ fresh: true });
    });

    it('refuses a lease of another run, and a malformed one, with a RunStoreError', async () => {
      const start = startRecord();
      const lease = await store().createRun(start, 'host-a', 60_000);
      await expect(store().setStatus('another-run', 'paused', undefined, lease)).rejects.toThrow(/lease is for run/);
      await expect(store().setStatus(start.runId, 'paused', undefined, { ...lease, fence: 0 })).rejects.toThrow(
        /lease\.fence must be an integer from 1/,
      );
    });
  });

  describe('setStatus', () => {
    it('moves a run between running and paused, and finishes it once with its outcome', async () => {
      const start = startRecord();
      await store().createRun(start, 'host-a', 1_000);
      await store().setStatus(start.runId, 'paused');
      expect((await store().getRun(start.runId))?.status).toBe('paused');
      await store().setStatus(start.runId, 'running');
      const outcome = { ok: true, value: { z: 1, a: [awkwardText] } };
      await store().setStatus(start.runId, 'finished', outcome);
      await store().setStatus(start.runId, 'running');
      await store().setStatus(start.runId, 'finished', { ok: false });
      const run = await store().getRun(start.runId);
      expect(run?.status).toBe('finished');
      expect(JSON.stringify(run?.outcome)).toBe(JSON.stringify(outcome));
    });

    it('refuses an outcome for a status other than finished, an unknown status and an unknown run', async () => {
      const start = startRecord();
      await store().createRun(start, 'host-a', 1_000);
      await expect(store().setStatus(start.runId, 'paused', 1)).rejects.toThrow(/outcome only with status 'finished'/);
      await expect(store().setStatus(start.runId, 'done' as never)).rejects.toThrow(/status must be 'running'/);
      expect(RunStoreNotFoundError.isInstance(await rejectionOf(store().setStatus('no-such-run', 'paused')))).toBe(
        true,
      );
      expect((await store().getRun(start.runId))?.status).toBe('running');
    });
  });
}
