import type { JsonValue } from '@sluice/code-runtime';
import type {
  JournalEntry,
  JournalIntent,
  JournalOutcome,
  RunLease,
  RunListQuery,
  RunRecord,
  RunStatus,
  RunStore,
  StartRecord,
} from './run-store.js';
import { outcomeKindOf } from './run-store.js';
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
import type { SqlClient, SqlParameter, SqlQueryable } from './sql-client.js';
import { countPendingPauses, createPause, decidePause, getPause, listPauses, startPausedCall } from './sql-pauses.js';
import { explainUnwritten, heldRun, leaseArgument, nowSql, runExists, unknownRun } from './sql-shared.js';
import { commitValues, readValues } from './sql-stored-values.js';

const journalColumns =
  'seq, namespace, name, input, positional, intent_at, outcome_ok, outcome_value, outcome_message, outcome_at';

const leaseColumns = 'run_id, owner, fence, lease_expires_at';

interface LeaseRow {
  run_id: string;
  owner: string;
  fence: number | string;
  lease_expires_at: number | string;
}

function runLease(row: LeaseRow): RunLease {
  return { runId: row.run_id, owner: row.owner, fence: Number(row.fence), expiresAt: Number(row.lease_expires_at) };
}

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

    async createRun(start: StartRecord, owner: string, leaseMs: number): Promise<RunLease> {
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
      const inserted = await query<LeaseRow>(
        `INSERT INTO sluice_runs (run_id, conversation, program, language, seed, start_time, fingerprint, metadata,
           status, owner, lease_expires_at, fence, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'running', $9, ${nowSql} + $10, 1, ${nowSql}, ${nowSql})
         ON CONFLICT (run_id) DO NOTHING
         RETURNING ${leaseColumns}`,
        row,
      );
      if (inserted[0] === undefined)
        throw new RunStoreConflictError({
          message: `A run with id ${JSON.stringify(runId)} already exists: choose a new id (a UUID) for a new run, or getRun/claimRun to continue it.`,
        });
      return runLease(inserted[0]);
    },

    async getRun(runId: string): Promise<RunRecord | undefined> {
      const rows = await query<RunRow>('SELECT * FROM sluice_runs WHERE run_id = $1', [identifier('runId', runId)]);
      return rows[0] === undefined ? undefined : runRecord(rows[0]);
    },

    async listRuns(filter: RunListQuery = {}): Promise<RunRecord[]> {
      const time = (what: string, value: number | undefined) =>
        value === undefined ? null : integer(what, value, Number.MIN_SAFE_INTEGER);
      const parameters: SqlParameter[] = [
        filter.conversation === undefined ? null : identifier('conversation', filter.conversation),
        filter.status === undefined ? null : runStatus(filter.status),
        integer('limit', filter.limit ?? 50, 1, 500),
        time('createdFrom', filter.createdFrom),
        time('createdBefore', filter.createdBefore),
      ];
      const conditions = [
        '($1::text IS NULL OR conversation = $1)',
        '($2::text IS NULL OR status = $2)',
        '($4::bigint IS NULL OR created_at >= $4)',
        '($5::bigint IS NULL OR created_at < $5)',
      ];
      if (filter.outcomeKinds !== undefined) {
        if (!Array.isArray(filter.outcomeKinds))
          throw new RunStoreError({ message: 'outcomeKinds must be an array of strings.' });
        const kinds = filter.outcomeKinds.map((kind, index) => identifier(`outcomeKinds[${index}]`, kind));
        if (kinds.length === 0) return [];
        const first = parameters.length + 1;
        parameters.push(...kinds);
        conditions.push(`outcome_kind IN (${kinds.map((_, index) => `$${first + index}`).join(', ')})`);
      }
      if (filter.after !== undefined) {
        const createdAt = integer('after.createdAt', filter.after?.createdAt, Number.MIN_SAFE_INTEGER);
        const runId = identifier('after.runId', filter.after.runId);
        parameters.push(createdAt, runId);
        const at = parameters.length - 1;
        // Newest first, then by run id: what comes after is older, or as old with a later id.
        conditions.push(`(created_at < $${at} OR (created_at = $${at} AND run_id > $${at + 1}))`);
      }
      const rows = await query<RunRow>(
        `SELECT * FROM sluice_runs WHERE ${conditions.join(' AND ')} ORDER BY created_at DESC, run_id LIMIT $3`,
        parameters,
      );
      return rows.map(runRecord);
    },

    async claimRun(runId: string, owner: string, leaseMs: number): Promise<RunLease | undefined> {
      const parameters = [identifier('runId', runId), identifier('owner', owner), integer('leaseMs', leaseMs, 0)];
      // One conditional UPDATE: two hosts racing for the same run serialise on its row, and the
      // second re-reads the condition after the first commits, so exactly one of them wins. The new
      // fence refuses every write of earlier leases, this owner's included.
      const claimed = await query<LeaseRow>(
        `UPDATE sluice_runs SET owner = $2, lease_expires_at = ${nowSql} + $3, fence = fence + 1, updated_at = ${nowSql}
         WHERE run_id = $1 AND (owner IS NULL OR owner = $2 OR lease_expires_at <= ${nowSql})
         RETURNING ${leaseColumns}`,
        parameters,
      );
      if (claimed[0] !== undefined) return runLease(claimed[0]);
      if (!(await runExists(await database(), runId))) throw unknownRun(runId);
      return undefined;
    },

    async renewRun(lease: RunLease, leaseMs: number): Promise<RunLease | undefined> {
      const held = leaseArgument(identifier('lease.runId', lease?.runId), lease) as RunLease;
      const renewed = await query<LeaseRow>(
        `UPDATE sluice_runs SET lease_expires_at = ${nowSql} + $4, updated_at = ${nowSql}
         WHERE run_id = $1 AND owner = $2 AND fence = $3
         RETURNING ${leaseColumns}`,
        [held.runId, held.owner, held.fence, integer('leaseMs', leaseMs, 0)],
      );
      return renewed[0] === undefined ? undefined : runLease(renewed[0]);
    },

    async releaseRun(lease: RunLease): Promise<void> {
      const held = leaseArgument(identifier('lease.runId', lease?.runId), lease) as RunLease;
      await query(
        `UPDATE sluice_runs SET owner = NULL, lease_expires_at = NULL, updated_at = ${nowSql}
         WHERE run_id = $1 AND owner = $2 AND fence = $3`,
        [held.runId, held.owner, held.fence],
      );
    },

    async setStatus(runId: string, status: RunStatus, outcome?: JsonValue, lease?: RunLease): Promise<void> {
      identifier('runId', runId);
      const held = leaseArgument(runId, lease);
      runStatus(status);
      if (outcome !== undefined && status !== 'finished')
        throw new RunStoreError({
          message: `setStatus takes an outcome only with status 'finished', got status ${JSON.stringify(status)} and an outcome.`,
        });
      const outcomeText = outcome === undefined ? null : jsonText('outcome', outcome);
      const parameters: SqlParameter[] = [runId, status, outcomeText, outcomeKindOf(outcome) ?? null];
      const fenced = held === undefined ? '' : ` AND owner = $5 AND fence = $6`;
      if (held !== undefined) parameters.push(held.owner, held.fence);
      const updated = await query(
        `UPDATE sluice_runs SET status = $2, outcome = $3, outcome_kind = $4, updated_at = ${nowSql}
         WHERE run_id = $1 AND status <> 'finished'${fenced}
         RETURNING run_id`,
        parameters,
      );
      if (updated.length === 0) await explainUnwritten(await database(), runId, held);
    },

    async recordIntent(runId: string, seq: number, intent: JournalIntent, lease?: RunLease): Promise<JournalEntry> {
      const parameters: SqlParameter[] = [
        identifier('runId', runId),
        sequence(seq),
        freeText('intent.namespace', intent?.namespace),
        freeText('intent.name', intent.name),
        jsonText('intent.input', intent.input),
        intent.positional === undefined ? null : jsonText('intent.positional', intent.positional),
      ];
      const held = leaseArgument(runId, lease);
      const inserted = await query<JournalRow>(
        `WITH ${heldRun(held, parameters)}
         INSERT INTO sluice_journal_entries (run_id, seq, namespace, name, input, positional, intent_at)
         SELECT $1, $2, $3, $4, $5, $6, ${nowSql} FROM held
         ON CONFLICT (run_id, seq) DO NOTHING
         RETURNING ${journalColumns}`,
        parameters,
      );
      if (inserted[0] !== undefined) return journalEntry(inserted[0]);
      const db = await database();
      await explainUnwritten(db, runId, held);
      const [entry] = await db.query<JournalRow>(
        `SELECT ${journalColumns} FROM sluice_journal_entries WHERE run_id = $1 AND seq = $2`,
        [runId, seq],
      );
      if (entry === undefined) throw unknownRun(runId);
      return journalEntry(entry);
    },

    async recordOutcome(runId: string, seq: number, outcome: JournalOutcome, lease?: RunLease): Promise<void> {
      identifier('runId', runId);
      sequence(seq);
      const held = leaseArgument(runId, lease);
      let columns: [boolean, string | null, string | null];
      if (outcome?.ok === true) columns = [true, jsonText('outcome.value', outcome.value), null];
      else if (outcome?.ok === false) columns = [false, null, freeText('outcome.message', outcome.message)];
      else throw new RunStoreError({ message: 'outcome must be { ok: true, value } or { ok: false, message }.' });
      // The first outcome stays: a host that reran the call after a crash cannot rewrite history.
      const parameters: SqlParameter[] = [runId, seq, ...columns];
      const updated = await query(
        `WITH ${heldRun(held, parameters)}
         UPDATE sluice_journal_entries AS entry
         SET outcome_ok = $3, outcome_value = $4, outcome_message = $5, outcome_at = ${nowSql}
         FROM held
         WHERE entry.run_id = held.run_id AND entry.seq = $2 AND entry.outcome_ok IS NULL
         RETURNING entry.seq`,
        parameters,
      );
      if (updated.length > 0) return;
      const db = await database();
      await explainUnwritten(db, runId, held);
      const existing = await db.query('SELECT 1 FROM sluice_journal_entries WHERE run_id = $1 AND seq = $2', [
        runId,
        seq,
      ]);
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

    createPause: async (pause, lease) => createPause(await database(), pause, lease),
    getPause: async (token) => getPause(await database(), token),
    listPauses: async (runId) => listPauses(await database(), runId),
    countPendingPauses: async (now = Date.now()) => countPendingPauses(await database(), now),
    decidePause: async (token, decision, now = Date.now()) => decidePause(await database(), token, decision, now),
    startPausedCall: async (token, lease) => startPausedCall(await database(), token, lease),
    readValues: async (conversation) => readValues(await database(), conversation),
    commitValues: async (conversation, changes, lease) => commitValues(await database(), conversation, changes, lease),

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
