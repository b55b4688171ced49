import { describe, expect, it } from 'vitest';
import { awkwardText, type CurrentStore, rejectionOf, startRecord } from './run-store-behaviour.test-helper.js';
import { RunStoreConflictError, RunStoreError, RunStoreNotFoundError } from './run-store-errors.js';

export function describeRunBehaviour(store: CurrentStore): void {
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
      expect(await store().claimRun(start.runId, 'host-b', 60_000)).toBe(false);
      expect((await store().getRun(start.runId))?.owner).toBe('host-a');
      expect(await store().claimRun(start.runId, 'host-a', 120_000)).toBe(true);
      const run = await store().getRun(start.runId);
      expect(run?.leaseExpiresAt).toBeGreaterThanOrEqual((run?.createdAt ?? 0) + 120_000);
    });

    it('hands the run to another owner once the lease has expired', async () => {
      const start = startRecord();
      await store().createRun(start, 'host-a', 1_000);
      expect(await store().claimRun(start.runId, 'host-b', 60_000)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await store().claimRun(start.runId, 'host-b', 60_000)).toBe(true);
      expect((await store().getRun(start.runId))?.owner).toBe('host-b');
      expect(await store().claimRun(start.runId, 'host-a', 60_000)).toBe(false);
    });

    it('releases only for the owner, and a released run is free for anyone', async () => {
      const start = startRecord();
      await store().createRun(start, 'host-a', 60_000);
      await store().releaseRun(start.runId, 'host-b');
      expect((await store().getRun(start.runId))?.owner).toBe('host-a');
      await store().releaseRun(start.runId, 'host-a');
      const released = await store().getRun(start.runId);
      expect(released && ('owner' in released || 'leaseExpiresAt' in released)).toBe(false);
      expect(await store().claimRun(start.runId, 'host-b', 60_000)).toBe(true);
    });

    it('lets exactly one of many concurrent claimants win', async () => {
      const start = startRecord();
      await store().createRun(start, 'crashed-host', 0);
      const owners = Array.from({ length: 12 }, (_, index) => `host-${index}`);
      const results = await Promise.all(owners.map((owner) => store().claimRun(start.runId, owner, 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await store().getRun(start.runId))?.owner).toBe(owners[results.indexOf(true)]);
    });

    it('rejects a claim of an unknown run with RunStoreNotFoundError', async () => {
      const error = await rejectionOf(store().claimRun('no-such-run', 'host-a', 1_000));
      expect(RunStoreNotFoundError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/No run "no-such-run".*createRun/);
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
