import { resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { InvalidSettingsError } from '@sluice/code-runtime';
import { lockDirectory } from './pglite-directory-lock.js';
import type { RunStore } from './run-store.js';
import type { SqlClient, SqlQueryable } from './sql-client.js';
import { createSqlRunStore } from './sql-run-store.js';

/** Settings of {@link createPGliteRunStore}. */
export interface PGliteRunStoreSettings {
  /**
   * The directory the database lives in, created when missing; relative paths are resolved against
   * the working directory when the store is created. Default: none, the database is in memory and
   * gone when the store closes or the process ends. One store at a time may open a directory: a
   * `sluice-run-store.lock` file in it names the process (a dead process's lock is taken over).
   */
  readonly dataDir?: string;
}

/**
 * The embedded run store: PostgreSQL compiled to WebAssembly (PGlite) in this process, so it needs
 * no server and the SQL is the same as {@link createPostgresRunStore}'s. Nothing is loaded until the
 * first call (the first open of a new directory takes a few seconds; reopening one well under one).
 */
export function createPGliteRunStore(settings: PGliteRunStoreSettings = {}): RunStore {
  if (typeof settings !== 'object' || settings === null)
    throw new InvalidSettingsError({
      message: 'createPGliteRunStore takes an object of settings.',
      setting: 'settings',
    });
  const { dataDir } = settings;
  if (dataDir !== undefined && (typeof dataDir !== 'string' || dataDir.length === 0 || dataDir.includes('://')))
    throw new InvalidSettingsError({
      message: 'dataDir must be a directory path (a non-empty string), or left out for a database in memory.',
      setting: 'dataDir',
    });
  const directory = dataDir === undefined ? undefined : resolve(dataDir);
  return createSqlRunStore('pglite', async () => {
    const release = directory === undefined ? () => undefined : lockDirectory(directory);
    try {
      const { PGlite } = await import('@electric-sql/pglite');
      return pgliteClient(await PGlite.create(directory === undefined ? {} : { dataDir: directory }), release);
    } catch (error) {
      release();
      throw error;
    }
  });
}

function queryable(target: Pick<PGlite, 'query'>): SqlQueryable {
  return {
    query: async (text, parameters = []) => (await target.query(text, [...parameters])).rows as never,
  };
}

function pgliteClient(database: PGlite, release: () => void): SqlClient {
  return {
    ...queryable(database),
    transaction: (work) => database.transaction((transaction) => work(queryable(transaction))),
    async close() {
      try {
        await database.close();
      } finally {
        release();
      }
    },
  };
}
