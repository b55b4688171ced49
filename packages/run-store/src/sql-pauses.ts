import type { PauseDecision, PauseRecord, RunLease } from './run-store.js';
import {
  decisionText,
  freeText,
  identifier,
  integer,
  jsonText,
  type PauseRow,
  pauseRecord,
  sequence,
} from './run-store-codec.js';
import { RunStoreConflictError, RunStoreExpiredError, RunStoreNotFoundError } from './run-store-errors.js';
import type { SqlClient, SqlQueryable } from './sql-client.js';
import { leaseArgument, lockHeldRun, nowSql, runExists, unknownRun } from './sql-shared.js';

const pauseColumns = 'token, run_id, seq, tool, input, reason, created_at, expires_at, decision, started_at';

/** `RunStore.createPause`: the pause and the run's `paused` status in one transaction. */
export async function createPause(
  client: SqlClient,
  pause: Omit<PauseRecord, 'decision' | 'startedAt'>,
  lease: RunLease | undefined,
): Promise<void> {
  const token = identifier('pause.token', pause?.token);
  const runId = identifier('pause.runId', pause.runId);
  const held = leaseArgument(runId, lease);
  const seq = sequence(pause.seq);
  const parameters = [
    token,
    runId,
    seq,
    freeText('pause.tool', pause.tool),
    jsonText('pause.input', pause.input),
    freeText('pause.reason', pause.reason),
    integer('pause.createdAt', pause.createdAt, Number.MIN_SAFE_INTEGER),
    integer('pause.expiresAt', pause.expiresAt, Number.MIN_SAFE_INTEGER),
  ];
  await client.transaction(async (db) => {
    if (held !== undefined) await lockHeldRun(db, runId, held, 'FOR UPDATE');
    const inserted = await db.query(
      `INSERT INTO sluice_pauses (token, run_id, seq, tool, input, reason, created_at, expires_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE EXISTS (SELECT 1 FROM sluice_runs WHERE run_id = $2)
       ON CONFLICT DO NOTHING
       RETURNING token`,
      parameters,
    );
    if (inserted.length === 0) {
      if (!(await runExists(db, runId))) throw unknownRun(runId);
      const taken = await db.query('SELECT 1 FROM sluice_pauses WHERE token = $1', [token]);
      throw new RunStoreConflictError({
        message:
          taken.length > 0
            ? 'That pause token already exists: make a new one from at least 128 random bits for each pause.'
            : `Run ${JSON.stringify(runId)} already paused at call ${seq}: a run pauses at most once per call (getPause/listPauses find that pause).`,
      });
    }
    await db.query(
      `UPDATE sluice_runs SET status = 'paused', updated_at = ${nowSql} WHERE run_id = $1 AND status <> 'finished'`,
      [runId],
    );
  });
}

/** `RunStore.getPause`. */
export async function getPause(db: SqlQueryable, token: string): Promise<PauseRecord | undefined> {
  const rows = await db.query<PauseRow>(`SELECT ${pauseColumns} FROM sluice_pauses WHERE token = $1`, [
    identifier('token', token),
  ]);
  return rows[0] === undefined ? undefined : pauseRecord(rows[0]);
}

/** `RunStore.listPauses`. */
export async function listPauses(db: SqlQueryable, runId: string): Promise<PauseRecord[]> {
  const rows = await db.query<PauseRow>(`SELECT ${pauseColumns} FROM sluice_pauses WHERE run_id = $1 ORDER BY seq`, [
    identifier('runId', runId),
  ]);
  return rows.map(pauseRecord);
}

/** `RunStore.countPendingPauses`. */
export async function countPendingPauses(db: SqlQueryable, now: number): Promise<number> {
  const rows = await db.query<{ pending: number | string }>(
    `SELECT count(*) AS pending FROM sluice_pauses AS pause
     WHERE pause.decision IS NULL AND pause.expires_at >= $1
       AND EXISTS (SELECT 1 FROM sluice_runs AS run WHERE run.run_id = pause.run_id AND run.status = 'paused')`,
    [integer('now', now, Number.MIN_SAFE_INTEGER)],
  );
  return Number(rows[0]?.pending ?? 0);
}

/** `RunStore.decidePause`: the first decision wins, checked and written by one conditional UPDATE. */
export async function decidePause(
  db: SqlQueryable,
  token: string,
  decision: PauseDecision,
  now: number,
): Promise<PauseRecord & { readonly applied: boolean }> {
  const parameters = [identifier('token', token), decisionText(decision), integer('now', now, 0)];
  // Of two deciders at once, the second waits for the first's row lock, re-reads the condition,
  // finds a decision and changes nothing.
  const decided = await db.query<PauseRow>(
    `UPDATE sluice_pauses SET decision = $2, decided_at = $3
     WHERE token = $1 AND decision IS NULL AND expires_at >= $3
     RETURNING ${pauseColumns}`,
    parameters,
  );
  const row =
    decided[0] ?? (await db.query<PauseRow>(`SELECT ${pauseColumns} FROM sluice_pauses WHERE token = $1`, [token]))[0];
  if (row === undefined)
    throw new RunStoreNotFoundError({ message: 'No pause has that token: it is mistyped, or from another run store.' });
  const pause = pauseRecord(row);
  if (pause.decision === undefined)
    throw new RunStoreExpiredError({
      message: `That pause expired at ${new Date(pause.expiresAt).toISOString()} with no decision: it can no longer be resumed; run the program again to ask anew.`,
    });
  return { ...pause, applied: decided.length > 0 };
}

/** `RunStore.startPausedCall`: the lease checked and the call marked started, in one transaction. */
export async function startPausedCall(client: SqlClient, token: string, lease: RunLease): Promise<boolean> {
  identifier('token', token);
  const runId = identifier('lease.runId', lease?.runId);
  const held = leaseArgument(runId, lease);
  return client.transaction(async (db) => {
    await lockHeldRun(db, runId, held);
    const started = await db.query(
      `UPDATE sluice_pauses SET started_at = ${nowSql} WHERE token = $1 AND run_id = $2 AND started_at IS NULL RETURNING token`,
      [token, runId],
    );
    if (started.length > 0) return true;
    const known = await db.query('SELECT 1 FROM sluice_pauses WHERE token = $1 AND run_id = $2', [token, runId]);
    if (known.length === 0)
      throw new RunStoreNotFoundError({ message: `Run ${JSON.stringify(runId)} has no pause with that token.` });
    return false;
  });
}
