// Where each fault test runs: a fresh store (a copy of the package's PGlite template, or a new
// database on its PostgreSQL server; see test-stores.ts), a run id and a ledger file, with the hosts
// on it — a host process (fault-host.ts) or a host in the test process — and the ledger read back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunStore } from '@sluice/run-store';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { DurableRuns } from '../index.js';
export { resumeWhenFree } from './durable-test-kit.js';
import { createFaultHost, ledgerLine, openStore, type StoreKind } from './fault-host-kit.js';
import { disposeHosts, HostProcess } from './fault-process.js';
import { copyPGliteTemplate, freshPostgresDatabase } from './test-stores.js';

/** How long a host may take to reach a marker, exit, or report: generous, for a loaded 2-core machine. */
export const within = 60_000;
/** Each fault test's timeout: room for two waits of {@link within}. */
export const faultTestTimeout = 120_000;
/** The stores every fault case that allows it runs on. */
export const faultStores: readonly StoreKind[] = ['pglite', 'postgres'];
/** What the program sees for the `send` of program `basic` that was in flight when its host stopped. */
export const interruptedSend = expect.stringMatching(/^interrupted: tools\.send was running when its host stopped/);

/** One test's store (a fresh PGlite directory or PostgreSQL database), run id and ledger file. */
export interface Place {
  readonly kind: StoreKind;
  readonly where: string;
  readonly runId: string;
  readonly ledger: string;
}

/**
 * A temporary directory for the file's places (made before its tests, removed after the last); kills
 * every host process left after each test.
 */
export function useFaultPlaces() {
  let directory: string | undefined;
  let places = 0;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'sluice-durable-faults-'));
  });

  afterEach(async () => {
    await disposeHosts();
  });

  afterAll(async () => {
    await disposeHosts();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  }, 60_000);

  async function freshPlace(kind: StoreKind): Promise<Place> {
    if (directory === undefined) throw new Error('useFaultPlaces: beforeAll has not run');
    places += 1;
    const id = `${kind}-${places}`;
    const ledger = join(directory, `${id}.ledger`);
    writeFileSync(ledger, '');
    const runId = `run-${id}`;
    if (kind === 'pglite') {
      const where = join(directory, id);
      copyPGliteTemplate(where);
      return { kind, where, runId, ledger };
    }
    return { kind, where: await freshPostgresDatabase('faults'), runId, ledger };
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
