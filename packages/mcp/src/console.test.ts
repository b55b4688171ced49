import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RunStore } from '@sluice/run-store';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, freePort, type ServedSluice, serveInProcess } from './__fixtures__/serve.js';
import { labServer, resultText } from './__fixtures__/sluice-process.js';
import { consoleHttp } from './console-http.test-helper.js';
import { hashServeToken } from './mcp-serve-config.js';

// The operator console of `sluice serve` over real HTTP, against a real PGlite store and runs made
// by MCP clients: sign-in, what each principal sees, deciding a paused call, and the defences
// (CSRF token, Origin and Sec-Fetch-Site, CSP and framing, escaping, forged cookies).

const tokens = {
  alice: 'alice-console-token-0123456789',
  bob: 'bob-console-token-0123456789',
  ops: 'ops-console-token-0123456789',
};
let directory: string;
let ledger: string;
let served: ServedSluice;
let origin: string;
let alice: Client;
let bob: Client;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'sluice-console-'));
  ledger = join(directory, 'ledger.jsonl');
  const port = await freePort();
  served = await serveInProcess(
    {
      mcpServers: { lab: labServer({ LAB_LEDGER: ledger }) },
      sluice: {
        runtime: { provider: 'quickjs', wallTimeMs: 20_000 },
        policy: {
          default: 'allow',
          rules: [{ tool: 'lab__echo', effect: 'ask', description: 'echoes need a person <b>now</b>' }],
        },
        durable: { store: join(directory, 'runs') },
        serve: {
          port,
          auth: {
            tokens: [
              { principal: 'alice', sha256: hashServeToken(tokens.alice) },
              { principal: 'bob', sha256: hashServeToken(tokens.bob) },
              { principal: 'ops', sha256: hashServeToken(tokens.ops), scopes: ['sluice:operator'] },
            ],
          },
        },
      },
    },
    directory,
  );
  origin = new URL(served.url).origin;
  alice = await connectClient(served.url, tokens.alice);
  bob = await connectClient(served.url, tokens.bob);
}, 120_000);

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await served?.close();
  rmSync(directory, { recursive: true, force: true });
});

const store = (): RunStore => served.server.service.store as RunStore;

const { signIn, get, post } = consoleHttp(() => origin);

/** Runs `code` for `client` and returns the durable run's id from its result. */
async function runFor(client: Client, code: string): Promise<{ runId: string; text: string }> {
  const result = await client.callTool({ name: 'run_code', arguments: { code } });
  const text = resultText(result);
  const runId =
    /The run id is (durable_[\w-]+)/.exec(text)?.[1] ??
    (result.structuredContent as { runId?: string } | undefined)?.runId;
  if (runId === undefined) throw new Error(`no run id in ${text}`);
  return { runId, text };
}

async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const finished = (runId: string) =>
  until(async () => {
    const run = await store().getRun(runId);
    return run?.status === 'finished' ? run : undefined;
  }, `run ${runId} to finish`);

const ledgerEchoes = () =>
  existsSync(ledger)
    ? readFileSync(ledger, 'utf8')
        .split('\n')
        .filter((line) => line.includes('"echo"'))
    : [];

const hostile = '<script>alert(1)</script>';
const pausingProgram = (marker: string) =>
  `console.log(${JSON.stringify(`${hostile} ${marker}`)});\nconst said = await lab.echo({ text: ${JSON.stringify(`${hostile} ${marker}`)} });\nreturn said;`;

describe('the console of sluice serve', () => {
  it('sends to the sign-in page without a session, refuses a wrong token, and forbids framing and inline code', async () => {
    const bare = await get('/console/');
    expect(bare.status).toBe(303);
    expect(bare.headers.get('location')).toBe('/console/login');
    const login = await get('/console/login');
    expect(login.status).toBe(200);
    const csp = login.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'nonce-[^']+'/);
    expect(csp).not.toContain('unsafe-inline');
    expect(login.headers.get('x-frame-options')).toBe('DENY');
    expect(await login.text()).toMatch(/<label for="token">/);
    const wrong = await fetch(`${origin}/console/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ token: 'not-a-token' }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const sse = await get('/console/events');
    expect(sse.status).toBe(401);
  });

  it('signs out only with the CSRF token, clearing the cookie', async () => {
    const browser = await signIn(tokens.bob);
    expect((await post('/console/logout', browser, {})).status).toBe(403);
    const out = await post('/console/logout', browser, { csrf: browser.csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/console/login');
    expect(out.headers.get('set-cookie')).toMatch(/^sluice-console=; Max-Age=0/);
  });

  it('refuses a forged or foreign cookie: another secret, a tampered principal, an /mcp session id', async () => {
    const { cookie } = await signIn(tokens.bob);
    const [name] = cookie.split('=') as [string];
    const otherSecret = await new SignJWT({ scopes: ['sluice:operator'], csrf: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setAudience('sluice-console')
      .setExpirationTime('1h')
      .sign(new Uint8Array(32).fill(7));
    const [header, payload, signature] = cookie.slice(name.length + 1).split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'alice' })).toString('base64url')}.${signature}`;
    // A session id /mcp signed with the same secret, for the same kind of principal.
    const sessionId = (bob.transport as StreamableHTTPClientTransport).sessionId as string;
    expect(sessionId).toBeTruthy();
    for (const forged of [otherSecret, tampered, sessionId]) {
      const response = await get('/console/', `${name}=${forged}`);
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/console/login');
    }
  });

  it("shows a principal its own runs only: another's run is 404, in the list, the page, its events and a decision", async () => {
    const { runId } = await runFor(alice, pausingProgram('alice-only'));
    const bobBrowser = await signIn(tokens.bob);
    const list = await (await get('/console/', bobBrowser.cookie)).text();
    expect(list).not.toContain(runId);
    // A principal filter is an operator's: bob's is ignored.
    expect(await (await get('/console/?principal=alice', bobBrowser.cookie)).text()).not.toContain(runId);
    const page = await get(`/console/runs/${runId}`, bobBrowser.cookie);
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain('alice-only');
    expect((await get(`/console/runs/${runId}/events`, bobBrowser.cookie)).status).toBe(404);
    const decided = await post(`/console/runs/${runId}/pauses/1`, bobBrowser, {
      csrf: bobBrowser.csrf,
      decision: 'allow',
    });
    expect(decided.status).toBe(404);
    expect((await store().listPauses(runId))[0]?.decision).toBeUndefined();
    // The operator sees it, and can filter by principal.
    const ops = await signIn(tokens.ops);
    expect(await (await get('/console/?principal=alice', ops.cookie)).text()).toContain(runId);
    expect(await (await get('/console/?principal=bob', ops.cookie)).text()).not.toContain(runId);
    expect((await get(`/console/runs/${runId}`, ops.cookie)).status).toBe(200);
  });

  it('escapes what the store holds: a program, a log, arguments and a reason with <script>', async () => {
    const { runId } = await runFor(alice, pausingProgram('escaped'));
    const browser = await signIn(tokens.alice);
    const page = await (await get(`/console/runs/${runId}`, browser.cookie)).text();
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<b>now</b>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt; escaped');
    expect(page).toContain('echoes need a person &lt;b&gt;now&lt;/b&gt;');
    // Every script on the page is the console's own, with the page's nonce.
    const nonce = /script-src 'nonce-([^']+)'/.exec(
      (await get(`/console/runs/${runId}`, browser.cookie)).headers.get('content-security-policy') ?? '',
    )?.[1];
    expect(nonce).toBeDefined();
    for (const tag of page.match(/<script[^>]*>/g) ?? []) expect(tag).toMatch(/^<script nonce="[^"]+">$/);
  });

  it('refuses a decision without the CSRF token, with a wrong one, from another origin or another site', async () => {
    const { runId } = await runFor(alice, pausingProgram('csrf'));
    const browser = await signIn(tokens.alice);
    const path = `/console/runs/${runId}/pauses/1`;
    const attempts = [
      post(path, browser, { decision: 'allow' }),
      post(path, browser, { decision: 'allow', csrf: `${browser.csrf}x` }),
      post(path, browser, { decision: 'allow', csrf: (await signIn(tokens.alice)).csrf }),
      post(path, browser, { decision: 'allow', csrf: browser.csrf }, { origin: 'https://evil.example' }),
      post(path, browser, { decision: 'allow', csrf: browser.csrf }, { 'sec-fetch-site': 'cross-site' }),
    ];
    for (const response of await Promise.all(attempts)) expect(response.status).toBe(403);
    expect((await store().listPauses(runId))[0]?.decision).toBeUndefined();
    expect(ledgerEchoes().filter((line) => line.includes('csrf'))).toEqual([]);
  });

  it('approves a paused call once when two approvals come at once: the first decision stands, the call runs once, and the run finishes', async () => {
    const { runId } = await runFor(alice, pausingProgram('approved-once'));
    const browser = await signIn(tokens.alice);
    const page = await (await get(`/console/runs/${runId}`, browser.cookie)).text();
    expect(page).toMatch(/<button type="submit" name="decision" value="allow">Approve<\/button>/);
    expect(page).toMatch(/<label for="pause-1-reason">/);
    const path = `/console/runs/${runId}/pauses/1`;
    const [first, second] = await Promise.all([
      post(path, browser, { decision: 'allow', csrf: browser.csrf }),
      post(path, browser, { decision: 'allow', csrf: browser.csrf }),
    ]);
    const locations = [first.headers.get('location'), second.headers.get('location')].sort();
    expect(locations).toEqual([`/console/runs/${runId}?notice=already`, `/console/runs/${runId}?notice=continuing`]);
    const run = await finished(runId);
    expect(run.outcomeKind).toBe('ok');
    expect(ledgerEchoes().filter((line) => line.includes('approved-once'))).toHaveLength(1);
    expect((await store().listPauses(runId))[0]?.decision).toEqual({ decision: 'allow', by: 'alice' });
    const after = await (await get(`/console/runs/${runId}`, browser.cookie)).text();
    expect(after).toContain('Approved by alice');
    expect(after).toContain('replayed from the journal');
    // The log, kept once the run finished, escaped too.
    expect(after).toContain('[log] &lt;script&gt;alert(1)&lt;/script&gt; approved-once');
    expect(after).not.toContain('<script>alert');
    // A third decision, a denial, shows the first one.
    const late = await post(path, browser, { decision: 'deny', csrf: browser.csrf });
    expect(late.headers.get('location')).toBe(`/console/runs/${runId}?notice=already`);
    expect(await (await get(late.headers.get('location') as string, browser.cookie)).text()).toContain(
      'the first decision stands',
    );
  });

  it('denies with a reason: the program reads it and the call never runs', async () => {
    const { runId } = await runFor(alice, pausingProgram('denied'));
    const browser = await signIn(tokens.alice);
    const response = await post(`/console/runs/${runId}/pauses/1`, browser, {
      decision: 'deny',
      reason: 'not today <i>',
      csrf: browser.csrf,
    });
    expect(response.status).toBe(303);
    const run = await finished(runId);
    expect(run.outcomeKind).toBe('exception');
    expect(JSON.stringify(run.outcome)).toContain('not today <i>');
    expect(ledgerEchoes().filter((line) => line.includes('denied'))).toEqual([]);
    const page = await (await get(`/console/runs/${runId}`, browser.cookie)).text();
    expect(page).toContain('Denied by alice');
    expect(page).toContain('not today &lt;i&gt;');
  });

  it('answers the elicitation a client waits on for that call, so its request goes on with the run', async () => {
    const asking = await connectClient(served.url, tokens.alice, { elicitation: {} });
    let asked: () => void = () => {};
    const wasAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    // The client's user never answers: the console does.
    asking.setRequestHandler(ElicitRequestSchema, () => {
      asked();
      return new Promise(() => {});
    });
    try {
      const call = asking.callTool({ name: 'run_code', arguments: { code: pausingProgram('elicited') } }, undefined, {
        timeout: 60_000,
      });
      await wasAsked;
      const runs = await store().listRuns({ conversation: 'principal:alice', status: 'paused', limit: 50 });
      const run = runs.find((candidate) => candidate.start.program.includes('elicited'));
      expect(run).toBeDefined();
      const browser = await signIn(tokens.alice);
      const response = await post(`/console/runs/${run?.start.runId}/pauses/1`, browser, {
        decision: 'allow',
        csrf: browser.csrf,
      });
      expect(response.headers.get('location')).toContain('notice=answered');
      const result = await call;
      expect(resultText(result)).toContain('elicited');
      expect(ledgerEchoes().filter((line) => line.includes('elicited'))).toHaveLength(1);
    } finally {
      await asking.close();
    }
  });

  it("shows a failure at the program's line, and filters the list by failure kind and time", async () => {
    const failing = await runFor(alice, 'const a = 1;\nthrow new Error("boom <b>");');
    const ok = await runFor(alice, 'return 42;');
    await finished(failing.runId);
    await finished(ok.runId);
    const browser = await signIn(tokens.alice);
    const page = await (await get(`/console/runs/${failing.runId}`, browser.cookie)).text();
    expect(page).toContain('failed: exception');
    expect(page).toContain('href="#L2"');
    expect(page).toMatch(/<li id="L2" class="failed"/);
    expect(page).toContain('boom &lt;b&gt;');
    const exceptions = await (await get('/console/?status=failed%3Aexception', browser.cookie)).text();
    expect(exceptions).toContain(failing.runId);
    expect(exceptions).not.toContain(ok.runId);
    const succeeded = await (await get('/console/?status=succeeded', browser.cookie)).text();
    expect(succeeded).toContain(ok.runId);
    expect(succeeded).not.toContain(failing.runId);
    const past = await (await get('/console/?to=2000-01-01T00%3A00', browser.cookie)).text();
    expect(past).toContain('No runs match.');
  });

  it('updates the list live: a new run appears on the events stream', async () => {
    const browser = await signIn(tokens.alice);
    const controller = new AbortController();
    const response = await fetch(`${origin}/console/events`, {
      headers: { cookie: browser.cookie },
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    // The first poll has been sent before the run starts.
    while (!text.includes(': waiting')) text += decoder.decode((await reader.read()).value);
    const { runId } = await runFor(alice, 'return "live";');
    while (!text.includes(runId)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value);
    }
    controller.abort();
    expect(text).toMatch(/event: runs\n/);
    expect(text).toContain(runId);
  });
});

describe('bob', () => {
  it('can use his own console session for his own runs', async () => {
    const { runId } = await runFor(bob, 'return 1;');
    const browser = await signIn(tokens.bob);
    expect(await (await get('/console/', browser.cookie)).text()).toContain(runId);
    expect(resultText(await bob.callTool({ name: 'list_runs', arguments: {} }))).toContain(runId);
  });
});
