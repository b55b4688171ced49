import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import type { Tool } from '@sluice/permissions';
import { createPGliteRunStore, createPostgresRunStore, type RunStore } from '@sluice/run-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeWhenFree } from './__fixtures__/durable-test-kit.js';
import { copyPGliteTemplate, freshPostgresDatabase } from './__fixtures__/test-stores.js';
import { createDurableRuns } from './index.js';

// Resume after a crash, with real processes: a host process starts a durable run and dies by
// SIGKILL inside a tool call; this process, a second host, opens the same store and resumes it.

let directory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'sluice-durable-crash-'));
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** Runs the crash host to its SIGKILL; resolves with the calls it made (its effects file). */
async function crashHost(storeKind: string, where: string, runId: string, crashIn: string): Promise<string[]> {
  const effects = join(directory, `${runId}.effects`);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(import.meta.dirname, '__fixtures__', 'crash-host.ts'),
      storeKind,
      where,
      runId,
      crashIn,
      effects,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, how) => resolve(how)));
  expect(signal, output).toBe('SIGKILL');
  return readFileSync(effects, 'utf8').trim().split('\n');
}

/** The second host: counts what its tools are asked to do. */
function secondHost(store: RunStore) {
  const invoked: string[] = [];
  const tool = (name: string, replay?: 'safe'): Tool => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
    ...(replay === undefined ? {} : { replay }),
    execute: (input) => {
      invoked.push(`${name} ${JSON.stringify(input)}`);
      return { from: 'second host', name };
    },
  });
  const runtime = createQuickJsCodeRuntime({ poolSize: 1 });
  const runs = createDurableRuns({
    runtime,
    store,
    tools: [tool('read', 'safe'), tool('send')],
    policy: { default: 'allow', rules: [] },
  });
  return { invoked, runs, runtime };
}

describe('durable runs survive their host being killed (embedded store)', () => {
  it('does not run journaled calls again, and gives the program `interrupted` for an unsafe call in flight', async () => {
    const dataDir = join(directory, 'pglite-unsafe');
    copyPGliteTemplate(dataDir);
    const effects = await crashHost('pglite', dataDir, 'run-unsafe', 'send-ann');
    expect(effects).toEqual([
      'send {"to":"audit","text":"starting"}',
      'read {"url":"https://example.com"}',
      'send {"to":"ann","text":"done"}',
    ]);
    const store = createPGliteRunStore({ dataDir });
    const { invoked, runs, runtime } = secondHost(store);
    try {
      const outcome = await resumeWhenFree(runs, 'run-unsafe');
      expect(outcome.status).toBe('finished');
      expect(outcome.result).toMatchObject({
        ok: true,
        value: {
          first: 'first host',
          page: 'first host',
          sent: expect.stringMatching(/^interrupted: tools\.send was running when its host stopped/),
        },
      });
      expect(invoked).toEqual([]);
    } finally {
      await runtime.dispose();
      await store.close();
    }
  }, 120_000);

  it('runs a replay-safe call in flight again, and the calls after it live', async () => {
    const dataDir = join(directory, 'pglite-safe');
    copyPGliteTemplate(dataDir);
    const effects = await crashHost('pglite', dataDir, 'run-safe', 'read');
    expect(effects).toHaveLength(2);
    const store = createPGliteRunStore({ dataDir });
    const { invoked, runs, runtime } = secondHost(store);
    try {
      const outcome = await resumeWhenFree(runs, 'run-safe');
      expect(outcome.result).toMatchObject({
        ok: true,
        value: { first: 'first host', page: 'second host', sent: { from: 'second host' } },
      });
      expect(invoked).toEqual(['read {"url":"https://example.com"}', 'send {"to":"ann","text":"done"}']);
      // The program's clock read the same virtual time it would have without the crash.
      const journal = await store.readJournal('run-safe');
      expect(journal.map((entry) => entry.outcome?.ok)).toEqual([true, true, true]);
    } finally {
      await runtime.dispose();
      await store.close();
    }
  }, 120_000);
});

describe('durable runs survive their host being killed (PostgreSQL shared by two host processes)', () => {
  it('resumes from another process: journaled calls answered, the unsafe call in flight interrupted', async () => {
    const url = await freshPostgresDatabase('durable_crash');
    const effects = await crashHost('postgres', url, 'run-pg', 'send-ann');
    expect(effects).toHaveLength(3);
    const store = createPostgresRunStore({ connectionString: url });
    const { invoked, runs, runtime } = secondHost(store);
    try {
      const outcome = await resumeWhenFree(runs, 'run-pg');
      expect(outcome.result).toMatchObject({
        ok: true,
        value: { first: 'first host', page: 'first host', sent: expect.stringMatching(/^interrupted: /) },
      });
      expect(invoked).toEqual([]);
      // Resuming again, from a third store connection, gives the stored outcome and runs nothing.
      const third = createPostgresRunStore({ connectionString: url });
      try {
        const again = await secondHost(third).runs.resume('run-pg');
        expect(again).toEqual(JSON.parse(JSON.stringify(outcome)));
      } finally {
        await third.close();
      }
    } finally {
      await runtime.dispose();
      await store.close();
    }
  }, 120_000);
});
