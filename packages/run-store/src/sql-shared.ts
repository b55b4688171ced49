import type { RunLease } from './run-store.js';
import { identifier, integer } from './run-store-codec.js';
import { RunStoreError, RunStoreLeaseLostError, RunStoreNotFoundError } from './run-store-errors.js';
import type { SqlParameter, SqlQueryable } from './sql-client.js';

/**
 * The database's clock in milliseconds, read once per statement (so a new run's lease is exactly
 * `createdAt + leaseMs`): leases are compared on one clock, whichever host asks.
 */
export const nowSql = 'floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint';

export async function runExists(db: SqlQueryable, runId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM sluice_runs WHERE run_id = $1', [runId])).length > 0;
}

export function unknownRun(runId: string): RunStoreNotFoundError {
  return new RunStoreNotFoundError({
    message: `No run ${JSON.stringify(runId)} in this run store: create it with createRun(start, owner, leaseMs) first.`,
  });
}

/** Checks a `lease` argument of a write to run `runId`; `undefined` stays `undefined` (an unfenced write). */
export function leaseArgument(runId: string, lease: RunLease | undefined): RunLease | undefined {
  if (lease === undefined) return undefined;
  if (typeof lease !== 'object' || lease === null)
    throw new RunStoreError({
      message: 'lease must be the RunLease that createRun, claimRun or renewRun resolved with.',
    });
  if (lease.runId !== runId)
    throw new RunStoreError({
      message: `The lease is for run ${JSON.stringify(lease.runId)}, not ${JSON.stringify(runId)}: pass the lease of the run being written.`,
    });
  identifier('lease.owner', lease.owner);
  integer('lease.fence', lease.fence, 1);
  return lease;
}

/**
 * A common table expression `held` with the run's row when `lease` still holds it (any row of the
 * run without a lease), locked `FOR SHARE` until the statement's transaction ends: a claim by
 * another host waits for the write to commit and then moves the fence on, and a write that comes
 * after the claim finds no row and changes nothing. `$1` must be the run id; the lease's owner and
 * fence are appended to `parameters`.
 */
export function heldRun(lease: RunLease | undefined, parameters: SqlParameter[], lock = 'FOR SHARE'): string {
  if (lease === undefined) return `held AS (SELECT run_id FROM sluice_runs WHERE run_id = $1 ${lock})`;
  parameters.push(lease.owner, lease.fence);
  const owner = parameters.length - 1;
  return `held AS (SELECT run_id FROM sluice_runs WHERE run_id = $1 AND owner = $${owner} AND fence = $${owner + 1} ${lock})`;
}

/**
 * After a write that changed nothing: rejects with {@link RunStoreNotFoundError} for an unknown run
 * and `RunStoreLeaseLostError` when `lease` no longer holds it; resolves when neither explains it.
 */
export async function explainUnwritten(db: SqlQueryable, runId: string, lease: RunLease | undefined): Promise<void> {
  const [row] = await db.query<{ owner: string | null; fence: number | string }>(
    'SELECT owner, fence FROM sluice_runs WHERE run_id = $1',
    [runId],
  );
  if (row === undefined) throw unknownRun(runId);
  if (lease !== undefined && (row.owner !== lease.owner || Number(row.fence) !== lease.fence)) throw leaseLost(lease);
}

/**
 * Locks the run's row in the current transaction, checking that `lease` (when given) still holds it.
 * A transaction that goes on to update the row itself takes it `FOR UPDATE` from the start: two
 * that each held a share lock and then both asked for the row would deadlock.
 */
export async function lockHeldRun(
  db: SqlQueryable,
  runId: string,
  lease: RunLease | undefined,
  lock: 'FOR SHARE' | 'FOR UPDATE' = 'FOR SHARE',
): Promise<void> {
  const parameters: SqlParameter[] = [runId];
  const rows = await db.query(`WITH ${heldRun(lease, parameters, lock)} SELECT run_id FROM held`, parameters);
  if (rows.length === 0) await explainUnwritten(db, runId, lease);
}

export function leaseLost(lease: RunLease): RunStoreLeaseLostError {
  return new RunStoreLeaseLostError({
    message: `Run ${JSON.stringify(lease.runId)} was claimed by another execution after ${JSON.stringify(lease.owner)} took it (fence ${lease.fence}): this host no longer holds it, and nothing was written.`,
  });
}
