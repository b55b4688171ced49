import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PauseDecision, PauseRecord } from './run-store.js';
import { awkwardText, type CurrentStore, rejectionOf, startRecord } from './run-store-behaviour.test-helper.js';
import {
  RunStoreConflictError,
  RunStoreError,
  RunStoreExpiredError,
  RunStoreLeaseLostError,
  RunStoreNotFoundError,
} from './run-store-errors.js';

const newToken = () => randomBytes(16).toString('base64url');

export function describePauseBehaviour(store: CurrentStore): void {
  const pausedRun = async (overrides: Partial<Omit<PauseRecord, 'decision'>> = {}) => {
    const start = startRecord();
    await store().createRun(start, 'host-a', 60_000);
    const pause: Omit<PauseRecord, 'decision'> = {
      token: newToken(),
      runId: start.runId,
      seq: 2,
      tool: 'github.delete_repo',
      input: { repo: 'sluice', force: true, note: awkwardText },
      reason: `rule "ask: delete_*" matched ${awkwardText}`,
      createdAt: 1_000_000,
      expiresAt: 2_000_000,
      ...overrides,
    };
    await store().createPause(pause);
    return pause;
  };

  describe('createPause, getPause and listPauses', () => {
    it('stores the pause exactly, without a decision, and pauses the run', async () => {
      const pause = await pausedRun();
      const stored = await store().getPause(pause.token);
      expect(stored).toEqual(pause);
      expect(JSON.stringify(stored)).toBe(JSON.stringify(pause));
      expect((await store().getRun(pause.runId))?.status).toBe('paused');
      expect(await store().getPause(newToken())).toBeUndefined();
    });

    it('lists a run’s pauses in seq order', async () => {
      const first = await pausedRun({ seq: 5 });
      await store().setStatus(first.runId, 'running');
      const second = { ...first, token: newToken(), seq: 3 };
      await store().createPause(second);
      expect((await store().listPauses(first.runId)).map((pause) => pause.seq)).toEqual([3, 5]);
      expect(await store().listPauses('no-such-run')).toEqual([]);
    });

    it('refuses a token that exists, a second pause at the same call, and an unknown run', async () => {
      const pause = await pausedRun();
      const sameToken = await rejectionOf(store().createPause({ ...pause, seq: 9 }));
      expect(RunStoreConflictError.isInstance(sameToken)).toBe(true);
      expect(sameToken.message).toMatch(/pause token already exists/);
      const sameCall = await rejectionOf(store().createPause({ ...pause, token: newToken() }));
      expect(RunStoreConflictError.isInstance(sameCall)).toBe(true);
      expect(sameCall.message).toMatch(/already paused at call 2/);
      const noRun = await rejectionOf(store().createPause({ ...pause, token: newToken(), runId: 'no-such-run' }));
      expect(RunStoreNotFoundError.isInstance(noRun)).toBe(true);
      expect(await store().listPauses(pause.runId)).toHaveLength(1);
    });

    it('counts the calls waiting for a person across the store: undecided, unexpired, of paused runs', async () => {
      const now = 4_000_000_000_000_000;
      const before = await store().countPendingPauses(now);
      const decided = await pausedRun({ expiresAt: now + 10 });
      const ended = await pausedRun({ expiresAt: now + 10 });
      await pausedRun({ expiresAt: now - 1 });
      expect(await store().countPendingPauses(now)).toBe(before + 2);
      await store().decidePause(decided.token, { decision: 'allow' }, now);
      expect(await store().countPendingPauses(now)).toBe(before + 1);
      await store().setStatus(ended.runId, 'finished', 'cancelled while it waited');
      expect(await store().countPendingPauses(now)).toBe(before);
    });

    it('leaves a finished run finished', async () => {
      const start = startRecord();
      await store().createRun(start, 'host-a', 60_000);
      await store().setStatus(start.runId, 'finished', 'done');
      await store().createPause({
        token: newToken(),
        runId: start.runId,
        seq: 1,
        tool: 't',
        input: {},
        reason: 'r',
        createdAt: 1,
        expiresAt: 2,
      });
      expect((await store().getRun(start.runId))?.status).toBe('finished');
    });
  });

  describe('startPausedCall', () => {
    const payPause = (runId: string) => ({
      token: newToken(),
      runId,
      seq: 1,
      tool: 'pay',
      input: {},
      reason: 'r',
      createdAt: 1,
      expiresAt: Date.now() + 60_000,
    });

    it('marks the approved call started once: the first execution gets true, any later one false', async () => {
      const start = startRecord();
      const lease = await store().createRun(start, 'host-a', 60_000);
      const pause = payPause(start.runId);
      await store().createPause(pause, lease);
      await store().decidePause(pause.token, { decision: 'allow' });
      expect(await store().startPausedCall(pause.token, lease)).toBe(true);
      expect((await store().getPause(pause.token))?.startedAt).toEqual(expect.any(Number));
      const next = await store().claimRun(start.runId, 'host-a', 60_000);
      expect(await store().startPausedCall(pause.token, next!)).toBe(false);
    });

    it('refuses a lease that was claimed since, and a token of another run', async () => {
      const start = startRecord();
      const stale = await store().createRun(start, 'host-a', 0);
      const pause = payPause(start.runId);
      await store().createPause(pause, stale);
      const fresh = await store().claimRun(start.runId, 'host-b', 60_000);
      expect(RunStoreLeaseLostError.isInstance(await rejectionOf(store().startPausedCall(pause.token, stale)))).toBe(
        true,
      );
      expect((await store().getPause(pause.token))?.startedAt).toBeUndefined();
      expect(RunStoreNotFoundError.isInstance(await rejectionOf(store().startPausedCall(newToken(), fresh!)))).toBe(
        true,
      );
    });
  });

  describe('decidePause', () => {
    it('records the first decision and resolves the pause as stored; later decisions do not replace it', async () => {
      const pause = await pausedRun();
      const allowed = await store().decidePause(pause.token, { decision: 'allow' }, 1_500_000);
      expect(allowed).toEqual({ ...pause, decision: { decision: 'allow' }, applied: true });
      const again = await store().decidePause(pause.token, { decision: 'deny', reason: 'no' }, 1_600_000);
      expect(again).toMatchObject({ decision: { decision: 'allow' }, applied: false });
      expect((await store().getPause(pause.token))?.decision).toEqual({ decision: 'allow' });
    });

    it('gives every one of many concurrent deciders the same, first decision', async () => {
      const pause = await pausedRun();
      const decisions: PauseDecision[] = Array.from({ length: 10 }, (_, index) =>
        index % 2 === 0 ? { decision: 'allow' } : { decision: 'deny', reason: `reason ${index}` },
      );
      const results = await Promise.all(
        decisions.map((decision) => store().decidePause(pause.token, decision, 1_500_000)),
      );
      const stored = (await store().getPause(pause.token))?.decision;
      expect(stored).toBeDefined();
      for (const result of results) expect(result.decision).toEqual(stored);
      expect(results.filter((result) => result.applied)).toHaveLength(1);
    });

    it('keeps a denial’s reason and nothing else of the decision', async () => {
      const pause = await pausedRun();
      const denied = await store().decidePause(
        pause.token,
        { decision: 'deny', reason: awkwardText, extra: 1 } as never,
        1_500_000,
      );
      expect(denied.decision).toStrictEqual({ decision: 'deny', reason: awkwardText });
    });

    it('records who decided (by) with an approval and a denial, and the first decider stays', async () => {
      const approved = await pausedRun();
      const first = await store().decidePause(approved.token, { decision: 'allow', by: awkwardText }, 1_500_000);
      expect(first.decision).toStrictEqual({ decision: 'allow', by: awkwardText });
      const second = await store().decidePause(approved.token, { decision: 'allow', by: 'bob' }, 1_500_000);
      expect(second).toMatchObject({ applied: false, decision: { decision: 'allow', by: awkwardText } });
      expect((await store().getPause(approved.token))?.decision).toStrictEqual({ decision: 'allow', by: awkwardText });
      const denied = await pausedRun();
      await store().decidePause(denied.token, { decision: 'deny', reason: 'no', by: 'carol' }, 1_500_000);
      expect((await store().getPause(denied.token))?.decision).toStrictEqual({
        decision: 'deny',
        reason: 'no',
        by: 'carol',
      });
      const refused = await pausedRun();
      await expect(
        store().decidePause(refused.token, { decision: 'allow', by: 7 } as never, 1_500_000),
      ).rejects.toBeInstanceOf(RunStoreError);
      expect((await store().getPause(refused.token))?.decision).toBeUndefined();
    });

    it('accepts a decision at expiresAt and refuses one after it with RunStoreExpiredError', async () => {
      const onTime = await pausedRun();
      expect((await store().decidePause(onTime.token, { decision: 'allow' }, onTime.expiresAt)).decision).toEqual({
        decision: 'allow',
      });
      const late = await pausedRun();
      const error = await rejectionOf(store().decidePause(late.token, { decision: 'allow' }, late.expiresAt + 1));
      expect(RunStoreExpiredError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/expired at 1970-01-01T00:33:20\.000Z with no decision/);
      expect((await store().getPause(late.token))?.decision).toBeUndefined();
    });

    it('resolves an already decided pause after it expired (deciding twice is safe)', async () => {
      const pause = await pausedRun();
      await store().decidePause(pause.token, { decision: 'deny' }, 1_500_000);
      expect((await store().decidePause(pause.token, { decision: 'deny' }, 9_000_000)).decision).toEqual({
        decision: 'deny',
      });
    });

    it('takes the time from the clock when none is given', async () => {
      const pause = await pausedRun({ expiresAt: Date.now() + 60_000 });
      expect((await store().decidePause(pause.token, { decision: 'allow' })).decision).toEqual({ decision: 'allow' });
      const expired = await pausedRun({ expiresAt: Date.now() - 1 });
      expect(
        RunStoreExpiredError.isInstance(await rejectionOf(store().decidePause(expired.token, { decision: 'allow' }))),
      ).toBe(true);
    });

    it('rejects an unknown token with RunStoreNotFoundError and a malformed decision with RunStoreError', async () => {
      const unknown = await rejectionOf(store().decidePause(newToken(), { decision: 'allow' }));
      expect(RunStoreNotFoundError.isInstance(unknown)).toBe(true);
      expect(unknown.message).toMatch(/No pause has that token/);
      const pause = await pausedRun();
      const malformed = await rejectionOf(store().decidePause(pause.token, { decision: 'yes' } as never));
      expect(RunStoreError.isInstance(malformed)).toBe(true);
      expect(malformed.message).toMatch(/decision must be \{ decision: 'allow', by\? \}/);
    });
  });
}
