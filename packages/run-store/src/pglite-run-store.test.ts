import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidSettingsError } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { directoryLockName } from './pglite-directory-lock.js';
import { createPGliteRunStore, openPGlite, pgliteClient, pgliteTemplateUrl } from './pglite-run-store.js';
import { describeRunStoreBehaviour, rejectionOf } from './run-store-behaviour.test-helper.js';
import { RunStoreError } from './run-store-errors.js';
import { runStoreMigrations } from './run-store-migrations.js';

const work = mkdtempSync(join(tmpdir(), 'sluice-run-store-pglite-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describeRunStoreBehaviour('PGlite run store in memory', { kind: 'pglite', create: () => createPGliteRunStore() });

describeRunStoreBehaviour('PGlite run store in a directory', {
  kind: 'pglite',
  create: () => createPGliteRunStore({ dataDir: join(work, 'behaviour') }),
});

describe('createPGliteRunStore', () => {
  it.each([[{ dataDir: '' }], [{ dataDir: 7 }], [{ dataDir: 'idb://browser' }], [null]])(
    'refuses %j with InvalidSettingsError naming the setting',
    (settings) => {
      expect(() => createPGliteRunStore(settings as never)).toThrow(InvalidSettingsError);
    },
  );

  it('does no I/O until first used', async () => {
    const dataDir = join(work, 'never-used');
    const store = createPGliteRunStore({ dataDir });
    await store.close();
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('a new PGlite database', () => {
  const versions = async (directory: string | undefined, template?: () => Uint8Array | undefined) => {
    const database = await openPGlite(directory, template);
    try {
      const { rows } = await database.query<{ version: number }>(
        'SELECT version FROM sluice_run_store_migrations ORDER BY version',
      );
      return rows.map((row) => Number(row.version));
    } catch (error) {
      return String(error);
    } finally {
      await pgliteClient(database, () => undefined).close();
    }
  };

  it("starts from the build's template, every migration already applied, in memory and in a directory", {
    timeout: 60_000,
  }, async () => {
    expect(existsSync(pgliteTemplateUrl)).toBe(true);
    const all = runStoreMigrations.map((migration) => migration.version);
    expect(await versions(undefined)).toEqual(all);
    expect(await versions(join(work, 'from-template'))).toEqual(all);
  });

  it('runs initdb instead when the template does not load, and keeps the files the directory had', {
    timeout: 60_000,
  }, async () => {
    const directory = join(work, 'bad-template');
    mkdirSync(directory);
    writeFileSync(join(directory, 'notes.txt'), 'mine');
    // Without a template's migrations, the table is missing until a store migrates the database.
    expect(await versions(directory, () => new TextEncoder().encode('not a tarball'))).toMatch(
      /sluice_run_store_migrations/,
    );
    expect(readFileSync(join(directory, 'notes.txt'), 'utf8')).toBe('mine');
    const store = createPGliteRunStore({ dataDir: directory });
    await expect(store.listRuns()).resolves.toEqual([]);
    await store.close();
  });
});

describe('a PGlite run store directory after its process was killed', () => {
  it('is refused while the writer lives, then shows what it committed before SIGKILL, to one store at a time', {
    timeout: 120_000,
  }, async () => {
    // The directory of the behaviour suite above, closed by now: reopening it takes the writer
    // about a second where a new one takes several (run alone, the writer makes it).
    const dataDir = join(work, 'behaviour');
    const writer = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, '__fixtures__', 'pglite-writer.ts'), dataDir],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const written = await new Promise<string>((resolve, reject) => {
        let output = '';
        let errors = '';
        writer.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString('utf8');
          if (output.includes('\n')) resolve(output.trim());
        });
        writer.stderr.on('data', (chunk: Buffer) => {
          errors += chunk.toString('utf8');
        });
        writer.on('exit', (code) => reject(new Error(`the writer exited (${code}) before writing: ${errors}`)));
      });
      const expected = JSON.parse(written) as { runId: string; metadata: unknown; value: unknown };
      expect(readFileSync(join(dataDir, directoryLockName), 'utf8').trim()).toBe(String(writer.pid));

      const early = createPGliteRunStore({ dataDir });
      const refused = await rejectionOf(early.getRun(expected.runId));
      expect(RunStoreError.isInstance(refused)).toBe(true);
      expect(refused.message).toContain(`is open in process ${writer.pid}`);

      const exited = new Promise((resolve) => writer.once('exit', resolve));
      writer.kill('SIGKILL');
      await exited;

      // The same store tries again: the dead writer's lock is taken over.
      try {
        const run = await early.getRun(expected.runId);
        expect(JSON.stringify(run?.start.metadata)).toBe(JSON.stringify(expected.metadata));
        expect(run?.owner).toBe('writer');
        const journal = await early.readJournal(expected.runId);
        expect(journal.map((entry) => entry.outcome)).toEqual([{ ok: true, value: 'committed' }, undefined]);
        expect(JSON.stringify(await early.readValues('conversation'))).toBe(JSON.stringify({ key: expected.value }));
        expect(readFileSync(join(dataDir, directoryLockName), 'utf8').trim()).toBe(String(process.pid));
        const second = createPGliteRunStore({ dataDir });
        await expect(second.getRun(expected.runId)).rejects.toThrow(/open in another run store in this process/);
        await second.close();
      } finally {
        await early.close();
      }
      expect(existsSync(join(dataDir, directoryLockName))).toBe(false);
    } finally {
      writer.kill('SIGKILL');
    }
  });
});
