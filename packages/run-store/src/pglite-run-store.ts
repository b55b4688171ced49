import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
 * The database a new store starts from: PGlite's `initdb` run once at build time, with this package's
 * migrations applied, dumped as a gzipped tar (`scripts/build-pglite-template.ts`). Loading it costs a
 * third of the CPU of running `initdb` (about 3 s against 10 s on a loaded 2-core machine).
 */
export const pgliteTemplateUrl = new URL('../dist/pglite-template.tar.gz', import.meta.url);

/**
 * The embedded run store: PostgreSQL compiled to WebAssembly (PGlite) in this process, so it needs
 * no server and the SQL is the same as {@link createPostgresRunStore}'s. Nothing is loaded until the
 * first call. A new database (in memory, or a directory without one yet) starts from a copy of one
 * initialised at build time instead of running `initdb`; reopening a directory takes well under a second.
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
      return pgliteClient(await openPGlite(directory), release);
    } catch (error) {
      release();
      throw error;
    }
  });
}

/**
 * Opens the database in `directory` (in memory without one). A new one is loaded from the build's
 * template when there is one; when that fails (a template from another PGlite build), what the load
 * wrote is removed and `initdb` makes the database, as without a template.
 */
export async function openPGlite(
  directory: string | undefined,
  template: () => Uint8Array | undefined = () =>
    existsSync(pgliteTemplateUrl) ? readFileSync(pgliteTemplateUrl) : undefined,
): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const options = directory === undefined ? {} : { dataDir: directory };
  const fresh = directory === undefined || !existsSync(join(directory, 'PG_VERSION'));
  const tarball = fresh ? template() : undefined;
  if (tarball === undefined) return await PGlite.create(options);
  const entries = () => (directory !== undefined && existsSync(directory) ? readdirSync(directory) : []);
  const before = new Set(entries());
  try {
    return await PGlite.create({ ...options, loadDataDir: new Blob([tarball as Uint8Array<ArrayBuffer>]) });
  } catch {
    // Only what the failed load wrote goes: the directory may hold the lock and files of its own.
    for (const entry of entries()) {
      if (!before.has(entry)) rmSync(join(directory!, entry), { recursive: true, force: true });
    }
    return await PGlite.create(options);
  }
}

function queryable(target: Pick<PGlite, 'query'>): SqlQueryable {
  return {
    query: async (text, parameters = []) => (await target.query(text, [...parameters])).rows as never,
  };
}

/** A PGlite database as the SQL client the shared run store speaks to; `release` runs after it closes. */
export function pgliteClient(database: PGlite, release: () => void): SqlClient {
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
