// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text whose ${VAR} references Sluice expands.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresRunStore } from '@sluice/run-store';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../../run-store/src/postgres-test-server.test-helper.js';
import { binPath, labServer, resultText, resultValue, startSluice } from './__fixtures__/sluice-process.js';

// `sluice.durable.store` as the operator writes it: `${VAR}` expanded, the store opened and checked
// at start-up, and a store another Sluice process holds answered as a tool result the model can read.

const lockFile = 'sluice-run-store.lock';
const policy = { default: 'allow', rules: [{ tool: 'lab__echo', effect: 'ask', description: 'echoes need a person' }] };

/** Writes a durable config with `store` into a fresh folder removed when the test ends; returns the file's path. */
function durableConfig(store: string): { directory: string; path: string } {
  const directory = mkdtempSync(join(tmpdir(), 'sluice-mcp-store-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  const path = join(directory, 'sluice-mcp.json');
  writeFileSync(
    path,
    JSON.stringify({
      mcpServers: { lab: labServer() },
      sluice: { runtime: { provider: 'quickjs', wallTimeMs: 60_000 }, policy, durable: { store } },
    }),
  );
  return { directory, path };
}

/** Runs the bin with stdin closed at once and waits for it to exit. */
async function bin(configPath: string, env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(process.execPath, [binPath, '--config', configPath], { env, stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdin.on('error', () => {});
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  child.stdin.end();
  return { code: await exited, stderr: () => stderr };
}

describe('sluice mcp with a run store another process holds', () => {
  it('answers run_code and resume_run with a tool result saying the store is busy and nothing ran, and says on stderr what to configure', async () => {
    const { directory, path } = durableConfig('runs');
    const first = await startSluice(undefined, { configPath: path });
    let firstOpen = true;
    onTestFinished(async () => {
      if (firstOpen) await first.close();
    });
    // The first server holds the store (a run makes sure it has opened it).
    const held = await first.client.callTool({ name: 'run_code', arguments: { code: 'return 1' } }, undefined, {
      timeout: 120_000,
    });
    expect(held.isError).toBe(false);

    const second = await startSluice(undefined, { configPath: path });
    onTestFinished(() => second.close());
    const refused = await second.client.callTool({ name: 'run_code', arguments: { code: 'return 2' } }, undefined, {
      timeout: 120_000,
    });
    expect(refused.isError).toBe(true);
    const text = resultText(refused);
    expect(text).toContain('in use by another Sluice process');
    expect(text).toContain('nothing ran');
    expect(text).toMatch(/try again later/i);
    expect(text).toMatch(/tell the user/);
    const resumed = await second.client.callTool({ name: 'resume_run', arguments: { run_id: 'durable_x' } });
    expect(resumed.isError).toBe(true);
    expect(resultText(resumed)).toContain('in use by another Sluice process');
    // No host path, no API name, no process id for the model.
    for (const said of [text, resultText(resumed)]) {
      for (const leak of [directory, tmpdir(), 'createPostgresRunStore', 'PGlite', lockFile]) {
        expect(said).not.toContain(leak);
      }
      expect(said).not.toMatch(/process \d|pid/);
    }
    // The operator reads which store, who holds it, and what to configure: at start-up and at the call.
    const stderr = second.stderr();
    expect(stderr).toContain(`sluice.durable.store: the run store directory ${join(directory, 'runs')} is in use`);
    expect(stderr).toContain('give each Sluice server its own store directory');
    expect(stderr).toContain('a postgres:// URL');

    // Once the first server is gone, the store is free: the next call runs.
    await first.close();
    firstOpen = false;
    const ran = await second.client.callTool({ name: 'run_code', arguments: { code: 'return 3' } }, undefined, {
      timeout: 120_000,
    });
    expect(ran.isError).toBe(false);
    expect(resultText(ran)).toContain('--- value (JSON) ---\n3');
  }, 240_000);
});

describe('sluice mcp checks its run store at start-up', () => {
  it('exits 2 naming sluice.durable.store when the directory cannot be created', async () => {
    const { directory, path } = durableConfig('not-a-folder/runs');
    writeFileSync(join(directory, 'not-a-folder'), 'a file, not a folder');
    const { code, stderr } = await bin(path);
    expect(code).toBe(2);
    expect(stderr()).toContain(
      `sluice.durable.store: could not open the run store directory ${join(directory, 'not-a-folder', 'runs')}:`,
    );
  }, 60_000);

  it('exits 2 naming sluice.durable.store, without the password, when PostgreSQL refuses the connection', async () => {
    const { path } = durableConfig('${SLUICE_TEST_PG_URL}');
    const { code, stderr } = await bin(path, {
      ...process.env,
      SLUICE_TEST_PG_URL: 'postgres://sluice:hunter2secret@127.0.0.1:1/sluice',
    });
    expect(code).toBe(2);
    expect(stderr()).toContain(
      'sluice.durable.store: could not open the run store postgres://sluice:***@127.0.0.1:1/sluice:',
    );
    expect(stderr()).not.toContain('hunter2secret');
  }, 60_000);

  it('exits 2 naming the variable when sluice.durable.store uses one that is not set', async () => {
    const { path } = durableConfig('${SLUICE_TEST_UNSET_PG_URL}');
    const { SLUICE_TEST_UNSET_PG_URL: _unset, ...environment } = process.env;
    const { code, stderr } = await bin(path, environment);
    expect(code).toBe(2);
    expect(stderr()).toContain(
      'sluice.durable.store uses ${SLUICE_TEST_UNSET_PG_URL}, which is not set in the environment of sluice mcp',
    );
  }, 60_000);
});

describe('sluice mcp with a PostgreSQL run store from a variable', () => {
  let postgres: TestPostgres;
  beforeAll(async () => {
    postgres = await startTestPostgres();
  }, 120_000);
  afterAll(async () => {
    await postgres?.stop();
  });

  it('expands ${VAR} in sluice.durable.store and keeps the runs in that database', async () => {
    const url = await postgres.createDatabase('mcp_store_variable');
    const { path } = durableConfig('${SLUICE_TEST_PG_URL}');
    const sluice = await startSluice(undefined, { configPath: path, env: { SLUICE_TEST_PG_URL: url } });
    onTestFinished(() => sluice.close());
    const paused = await sluice.client.callTool(
      { name: 'run_code', arguments: { code: `return await lab.echo({ text: 'hi' });` } },
      undefined,
      { timeout: 120_000 },
    );
    const runId = /The run id is (\S+): call resume_run/.exec(resultText(paused))?.[1] ?? '';
    expect(runId).toMatch(/^durable_/);
    const store = createPostgresRunStore({ connectionString: url });
    onTestFinished(() => store.close());
    expect((await store.getRun(runId))?.status).toBe('paused');
  }, 240_000);

  it('answers with a tool result, not a protocol error, when the store goes away mid-run; resume_run continues it', async () => {
    const url = await postgres.createDatabase('mcp_store_away');
    const database = new URL(url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).href });
    await admin.connect();
    onTestFinished(() => admin.end());
    const { path } = durableConfig('${SLUICE_TEST_PG_URL}');
    const sluice = await startSluice(undefined, { configPath: path, env: { SLUICE_TEST_PG_URL: url } });
    onTestFinished(() => sluice.close());
    let running = false;
    const call = sluice.client.callTool(
      {
        name: 'run_code',
        arguments: {
          code: `try { await lab.wait({ ms: 3000 }); return 'waited'; } catch (error) { return String(error.message).split(':')[0]; }`,
        },
      },
      undefined,
      {
        timeout: 120_000,
        onprogress: (progress) => {
          running ||= progress.message?.includes('running: lab.wait') === true;
        },
      },
    );
    for (let waited = 0; !running && waited < 60_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running, sluice.stderr()).toBe(true);
    // The database goes away while the tool runs: its connections end and new ones are refused.
    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database]);
    const stopped = await call;
    expect(stopped.isError).toBe(true);
    const text = resultText(stopped);
    const runId = /durable run (durable_[\w-]+) started/.exec(sluice.stderr())?.[1];
    expect(text).toContain(
      `[run_code] stopped: the durable run store failed while the run was going on, so it stopped; nothing it recorded is lost. Call resume_run with run id ${runId} once the store is back;`,
    );
    expect(text).not.toMatch(/127\.0\.0\.1|postgres:|ECONN/);
    expect(sluice.stderr()).toMatch(/durable run stopped: The run store failed/);
    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    const resumed = await sluice.client.callTool({ name: 'resume_run', arguments: { run_id: runId } }, undefined, {
      timeout: 120_000,
    });
    // The wait was in flight when the store went: as after a crash, it is not run again blind.
    expect(resultValue(resumed)).toBe('interrupted');
  }, 240_000);
});
