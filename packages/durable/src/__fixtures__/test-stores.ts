// The test side of test-stores-setup.ts: a fresh store for a test or a file, on the PostgreSQL server
// or from the PGlite template the package's globalSetup made once for all its test files.
import { randomBytes } from 'node:crypto';
import { cpSync } from 'node:fs';
import { inject } from 'vitest';
import { createTestDatabase } from '../../../run-store/src/postgres-test-server.test-helper.js';

/**
 * Creates an empty database on the shared PostgreSQL server and resolves its connection string. The
 * name is `prefix` and a random suffix, so files running at once never meet.
 */
export function freshPostgresDatabase(prefix: string): Promise<string> {
  return createTestDatabase(inject('durableTestStores').postgres, `${prefix}_${randomBytes(6).toString('hex')}`);
}

/** Copies the PGlite template (a store with the schema, never opened by a host) to `dataDir`, which must not exist. */
export function copyPGliteTemplate(dataDir: string): void {
  cpSync(inject('durableTestStores').pgliteTemplate, dataDir, { recursive: true });
}
