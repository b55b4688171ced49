import type { JsonValue } from '@sluice/code-runtime';
import type {
  JournalEntry,
  JournalIntent,
  JournalOutcome,
  RunRecord,
  RunStatus,
  RunStore,
  StartRecord,
} from './run-store.js';
import {
  freeText,
  identifier,
  integer,
  type JournalRow,
  journalEntry,
  jsonText,
  type RunRow,
  runRecord,
  runStatus,
  sequence,
} from './run-store-codec.js';
import { RunStoreConflictError, RunStoreError, RunStoreNotFoundError } from './run-store-errors.js';
import { migrateRunStore } from './run-store-migrations.js';
import type { SqlClient, SqlQueryable } from './sql-client.js';
import { createPause, decidePause, getPause, listPauses } from './sql-pauses.js';
import { nowSql, runExists, unknownRun } from './sql-shared.js';
import { commitValues, readValues } from './sql-stored-values.js';

const journalColumns =
  'seq, namespace, name, input, positional, intent_at, outcome_ok, outcome_value, outcome_message, outcome_at';

/**
 * The run store over any {@link SqlClient}: both providers are this, with their own `open`. The
 * connection is opened and the schema migrated on first use, never at construction.
 */
export function createSqlRunStore(kind: string, open: () => Promise<SqlClient>): RunStore {
  let opening: Promise<SqlClient> | undefined;
  let closing: Promise<void> | undefined;

  const start = async (): Promise<SqlClient> => {
    const client = await open();
    try {
      await migrateRunStore(client);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    return client;
  };
  const database = (): Promise<SqlClient> => {
    if (closing !== undefined)
      return Promise.reject(
        new RunStoreError({ message: `This ${kind} run store is closed: create a new one to use the database again.` }),
      );
    // A failed start is forgotten, so the next call tries again (the server may be back).
    opening ??= start().catch((error: unknown) => {
      opening = undefined;
      throw error;
    });
    return opening;
  };
  const query = async <Row extends object>(text: string, parameters: Parameters<SqlQueryable['query']>[1] = []) =>
    (await database()).query<Row>(text, parameters);
  const store: RunStore = {
    kind,

    async createRun(start: StartRecord, owner: string, leaseMs: number): Promise<void> {
      const runId = identifier('start.runId', start?.runId);
      const conversation =
        start.conversation === undefined ? null : identifier('start.conversation', start.conversation);
      const row = [
        runId,
        conversation,
        freeText('start.program', start.program),
        identifier('start.language', start.language),
        integer('start.seed', start.seed, 0, 2 ** 32 - 1),
        integer('start.startTime', start.startTime, Number.MIN_SAFE_INTEGER),
        identifier('start.fingerprint', start.fingerprint),
        start.metadata === undefined ? null : jsonText('start.metadata', start.metadata),
        identifier('owner', owner),
        integer('leaseMs', leaseMs, 0),
      ];
      const inserted = await query(
        `INSERT INTO sluice_runs (run_id, conversation, program, language, seed, start_time, fingerprint, metadata,
           status, owner, lease_expires_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'running', $9, ${nowSql} + $10, ${nowSql}, ${nowSql})
         ON CONFLICT (run_id) DO NOTHING
         RETURNING run_id`,
        row,
      );
      if (inserted.length === 0)
        throw new RunStoreConflictError({
          message: `A run with id ${JSON.stringify(runId)} already exists: choose a new id (a UUID) for a new run, or getRun/claimRun to continue it.`,
        });
    },

    async getRun(runId: string): Promise<RunRecord | undefined> {
      const rows = await query<RunRow>('SELECT * FROM sluice_runs WHERE run_id = $1', [identifier('runId', runId)]);
      return rows[0] === undefined ? undefined : runRecord(rows[0]);
    },

    async claimRun(runId: string, owner: string, leaseMs: number): Promise<boolean> {
      const parameters = [identifier('runId', runId), identifier('owner', owner), integer('leaseMs', leaseMs, 0)];
      // One conditional UPDATE: two hosts racing for the same run serialise on its row, and the
      // second re-reads the condition after the first commits, so exactly one of them wins.
      const claimed = await query(
        `UPDATE sluice_runs SET owner = $2, lease_expires_at = ${nowSql} + $3, updated_at = ${nowSql}
         WHERE run_id = $1 AND (owner IS NULL OR owner = $2 OR lease_expires_at <= ${nowSql})
         RETURNING run_id`,
        parameters,
      );
      if (claimed.length > 0) return true;
      if (!(await runExists(await database(), runId))) throw unknownRun(runId);
      return false;
    },

    async releaseRun(runId: string, owner: string): Promise<void> {
      await query(
        `UPDATE sluice_runs SET owner = NULL, lease_expires_at = NULL, updated_at = ${nowSql}
         WHERE run_id = $1 AND owner = $2`,
        [identifier('runId', runId), identifier('owner', owner)],
      );
    },

    async setStatus(runId: string, status: RunStatus, outcome?: JsonValue): Promise<void> {
      identifier('runId', runId);
      runStatus(status);
      if (outcome !== undefined && status !== 'finished')
        throw new RunStoreError({
          message: `setStatus takes an outcome only with status 'finished', got status ${JSON.stringify(status)} and an outcome.`,
        });
      const outcomeText = outcome === undefined ? null : jsonText('outcome', outcome);
      const updated = await query(
        `UPDATE sluice_runs SET status = $2, outcome = $3, updated_at = ${nowSql}
         WHERE run_id = $1 AND status <> 'finished'
         RETURNING run_id`,
        [runId, status, outcomeText],
      );
      if (updated.length === 0 && !(await runExists(await database(), runId))) throw unknownRun(runId);
    },

    async recordIntent(runId: string, seq: number, intent: JournalIntent): Promise<JournalEntry> {
      const parameters = [
        identifier('runId', runId),
        sequence(seq),
        freeText('intent.namespace', intent?.namespace),
        freeText('intent.name', intent.name),
        jsonText('intent.input', intent.input),
        intent.positional === undefined ? null : jsonText('intent.positional', intent.positional),
      ];
      const inserted = await query<JournalRow>(
        `INSERT INTO sluice_journal_entries (run_id, seq, namespace, name, input, positional, intent_at)
         SELECT $1, $2, $3, $4, $5, $6, ${nowSql} WHERE EXISTS (SELECT 1 FROM sluice_runs WHERE run_id = $1)
         ON CONFLICT (run_id, seq) DO NOTHING
         RETURNING ${journalColumns}`,
        parameters,
      );
      const entry =
        inserted[0] ??
        (
          await query<JournalRow>(
            `SELECT ${journalColumns} FROM sluice_journal_entries WHERE run_id = $1 AND seq = $2`,
            [runId, seq],
          )
        )[0];
      if (entry === undefined) throw unknownRun(runId);
      return journalEntry(entry);
    },

    async recordOutcome(runId: string, seq: number, outcome: JournalOutcome): Promise<void> {
      identifier('runId', runId);
      sequence(seq);
      let columns: [boolean, string | null, string | null];
      if (outcome?.ok === true) columns = [true, jsonText('outcome.value', outcome.value), null];
      else if (outcome?.ok === false) columns = [false, null, freeText('outcome.message', outcome.message)];
      else throw new RunStoreError({ message: 'outcome must be { ok: true, value } or { ok: false, message }.' });
      // The first outcome stays: a host that reran the call after a crash cannot rewrite history.
      const updated = await query(
        `UPDATE sluice_journal_entries
         SET outcome_ok = $3, outcome_value = $4, outcome_message = $5, outcome_at = ${nowSql}
         WHERE run_id = $1 AND seq = $2 AND outcome_ok IS NULL
         RETURNING seq`,
        [runId, seq, ...columns],
      );
      if (updated.length > 0) return;
      const existing = await query('SELECT 1 FROM sluice_journal_entries WHERE run_id = $1 AND seq = $2', [runId, seq]);
      if (existing.length === 0)
        throw new RunStoreNotFoundError({
          message: `Run ${JSON.stringify(runId)} has no journal entry ${seq}: record its intent (recordIntent) before its outcome.`,
        });
    },

    async readJournal(runId: string): Promise<JournalEntry[]> {
      const rows = await query<JournalRow>(
        `SELECT ${journalColumns} FROM sluice_journal_entries WHERE run_id = $1 ORDER BY seq`,
        [identifier('runId', runId)],
      );
      return rows.map(journalEntry);
    },

    createPause: async (pause) => createPause(await database(), pause),
    getPause: async (token) => getPause(await database(), token),
    listPauses: async (runId) => listPauses(await database(), runId),
    decidePause: async (token, decision, now = Date.now()) => decidePause(await database(), token, decision, now),
    readValues: async (conversation) => readValues(await database(), conversation),
    commitValues: async (conversation, changes) => commitValues(await database(), conversation, changes),

    close(): Promise<void> {
      closing ??= (async () => {
        const client = await opening?.catch(() => undefined);
        await client?.close();
      })();
      return closing;
    },
  };
  return store;
}
