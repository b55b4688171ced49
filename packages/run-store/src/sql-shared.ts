import { RunStoreNotFoundError } from './run-store-errors.js';
import type { SqlQueryable } from './sql-client.js';

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
