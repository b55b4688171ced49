import { RunStoreError } from './run-store-errors.js';
import type { SqlClient } from './sql-client.js';

/** One schema step: applied once, in its own transaction, and recorded in `sluice_run_store_migrations`. */
export interface RunStoreMigration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
}

/**
 * The advisory-lock class of the run store (`'sluc'` as a 32-bit integer); the second key tells
 * the locks apart: 0 for migrations, the hash of a conversation for its stored values.
 */
export const advisoryLockClass = 0x736c7563;

// Every JSON column is `text` holding exactly what JSON.stringify wrote (jsonb would reorder keys);
// times are milliseconds since the epoch as bigint.
export const runStoreMigrations: readonly RunStoreMigration[] = [
  {
    version: 1,
    name: 'runs, journal, pauses, stored values',
    statements: [
      `CREATE TABLE sluice_runs (
        run_id text PRIMARY KEY,
        conversation text,
        program text NOT NULL,
        language text NOT NULL,
        seed bigint NOT NULL,
        start_time bigint NOT NULL,
        fingerprint text NOT NULL,
        metadata text,
        status text NOT NULL CHECK (status IN ('running', 'paused', 'finished')),
        outcome text,
        owner text,
        lease_expires_at bigint,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      )`,
      `CREATE TABLE sluice_journal_entries (
        run_id text NOT NULL REFERENCES sluice_runs (run_id) ON DELETE CASCADE,
        seq integer NOT NULL CHECK (seq >= 1),
        namespace text NOT NULL,
        name text NOT NULL,
        input text NOT NULL,
        positional text,
        intent_at bigint NOT NULL,
        outcome_ok boolean,
        outcome_value text,
        outcome_message text,
        outcome_at bigint,
        PRIMARY KEY (run_id, seq)
      )`,
      `CREATE TABLE sluice_pauses (
        token text PRIMARY KEY,
        run_id text NOT NULL REFERENCES sluice_runs (run_id) ON DELETE CASCADE,
        seq integer NOT NULL,
        tool text NOT NULL,
        input text NOT NULL,
        reason text NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        decision text,
        decided_at bigint,
        UNIQUE (run_id, seq)
      )`,
      `CREATE TABLE sluice_stored_values (
        conversation text NOT NULL,
        key text NOT NULL,
        value text NOT NULL,
        chars integer NOT NULL,
        updated_at bigint NOT NULL,
        PRIMARY KEY (conversation, key)
      )`,
    ],
  },
  {
    version: 2,
    name: 'fencing tokens, started approved calls',
    statements: [
      'ALTER TABLE sluice_runs ADD COLUMN fence bigint NOT NULL DEFAULT 1',
      'ALTER TABLE sluice_pauses ADD COLUMN started_at bigint',
    ],
  },
  {
    version: 3,
    name: 'runs listed by conversation',
    statements: ['CREATE INDEX sluice_runs_by_conversation ON sluice_runs (conversation, created_at DESC)'],
  },
  {
    // Runs finished before this step keep no kind: they are listed as finished, under no kind filter.
    version: 4,
    name: 'outcome kinds of finished runs, runs listed by time',
    statements: [
      'ALTER TABLE sluice_runs ADD COLUMN outcome_kind text',
      'CREATE INDEX sluice_runs_by_time ON sluice_runs (created_at DESC, run_id)',
    ],
  },
];

/**
 * Brings the database's schema up to `migrations`, each step once and in its own transaction. A
 * transaction-scoped advisory lock serialises hosts that migrate the same database at once: the
 * second waits, then finds the step recorded. Refuses a database migrated past what it knows.
 */
export async function migrateRunStore(
  client: SqlClient,
  migrations: readonly RunStoreMigration[] = runStoreMigrations,
): Promise<void> {
  const known = Math.max(0, ...migrations.map((migration) => migration.version));
  for (const migration of migrations) {
    await client.transaction(async (transaction) => {
      await transaction.query('SELECT pg_advisory_xact_lock($1, 0)', [advisoryLockClass]);
      await transaction.query(
        `CREATE TABLE IF NOT EXISTS sluice_run_store_migrations (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at bigint NOT NULL
        )`,
      );
      const rows = await transaction.query<{ version: number }>('SELECT version FROM sluice_run_store_migrations');
      const applied = new Set(rows.map((row) => Number(row.version)));
      const newest = Math.max(0, ...applied);
      if (newest > known) {
        throw new RunStoreError({
          message: `The run store's database has schema version ${newest}, newer than the ${known} this @sluice/run-store knows: upgrade @sluice/run-store on this host (every host sharing the database needs the newest version).`,
        });
      }
      if (applied.has(migration.version)) return;
      for (const statement of migration.statements) await transaction.query(statement);
      await transaction.query(
        `INSERT INTO sluice_run_store_migrations (version, name, applied_at)
         VALUES ($1, $2, floor(extract(epoch FROM statement_timestamp()) * 1000))`,
        [migration.version, migration.name],
      );
    });
  }
}
