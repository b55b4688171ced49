import { randomUUID } from 'node:crypto';
import { InvalidSettingsError } from '@sluice/code-runtime';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresRunStore } from './postgres-run-store.js';
import { startTestPostgres, type TestPostgres } from './postgres-test-server.test-helper.js';
import { describeRunStoreBehaviour, rejectionOf, startRecord } from './run-store-behaviour.test-helper.js';
import { RunStoreError } from './run-store-errors.js';
import { runStoreMigrations } from './run-store-migrations.js';

let server: TestPostgres | undefined;
const postgres = () => {
  if (server === undefined) throw new Error('the test PostgreSQL server did not start');
  return server;
};
beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describeRunStoreBehaviour('PostgreSQL run store', {
  kind: 'postgres',
  create: () => createPostgresRunStore({ connectionString: postgres().connectionString() }),
});

/** Runs `work` with a pool of its own, ended afterwards. */
async function withPool<Result>(connectionString: string, work: (pool: pg.Pool) => Promise<Result>): Promise<Result> {
  const pool = new pg.Pool({ connectionString });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

describe('two PostgreSQL run stores on one database', () => {
  it('let exactly one claimant win each of 50 runs raced between them, three owners on each host', {
    timeout: 60_000,
  }, async () => {
    const connectionString = postgres().connectionString();
    const hosts = [createPostgresRunStore({ connectionString }), createPostgresRunStore({ connectionString })];
    try {
      const runs = Array.from({ length: 50 }, () => startRecord());
      // Leases of 0 ms: every run is free to claim from the start.
      for (const run of runs) await hosts[0]!.createRun(run, 'crashed-host', 0);
      // Warm both pools, so that neither host's claims wait for connections while the other's run.
      await Promise.all(hosts.flatMap((host) => runs.slice(0, 10).map((run) => host.getRun(run.runId))));
      const contenders = hosts.flatMap((host, index) =>
        ['x', 'y', 'z'].map((name) => ({ host, owner: `host-${index}-${name}` })),
      );
      const results = await Promise.all(
        runs.map(async (run) => {
          const wins = await Promise.all(contenders.map(({ host, owner }) => host.claimRun(run.runId, owner, 60_000)));
          const owner = (await hosts[1]!.getRun(run.runId))?.owner;
          return { winners: contenders.filter((_, index) => wins[index]).map((contender) => contender.owner), owner };
        }),
      );
      for (const { winners, owner } of results) expect(winners).toEqual([owner]);
    } finally {
      await Promise.all(hosts.map((host) => host.close()));
    }
  });

  it('migrate a new database at once without a failure, each migration applied once', { timeout: 60_000 }, async () => {
    const connectionString = await postgres().createDatabase(`migrate_${randomUUID().replaceAll('-', '')}`);
    const hosts = Array.from({ length: 4 }, () => createPostgresRunStore({ connectionString }));
    try {
      await Promise.all(hosts.map((host) => host.getRun('x')));
      await withPool(connectionString, async (pool) => {
        const { rows } = await pool.query('SELECT version, name FROM sluice_run_store_migrations ORDER BY version');
        expect(rows).toEqual(runStoreMigrations.map(({ version, name }) => ({ version, name })));
      });
    } finally {
      await Promise.all(hosts.map((host) => host.close()));
    }
  });

  it('refuse a database migrated past what this package knows', { timeout: 60_000 }, async () => {
    const connectionString = await postgres().createDatabase(`newer_${randomUUID().replaceAll('-', '')}`);
    const first = createPostgresRunStore({ connectionString });
    await first.getRun('x');
    await first.close();
    await withPool(connectionString, (pool) =>
      pool.query("INSERT INTO sluice_run_store_migrations VALUES (999, 'from the future', 0)"),
    );
    const store = createPostgresRunStore({ connectionString });
    try {
      const error = await rejectionOf(store.getRun('x'));
      expect(RunStoreError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/schema version 999, newer than the 4 this @sluice\/run-store knows: upgrade/);
    } finally {
      await store.close();
    }
  });
});

describe('createPostgresRunStore', () => {
  it.each([[{}], [{ connectionString: '' }], [{ connectionString: 'postgres://x', pool: {} }], [{ pool: {} }], [null]])(
    'refuses %j with InvalidSettingsError',
    (settings) => {
      expect(() => createPostgresRunStore(settings as never)).toThrow(InvalidSettingsError);
    },
  );

  it('leaves a pool it was given open, and ends the one it made', { timeout: 60_000 }, async () => {
    const application = `sluice-run-store-${randomUUID()}`;
    await withPool(postgres().connectionString(), async (pool) => {
      const borrowed = createPostgresRunStore({ pool });
      await borrowed.createRun(startRecord(), 'host-a', 1_000);
      await borrowed.close();
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);

      const own = createPostgresRunStore({
        connectionString: `${postgres().connectionString()}?application_name=${application}`,
      });
      await own.getRun('x');
      const connections = () =>
        pool
          .query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [application])
          .then(({ rows }) => (rows[0] as { n: number }).n);
      expect(await connections()).toBeGreaterThan(0);
      await own.close();
      let remaining = await connections();
      for (let attempt = 0; remaining > 0 && attempt < 50; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        remaining = await connections();
      }
      expect(remaining).toBe(0);
    });
  });

  it('rejects with the client’s own error when the server cannot be reached, and tries again on the next call', async () => {
    const store = createPostgresRunStore({ connectionString: 'postgres://postgres:x@127.0.0.1:1/postgres' });
    try {
      const first = await rejectionOf(store.getRun('x'));
      expect(RunStoreError.isInstance(first)).toBe(false);
      expect((first as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
      expect(((await rejectionOf(store.getRun('x'))) as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    } finally {
      await store.close();
    }
  });
});
