import { describe, expect, it } from 'vitest';
import type { JournalIntent } from './run-store.js';
import { awkwardText, type CurrentStore, rejectionOf, startRecord } from './run-store-behaviour.test-helper.js';
import { RunStoreError, RunStoreNotFoundError } from './run-store-errors.js';

export function describeJournalBehaviour(store: CurrentStore): void {
  const newRun = async () => {
    const start = startRecord();
    await store().createRun(start, 'host-a', 60_000);
    return start.runId;
  };

  describe('recordIntent, recordOutcome and readJournal', () => {
    it('stores intents and outcomes byte for byte and reads the journal in seq order', async () => {
      const runId = await newRun();
      const intents: JournalIntent[] = [
        { namespace: 'tools', name: 'search', input: { query: awkwardText, limit: 3, filters: { b: 1, a: 2 } } },
        {
          namespace: 'github',
          name: 'create_issue',
          input: ['title', { body: 'x' }],
          positional: ['title', { body: 'x' }],
        },
        { namespace: awkwardText, name: awkwardText, input: null },
      ];
      // Recorded out of order, as calls started by Promise.all may be committed.
      const before = Date.now();
      const stored = await Promise.all([3, 1, 2].map((seq) => store().recordIntent(runId, seq, intents[seq - 1]!)));
      expect(stored.map((entry) => entry.seq)).toEqual([3, 1, 2]);
      expect(stored[1]?.intent).toEqual(intents[0]);
      expect(stored[1]?.intentAt).toBeGreaterThanOrEqual(before - 1_000);
      expect(stored[1] && 'outcome' in stored[1]).toBe(false);
      await store().recordOutcome(runId, 1, {
        ok: true,
        value: { results: [{ id: 2, title: awkwardText }], total: 1 },
      });
      await store().recordOutcome(runId, 2, { ok: false, message: `failed: ${awkwardText}` });

      const journal = await store().readJournal(runId);
      expect(journal.map((entry) => entry.seq)).toEqual([1, 2, 3]);
      expect(JSON.stringify(journal.map((entry) => entry.intent))).toBe(JSON.stringify(intents));
      expect(JSON.stringify(journal[0]?.outcome)).toBe(
        JSON.stringify({ ok: true, value: { results: [{ id: 2, title: awkwardText }], total: 1 } }),
      );
      expect(journal[1]?.outcome).toEqual({ ok: false, message: `failed: ${awkwardText}` });
      expect(journal[1]?.outcomeAt).toBeGreaterThanOrEqual(journal[1]?.intentAt ?? Number.POSITIVE_INFINITY);
      expect(journal[2] && ('outcome' in journal[2] || 'outcomeAt' in journal[2])).toBe(false);
    });

    it('keeps the first intent for a seq and resolves it, so the caller can compare', async () => {
      const runId = await newRun();
      const first = { namespace: 'tools', name: 'a', input: { x: 1 } };
      await store().recordIntent(runId, 1, first);
      const again = await store().recordIntent(runId, 1, { namespace: 'tools', name: 'b', input: { x: 2 } });
      expect(again.intent).toEqual(first);
      expect((await store().readJournal(runId)).map((entry) => entry.intent.name)).toEqual(['a']);
    });

    it('keeps the first outcome for a seq', async () => {
      const runId = await newRun();
      await store().recordIntent(runId, 1, { namespace: 'tools', name: 'a', input: {} });
      await store().recordOutcome(runId, 1, { ok: true, value: 'first' });
      await store().recordOutcome(runId, 1, { ok: false, message: 'second' });
      expect((await store().readJournal(runId))[0]?.outcome).toEqual({ ok: true, value: 'first' });
    });

    it('stores only ok and value, or ok and message, of an outcome', async () => {
      const runId = await newRun();
      await store().recordIntent(runId, 1, { namespace: 'tools', name: 'a', input: {} });
      await store().recordOutcome(runId, 1, { ok: true, value: 0, extra: 'dropped' } as never);
      expect((await store().readJournal(runId))[0]?.outcome).toStrictEqual({ ok: true, value: 0 });
    });

    it('rejects an outcome without an intent, and an intent of an unknown run, with RunStoreNotFoundError', async () => {
      const runId = await newRun();
      const noIntent = await rejectionOf(store().recordOutcome(runId, 7, { ok: true, value: 1 }));
      expect(RunStoreNotFoundError.isInstance(noIntent)).toBe(true);
      expect(noIntent.message).toMatch(/no journal entry 7: record its intent/);
      const noRun = await rejectionOf(store().recordIntent('no-such-run', 1, { namespace: 't', name: 'a', input: 1 }));
      expect(RunStoreNotFoundError.isInstance(noRun)).toBe(true);
      expect(await store().readJournal('no-such-run')).toEqual([]);
    });

    it.each([
      ['seq 0', 0, /seq must be an integer from 1 to 2147483647/],
      ['a fractional seq', 1.5, /seq must be an integer/],
      ['a seq past PostgreSQL integer', 2 ** 31, /seq must be an integer/],
    ])('refuses %s with a RunStoreError', async (_, seq, message) => {
      const runId = await newRun();
      const error = await rejectionOf(store().recordIntent(runId, seq, { namespace: 't', name: 'a', input: 1 }));
      expect(RunStoreError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(message);
    });

    it('refuses an input that is not JSON and an outcome of the wrong shape', async () => {
      const runId = await newRun();
      await expect(
        store().recordIntent(runId, 1, { namespace: 't', name: 'a', input: undefined as never }),
      ).rejects.toThrow(/intent\.input must be a JSON value/);
      await store().recordIntent(runId, 1, { namespace: 't', name: 'a', input: 1 });
      await expect(store().recordOutcome(runId, 1, { value: 1 } as never)).rejects.toThrow(
        /outcome must be \{ ok: true, value \} or \{ ok: false, message \}/,
      );
    });
  });
}
