import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createPGliteRunStore } from '@sluice/run-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConsoleCommand } from './console-command.js';

// `sluice console --run-store <directory>`: the console of a local store, on loopback without
// sign-in. It has no tools: a decision is recorded, and the page names the command that continues the run.

let directory: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'sluice-console-command-'));
  const store = createPGliteRunStore({ dataDir: join(directory, 'runs') });
  await store.createRun(
    {
      runId: 'run-<1>',
      conversation: 'principal:alice',
      program: 'await tools.remove({ path: "/" });',
      language: 'typescript',
      seed: 1,
      startTime: 0,
      fingerprint: 'test',
    },
    'host-a',
    60_000,
  );
  await store.recordIntent('run-<1>', 1, { namespace: 'tools', name: 'remove', input: { path: '/' } });
  await store.createPause({
    token: 'token-0123456789abcdef0123456789',
    runId: 'run-<1>',
    seq: 1,
    tool: 'remove',
    input: { path: '/' },
    reason: 'removals need a person',
    createdAt: Date.now(),
    expiresAt: Date.now() + 3_600_000,
  });
  await store.close();
}, 120_000);

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

function io() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  return { io: { stdin: new PassThrough(), stdout, stderr }, out: () => out, err: () => err };
}

describe('sluice console', () => {
  it('prints its usage, and refuses a missing store or a bad port with exit 2', async () => {
    const help = io();
    expect(await runConsoleCommand(['--help'], help.io)).toBe(0);
    expect(help.out()).toMatch(/^Usage: sluice console --run-store/);
    const missing = io();
    expect(await runConsoleCommand([], missing.io)).toBe(2);
    expect(missing.err()).toMatch(/give the store with --run-store/);
    const port = io();
    expect(await runConsoleCommand(['--run-store', 'x', '--port', 'http'], port.io)).toBe(2);
    expect(port.err()).toMatch(/--port must be a port number/);
  });

  it('serves the store on loopback without sign-in, records a decision by local and names the command that continues the run', async () => {
    const controller = new AbortController();
    const out = io();
    const exited = runConsoleCommand(['--run-store', 'runs', '--port', '0'], out.io, controller.signal, directory);
    try {
      let url = '';
      for (let tries = 0; tries < 600 && url === ''; tries += 1) {
        url = out.out().trim();
        if (url === '') await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console\/$/);
      const first = await fetch(url, { redirect: 'manual' });
      expect(first.status).toBe(200);
      const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const list = await first.text();
      expect(list).toContain('run-&lt;1&gt;');
      const csrf = /name="csrf" value="([^"]+)"/.exec(list)?.[1];
      // The list has no form with a token (no sign-out without sign-in): the run's page has one.
      const runUrl = new URL(`runs/${encodeURIComponent('run-<1>')}`, url);
      const page = await (await fetch(runUrl, { headers: { cookie } })).text();
      const token = csrf ?? /name="csrf" value="([^"]+)"/.exec(page)?.[1];
      expect(token).toBeDefined();
      expect(page).toContain('removals need a person');
      const decided = await fetch(new URL(`${runUrl.pathname}/pauses/1`, url), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ decision: 'allow', csrf: token as string }),
      });
      expect(decided.status).toBe(303);
      expect(decided.headers.get('location')).toContain('notice=recorded');
      const after = await (
        await fetch(new URL(decided.headers.get('location') as string, url), { headers: { cookie } })
      ).text();
      expect(after).toContain('Approved by local');
      expect(after).toContain('sluice resume --run &#39;run-&lt;1&gt;&#39; --run-store runs --tools');
      // Another site reaching it by a name that resolves to loopback (DNS rebinding) is refused.
      const rebound = await new Promise<number>((resolve, reject) => {
        const { port } = new URL(url);
        const outgoing = request(
          { host: '127.0.0.1', port, path: '/console/', headers: { host: 'evil.example' } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        outgoing.on('error', reject);
        outgoing.end();
      });
      expect(rebound).toBe(403);
    } finally {
      controller.abort();
      expect(await exited).toBe(0);
    }
    const store = createPGliteRunStore({ dataDir: join(directory, 'runs') });
    try {
      expect((await store.getPause('token-0123456789abcdef0123456789'))?.decision).toEqual({
        decision: 'allow',
        by: 'local',
      });
    } finally {
      await store.close();
    }
  }, 120_000);
});
