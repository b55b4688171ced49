// Plain SQL on a run store's database, beside the RunStore API, for what no host should do: edit a
// recorded start record (a replay test), or terminate a host's connections (a store fault). The
// database clients are the run store's own dependencies, resolved from its package.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StoreKind } from './fault-host-kit.js';

const fromRunStore = createRequire(join(import.meta.dirname, '..', '..', '..', 'run-store', 'package.json'));

interface Queryable {
  query(text: string, parameters?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  close(): Promise<void>;
}

interface PgClient {
  connect(): Promise<void>;
  query(text: string, parameters?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}

async function connect(kind: StoreKind, where: string): Promise<Queryable> {
  if (kind === 'postgres') {
    const pg = fromRunStore('pg') as { Client: new (settings: { connectionString: string }) => PgClient };
    const client = new pg.Client({ connectionString: where });
    await client.connect();
    return { query: (text, parameters) => client.query(text, parameters), close: () => client.end() };
  }
  // The ESM entry of the run store's PGlite (the `require` condition would give its CommonJS copy).
  const entry = join(fromRunStore.resolve('@electric-sql/pglite'), '..', 'index.js');
  const { PGlite } = (await import(pathToFileURL(entry).href)) as {
    PGlite: { create(options: { dataDir: string }): Promise<Queryable> };
  };
  return PGlite.create({ dataDir: where });
}

/**
 * Replaces the program of run `runId`'s start record, as an edited journal would. On PGlite, only
 * while no host has the directory open.
 */
export async function editStoredProgram(kind: StoreKind, where: string, runId: string, program: string): Promise<void> {
  const database = await connect(kind, where);
  try {
    // The store keeps the program as JSON text, as it keeps every free text.
    const { rows } = await database.query('UPDATE sluice_runs SET program = $2 WHERE run_id = $1 RETURNING run_id', [
      runId,
      JSON.stringify(program),
    ]);
    if (rows.length !== 1) throw new Error(`no run ${runId} to edit`);
  } finally {
    await database.close();
  }
}

/** Terminates every connection to `url`'s database but this one; resolves how many there were. */
export async function terminateBackends(url: string): Promise<number> {
  const database = await connect('postgres', url);
  try {
    const { rows } = await database.query(
      `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    return rows.filter((row) => row.done === true).length;
  } finally {
    await database.close();
  }
}
