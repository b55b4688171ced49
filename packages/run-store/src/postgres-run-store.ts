import { InvalidSettingsError } from '@sluice/code-runtime';
import type { Pool, PoolClient } from 'pg';
import type { RunStore } from './run-store.js';
import type { SqlClient, SqlQueryable } from './sql-client.js';
import { createSqlRunStore } from './sql-run-store.js';

/**
 * Settings of {@link createPostgresRunStore}: a connection string (the store makes and ends its own
 * pool), or a node-postgres `Pool` the caller made and still owns (`close()` leaves it open).
 */
export type PostgresRunStoreSettings =
  | {
      /** `postgres://user:password@host:port/database`, as node-postgres reads it. */
      readonly connectionString: string;
      readonly pool?: undefined;
    }
  | {
      /** A node-postgres pool; the store borrows a client per statement or transaction. */
      readonly pool: Pool;
      readonly connectionString?: undefined;
    };

/**
 * The run store in a PostgreSQL database that several hosts share. No connection is made until the
 * first call, which also applies the schema's migrations (safe when hosts start at once).
 */
export function createPostgresRunStore(settings: PostgresRunStoreSettings): RunStore {
  const { connectionString, pool } = (settings ?? {}) as Partial<Record<'connectionString' | 'pool', unknown>>;
  if ((connectionString === undefined) === (pool === undefined))
    throw new InvalidSettingsError({
      message: 'createPostgresRunStore takes exactly one of connectionString (a postgres:// URL) and pool (a pg Pool).',
      setting: connectionString === undefined ? 'connectionString' : 'pool',
    });
  if (connectionString !== undefined && (typeof connectionString !== 'string' || connectionString.length === 0))
    throw new InvalidSettingsError({
      message: 'connectionString must be a non-empty string such as postgres://user:password@localhost:5432/sluice.',
      setting: 'connectionString',
    });
  if (pool !== undefined && typeof (pool as Partial<Pool> | null)?.connect !== 'function')
    throw new InvalidSettingsError({
      message: 'pool must be a node-postgres Pool (new pg.Pool(...)).',
      setting: 'pool',
    });
  return createSqlRunStore('postgres', async () => {
    if (pool !== undefined) return poolClient(pool as Pool, false);
    const { default: pg } = await import('pg');
    const own = new pg.Pool({ connectionString: connectionString as string });
    // An idle connection that breaks (a server restart) is dropped from the pool and replaced on
    // the next query; without a listener its error would end the host process.
    own.on('error', () => undefined);
    return poolClient(own, true);
  });
}

function queryable(target: Pick<Pool | PoolClient, 'query'>): SqlQueryable {
  return {
    query: async (text, parameters = []) => (await target.query(text, [...parameters])).rows,
  };
}

function poolClient(pool: Pool, owned: boolean): SqlClient {
  return {
    ...queryable(pool),
    async transaction(work) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work(queryable(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error('ROLLBACK failed');
        });
        throw error;
      } finally {
        // A connection whose ROLLBACK failed is in an unknown state: destroy it, do not reuse it.
        client.release(broken);
      }
    },
    close: async () => {
      if (owned) await pool.end();
    },
  };
}
