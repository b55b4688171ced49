// The one behaviour suite every run store passes: the PGlite store in memory and in a directory,
// and the PostgreSQL store against a real server. Each suite shares one store; its tests use fresh
// ids, so they do not see each other.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunStore, StartRecord } from './run-store.js';
import { RunStoreError } from './run-store-errors.js';
import { describeJournalBehaviour } from './run-store-journal.test-helper.js';
import { describePauseBehaviour } from './run-store-pauses.test-helper.js';
import { describeRunBehaviour } from './run-store-runs.test-helper.js';
import { describeStoredValueBehaviour } from './run-store-values.test-helper.js';

export interface RunStoreSubject {
  /** `kind` of the store under test. */
  readonly kind: string;
  /** Makes a store (no I/O until it is used); the suite closes what it makes. */
  create(): RunStore;
}

/** The shared store of a suite, for the parts of the suite. */
export type CurrentStore = () => RunStore;

export function describeRunStoreBehaviour(name: string, subject: RunStoreSubject): void {
  describe(name, () => {
    let store: RunStore | undefined;
    beforeAll(async () => {
      store = subject.create();
      await store.getRun('warm-up');
    }, 120_000);
    afterAll(async () => {
      await store?.close();
    });
    const current: CurrentStore = () => {
      if (store === undefined) throw new Error('the store did not open');
      return store;
    };

    it('names its kind', () => {
      expect(current().kind).toBe(subject.kind);
    });

    describeRunBehaviour(current);
    describeJournalBehaviour(current);
    describePauseBehaviour(current);
    describeStoredValueBehaviour(current);

    describe('close', () => {
      it('is idempotent, and every method then rejects with a RunStoreError saying the store is closed', async () => {
        const closed = subject.create();
        await closed.close();
        await closed.close();
        const error = await closed.getRun('any').catch((reason: unknown) => reason);
        expect(RunStoreError.isInstance(error)).toBe(true);
        expect((error as Error).message).toMatch(/closed: create a new one/);
        await expect(closed.commitValues('c', { a: 1 })).rejects.toThrow(/closed/);
      });
    });
  });
}

/** A start record with a fresh run id. */
export function startRecord(overrides: Partial<StartRecord> = {}): StartRecord {
  return {
    runId: randomUUID(),
    program: 'const a = await tools.add({ a: 1, b: 2 });\nreturn a;',
    language: 'typescript',
    seed: 4_294_967_295,
    startTime: 1_764_547_200_000,
    fingerprint: 'engine@1+durable@1',
    ...overrides,
  };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** Text that PostgreSQL's `text` cannot hold as it is, and that JSON round-trips exactly. */
export const awkwardText = 'nul:\u0000 lone:\ud800 pair:\ud83d\ude00 line:\u2028 quote:" back:\\ é';
