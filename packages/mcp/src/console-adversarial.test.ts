import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunLease, RunStore } from '@sluice/run-store';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type ServedSluice, serveInProcess } from './__fixtures__/serve.js';
import { labServer } from './__fixtures__/sluice-process.js';
import { type ConsoleBrowser, consoleHttp } from './console-http.test-helper.js';
import { timelineChars } from './console-pages.js';
import { maxLiveStreamsPerPrincipal } from './console-router.js';
import { hashServeToken } from './mcp-serve-config.js';

// Attacks on the operator console of `sluice serve` over real HTTP and a real PGlite store: hostile
// values in every field a model controls, malformed requests, forged sessions, many live pages,
// and a store that is gone. Runs are written to the store directly, so no program needs to run.

const tokens = {
  alice: 'alice-adversarial-token-0123456789',
  ops: 'ops-adversarial-token-0123456789',
  odd: 'odd-adversarial-token-0123456789',
};
const oddPrincipal = '"><img src=x onerror=alert(1)>';
const hostile = '</pre><script>alert(1)</script><img src=x onerror=alert(2)>"\'`';
const secret = 'adversarial-session-secret-0123456789abcdef';
let directory: string;
let served: ServedSluice;
let origin: string;
let runId: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'sluice-console-adversarial-'));
  served = await serveInProcess(
    {
      mcpServers: { lab: labServer({}) },
      sluice: {
        runtime: { provider: 'quickjs' },
        durable: { store: join(directory, 'runs') },
        serve: {
          port: await freePort(),
          sessionSecret: secret,
          auth: {
            tokens: [
              { principal: 'alice', sha256: hashServeToken(tokens.alice) },
              { principal: 'ops', sha256: hashServeToken(tokens.ops), scopes: ['sluice:operator'] },
              { principal: oddPrincipal, sha256: hashServeToken(tokens.odd) },
            ],
          },
        },
      },
    },
    directory,
  );
  origin = new URL(served.url).origin;
  // A run of alice's whose every model-written field is markup: id, program, call, result, pause.
  const store = served.server.service.store as RunStore;
  const lease: RunLease = await aliceRun(store, `run-${hostile}`, `const a = 1;\n${hostile}`);
  runId = lease.runId;
  await store.recordIntent(runId, 1, { namespace: hostile, name: hostile, input: { text: hostile } }, lease);
  await store.recordOutcome(runId, 1, { ok: false, message: hostile }, lease);
  await store.recordIntent(runId, 2, { namespace: 'lab', name: 'echo', input: { text: hostile } }, lease);
  await store.createPause(
    {
      token: 'adversarial-pause-token-0123456789abcdef',
      runId,
      seq: 2,
      tool: hostile,
      input: { text: hostile },
      reason: hostile,
      createdAt: Date.now(),
      expiresAt: Date.now() + 600_000,
    },
    lease,
  );
  await store.setStatus(runId, 'paused', undefined, lease);
}, 120_000);

/** A run of alice's, written to the store as a host would start it. */
function aliceRun(store: RunStore, runId: string, program: string): Promise<RunLease> {
  const start = { runId, conversation: 'principal:alice', program, language: 'typescript', seed: 1, startTime: 0 };
  return store.createRun({ ...start, fingerprint: 'adversarial' }, 'adversarial-test', 600_000);
}

afterAll(async () => {
  await served?.close();
  rmSync(directory, { recursive: true, force: true });
});

const { signIn, get, post } = consoleHttp(() => origin);
type Browser = ConsoleBrowser;

/** Only the console's own markup: one script tag (with the nonce), no tag or attribute from the store. */
function expectNoInjectedMarkup(page: string): void {
  expect(page.match(/<script[^>]*>/g) ?? []).toEqual(
    page.includes('<script') ? [expect.stringMatching(/^<script nonce="[^"]+">$/)] : [],
  );
  expect(page).not.toMatch(/<img\b|<script>alert|<\/pre><script/);
}

describe('the console under attack', () => {
  it('escapes a hostile run id, program, call, result, tool, pause reason and principal on every page', async () => {
    const alice = await signIn(tokens.alice);
    const path = `/console/runs/${encodeURIComponent(runId)}`;
    const page = await (await get(path, alice.cookie)).text();
    expectNoInjectedMarkup(page);
    expect(page).toContain('&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain(`action="/console/runs/${encodeURIComponent(runId).replaceAll("'", '&#39;')}/pauses/2"`);
    const ops = await signIn(tokens.ops);
    expectNoInjectedMarkup(await (await get('/console/', ops.cookie)).text());
    // A principal whose name is markup, and an operator's principal filter reflected into the form.
    const odd = await signIn(tokens.odd);
    expectNoInjectedMarkup(await (await get('/console/', odd.cookie)).text());
    const filtered = await (await get(`/console/?principal=${encodeURIComponent(oddPrincipal)}`, ops.cookie)).text();
    expectNoInjectedMarkup(filtered);
    expect(filtered).toContain('value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
  });

  it('shows no text for a notice named after a property every object has', async () => {
    const alice = await signIn(tokens.alice);
    const path = `/console/runs/${encodeURIComponent(runId)}`;
    for (const notice of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const page = await (await get(`${path}?notice=${notice}`, alice.cookie)).text();
      expect(page).not.toMatch(/class="notice"|native code|\[object Object\]/);
    }
  });

  it('answers NUL in a filter, the cursor or a run id with a 4xx page, not a 500', async () => {
    const ops = await signIn(tokens.ops);
    for (const query of ['?principal=a%00b', '?after=1%3Aa%00b', '?status=%00']) {
      for (const path of [`/console/${query}`, `/console/events${query}`]) {
        const response = await get(path, ops.cookie);
        expect(response.status, path).toBe(400);
        expect(await response.text()).toContain('NUL');
      }
    }
    for (const path of ['/console/runs/a%00b', '/console/runs/a%00b/events']) {
      expect((await get(path, ops.cookie)).status, path).toBe(404);
    }
    const decided = await post('/console/runs/a%00b/pauses/1', ops, `csrf=${ops.csrf}&decision=allow`);
    expect(decided.status).toBe(404);
  });

  it('answers a malformed address or form with a 4xx console page, not the MCP endpoint’s 500', async () => {
    const alice = await signIn(tokens.alice);
    for (const path of ['/console/runs/%ZZ', '/console/runs/%ED%A0%80', '/console/runs/%ZZ/events']) {
      const response = await get(path, alice.cookie);
      expect(response.status, path).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
    const action = `/console/runs/${encodeURIComponent(runId)}/pauses/2`;
    const many = Array.from({ length: 12 }, (_, index) => `f${index}=1`).join('&');
    const attempts: [number, Promise<Response>][] = [
      [413, post(action, alice, `csrf=${alice.csrf}&${many}`)],
      [413, post(action, alice, `csrf=${alice.csrf}&decision=deny&reason=${'x'.repeat(20_000)}`)],
      [415, post(action, alice, 'csrf=x', { 'content-type': 'application/x-www-form-urlencoded; charset=utf-16' })],
    ];
    for (const [status, attempt] of attempts) {
      const response = await attempt;
      expect(response.status).toBe(status);
      expect(await response.text()).toMatch(/^<!doctype html>/);
    }
    expect((await (served.server.service.store as RunStore).listPauses(runId))[0]?.decision).toBeUndefined();
  });

  it('refuses a session cookie with alg none, another audience, an expired one, or a principal it was not signed for', async () => {
    const { cookie } = await signIn(tokens.alice);
    const [name] = cookie.split('=') as [string];
    const key = new TextEncoder().encode(secret);
    const claims = { scopes: ['sluice:operator'], csrf: 'x' };
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const forged = [
      `${encode({ alg: 'none' })}.${encode({ ...claims, sub: 'ops', aud: 'sluice-console', exp: now + 600 })}.`,
      await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('ops')
        .setAudience('sluice-mcp')
        .setExpirationTime(now + 600)
        .sign(key),
      await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('ops')
        .setExpirationTime(now + 600)
        .sign(key),
      await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('ops')
        .setAudience('sluice-console')
        .setExpirationTime(now - 120)
        .sign(key),
    ];
    for (const value of forged) {
      const response = await get('/console/', `${name}=${value}`);
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/console/login');
    }
  });

  it(`refuses a principal more than ${maxLiveStreamsPerPrincipal} live pages at once, and takes new ones once some close`, async () => {
    const alice = await signIn(tokens.alice);
    const ops = await signIn(tokens.ops);
    const controllers: AbortController[] = [];
    const open = async (browser: Browser) => {
      const controller = new AbortController();
      controllers.push(controller);
      const response = await fetch(`${origin}/console/events`, {
        headers: { cookie: browser.cookie },
        signal: controller.signal,
      });
      if (response.status !== 200) await response.text();
      return { response, controller };
    };
    try {
      const streams = await Promise.all(Array.from({ length: maxLiveStreamsPerPrincipal }, () => open(alice)));
      expect(streams.map(({ response }) => response.status)).toEqual(streams.map(() => 200));
      const refused = await open(alice);
      expect(refused.response.status).toBe(429);
      // Another principal is not affected.
      expect((await open(ops)).response.status).toBe(200);
      for (const { controller } of streams.slice(0, 2)) controller.abort();
      const deadline = Date.now() + 10_000;
      let again = await open(alice);
      while (again.response.status !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        again = await open(alice);
      }
      expect(again.response.status).toBe(200);
    } finally {
      for (const controller of controllers) controller.abort();
    }
  });

  it('refuses a sign-in posted from another site (login CSRF), and decides nothing on a GET or an override header', async () => {
    const foreign: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      { origin: 'null' },
    ];
    for (const headers of foreign) {
      const response = await fetch(`${origin}/console/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ token: tokens.ops }),
      });
      expect(response.status).toBe(403);
      expect(response.headers.get('set-cookie')).toBeNull();
    }
    const alice = await signIn(tokens.alice);
    const action = `/console/runs/${encodeURIComponent(runId)}/pauses/2`;
    expect((await get(`${action}?decision=allow&csrf=${alice.csrf}&_method=POST`, alice.cookie)).status).toBe(404);
    const overridden = await fetch(`${origin}${action}?_method=POST`, {
      method: 'GET',
      headers: { cookie: alice.cookie, 'x-http-method-override': 'POST' },
    });
    expect(overridden.status).toBe(404);
    expect((await (served.server.service.store as RunStore).listPauses(runId))[0]?.decision).toBeUndefined();
  });

  it('keeps the page of a run with many large calls to what it shows in all, counting the calls left out', async () => {
    const store = served.server.service.store as RunStore;
    const lease = await aliceRun(store, 'run-many-large-calls', 'for (;;) await lab.echo({ text: big });');
    const calls = 120;
    const big = 'x'.repeat(30_000);
    for (let seq = 1; seq <= calls; seq += 1) {
      await store.recordIntent(lease.runId, seq, { namespace: 'lab', name: 'echo', input: { text: big } }, lease);
    }
    const alice = await signIn(tokens.alice);
    const page = await (await get(`/console/runs/${lease.runId}`, alice.cookie)).text();
    expect(page.length).toBeLessThan(timelineChars + 100_000);
    expect(page).toMatch(/<li><h3>1\. <code>lab\.echo<\/code>/);
    expect(page).toMatch(new RegExp(`\\d+ more calls are not shown: this page shows ${timelineChars} characters`));
    expect(page).not.toContain(`<h3>${calls}. `);
  });

  // Last: it closes the store.
  it('answers 503 with a message when the store is gone, and keeps serving', async () => {
    const alice = await signIn(tokens.alice);
    await (served.server.service.store as RunStore).close();
    for (const path of [
      '/console/',
      `/console/runs/${encodeURIComponent(runId)}`,
      `/console/runs/${encodeURIComponent(runId)}/events`,
    ]) {
      const response = await get(path, alice.cookie);
      expect(response.status, path).toBe(503);
      expect(await response.text()).toContain('could not read the run store');
    }
    const decided = await post(
      `/console/runs/${encodeURIComponent(runId)}/pauses/2`,
      alice,
      `csrf=${alice.csrf}&decision=allow`,
    );
    expect(decided.status).toBe(503);
    expect((await get('/healthz')).status).toBe(200);
  });

  // Last of all: it closes the server.
  it('ends open live pages when the server closes, the store gone meanwhile', async () => {
    // Signed in without reading a page (the store is closed by now).
    const login = await fetch(`${origin}/console/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ token: tokens.alice }),
    });
    const alice = { cookie: (login.headers.get('set-cookie') ?? '').split(';')[0] as string };
    const readers = await Promise.all(
      Array.from({ length: 3 }, async () => {
        const response = await fetch(`${origin}/console/events`, { headers: { cookie: alice.cookie } });
        expect(response.status).toBe(200);
        return (response.body as ReadableStream<Uint8Array>).getReader();
      }),
    );
    const ended = readers.map(async (reader) => {
      try {
        while (!(await reader.read()).done) {}
        return 'ended';
      } catch {
        return 'ended';
      }
    });
    await served.close();
    expect(await Promise.all(ended)).toEqual(['ended', 'ended', 'ended']);
  });
});
