import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createPostgresRunStore } from '@sluice/run-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../../run-store/src/postgres-test-server.test-helper.js';
import { type ServeProcess, startServeProcess, writeConfig } from './__fixtures__/serve.js';
import { labServer, resultText, resultValue } from './__fixtures__/sluice-process.js';
import { hashServeToken } from './mcp-serve-config.js';

// Two `sluice serve` processes on one PostgreSQL, as replicas behind a load balancer: a session
// started on one is served by the other, a pause asked through one is decided through the other,
// a replica killed mid-run leaves its run for the other to resume, and SIGTERM lets a run finish.
// A ledger file the lab server appends every call to counts what really ran, across processes.

const token = 'team-token-0123456789abcdef';
let postgres: TestPostgres;
let config: ReturnType<typeof writeConfig>;
let ledger: string;
let storeUrl: string;
const replicas: ServeProcess[] = [];

beforeAll(async () => {
  postgres = await startTestPostgres();
  const store = await postgres.createDatabase('replicas');
  storeUrl = store;
  config = writeConfig({});
  ledger = join(config.directory, 'ledger.jsonl');
  writeFileSync(ledger, '');
  writeFileSync(
    config.path,
    JSON.stringify({
      mcpServers: { lab: labServer({ LAB_LEDGER: ledger }) },
      sluice: {
        runtime: { provider: 'quickjs', wallTimeMs: 120_000 },
        policy: { default: 'allow', rules: [{ tool: 'lab__echo', effect: 'ask' }] },
        durable: { store, leaseMs: 2_000 },
        serve: {
          port: 0,
          shutdownTimeoutMs: 30_000,
          sessionSecret: `\${SLUICE_SESSION_SECRET}`,
          auth: { tokens: [{ principal: 'team', sha256: hashServeToken(token) }] },
        },
      },
    }),
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.kill()));
  await postgres?.stop();
  config?.cleanup();
});

const secret = randomBytes(24).toString('hex');
async function replica(): Promise<ServeProcess> {
  const started = await startServeProcess(config.path, { SLUICE_SESSION_SECRET: secret });
  replicas.push(started);
  return started;
}

/** The calls the lab really ran, by tool name. */
function ledgerCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of readFileSync(ledger, 'utf8').split('\n')) {
    if (line === '') continue;
    const { name } = JSON.parse(line) as { name: string };
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

/**
 * An MCP client behind a "load balancer": each HTTP request goes to the replica `route` picks from
 * the JSON-RPC body it carries.
 */
async function balancedClient(
  targets: readonly ServeProcess[],
  route: (body: string, count: number) => number,
  capabilities = {},
): Promise<Client> {
  let count = 0;
  const transport = new StreamableHTTPClientTransport(new URL(targets[0]!.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: (url, init) => {
      const target = new URL(targets[route(String(init?.body ?? ''), count++)]!.url);
      return fetch(new URL(new URL(url).pathname, target), init);
    },
  });
  const client = new Client({ name: 'sluice-replicas-test', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return client;
}

/** Signs in to `replica`'s console with the team's token and returns the session cookie. */
async function consoleCookie(replica: ServeProcess): Promise<string> {
  const login = await fetch(new URL('/console/login', replica.url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  return (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
}

/** Resolves once `check` holds, polling; rejects after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('two sluice serve replicas on one PostgreSQL', () => {
  let a: ServeProcess;
  let b: ServeProcess;

  beforeAll(async () => {
    [a, b] = await Promise.all([replica(), replica()]);
  }, 180_000);

  it('serves one session from both replicas, request by request', async () => {
    const client = await balancedClient([a, b], (_body, count) => count % 2);
    try {
      for (let round = 0; round < 3; round++) {
        expect(
          resultValue(await client.callTool({ name: 'run_code', arguments: { code: `return ${round} + 1;` } })),
        ).toBe(round + 1);
      }
    } finally {
      await client.close();
    }
  });

  it('asks about a pause through one replica and takes the answer through the other', async () => {
    // Every answer to the server's requests goes to b; everything else to a.
    const client = await balancedClient([a, b], (body) => (/"method"/.test(body) ? 0 : 1), { elicitation: {} });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked += 1;
      return { action: 'accept', content: {} };
    });
    try {
      const before = ledgerCounts().echo ?? 0;
      const result = await client.callTool(
        { name: 'run_code', arguments: { code: "return await lab.echo({ text: 'decided on b' });" } },
        undefined,
        { timeout: 120_000 },
      );
      expect(resultValue(result), `${resultText(result)}\n--- a ---\n${a.stderr()}\n--- b ---\n${b.stderr()}`).toBe(
        'decided on b',
      );
      expect(asked).toBe(1);
      expect((ledgerCounts().echo ?? 0) - before).toBe(1);
      // b recorded the routed answer in the store, naming who gave it.
      const store = createPostgresRunStore({ connectionString: storeUrl });
      try {
        const [run] = await store.listRuns({ limit: 1 });
        expect((await store.listPauses(run!.start.runId)).map((pause) => pause.decision)).toEqual([
          { decision: 'allow', by: 'team' },
        ]);
      } finally {
        await store.close();
      }
    } finally {
      await client.close();
    }
  });

  it("approves in one replica's console a pause the other asks its client about: the call runs once and the client gets the outcome", async () => {
    const client = await balancedClient([a], () => 0, { elicitation: {} });
    let asked: () => void = () => {};
    const wasAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    // The client's user never answers: a person approves in b's console instead.
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked();
      return new Promise(() => {});
    });
    try {
      const before = ledgerCounts().echo ?? 0;
      const call = client.callTool(
        { name: 'run_code', arguments: { code: "return await lab.echo({ text: 'approved in b console' });" } },
        undefined,
        { timeout: 120_000 },
      );
      await wasAsked;
      const console = new URL('/console/', b.url);
      const cookie = await consoleCookie(b);
      const list = await (await fetch(new URL('?status=paused', console), { headers: { cookie } })).text();
      const runPath = /href="(\/console\/runs\/[^"]+)"/.exec(list)?.[1];
      expect(runPath, list).toBeDefined();
      const page = await (await fetch(new URL(runPath as string, console), { headers: { cookie } })).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string;
      const decided = await fetch(new URL(`${runPath}/pauses/1`, console), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, decision: 'allow' }),
      });
      // b has no client waiting on it: it continues the run itself, as a watches it for its client.
      expect(decided.headers.get('location')).toContain('notice=continuing');
      const result = await call;
      expect(resultValue(result), `${resultText(result)}\n--- a ---\n${a.stderr()}\n--- b ---\n${b.stderr()}`).toBe(
        'approved in b console',
      );
      await until(() => /console: run durable_[\w-]+ continued/.test(b.stderr()), 'b to finish its continuation');
      expect((ledgerCounts().echo ?? 0) - before).toBe(1);
    } finally {
      await client.close();
    }
  });

  it("takes one of an approval and a denial sent at once to both replicas' consoles: the other shows it, and the call runs at most once", async () => {
    // A client that cannot be asked: the run pauses and waits for the console.
    const client = await balancedClient([a], () => 0);
    try {
      const before = ledgerCounts().echo ?? 0;
      const paused = resultText(
        await client.callTool({ name: 'run_code', arguments: { code: "return await lab.echo({ text: 'raced' });" } }),
      );
      const runId = /(durable_[\w-]+)/.exec(paused)?.[1];
      expect(runId, paused).toBeDefined();
      const signIn = async (replica: ServeProcess) => {
        const console = new URL('/console/', replica.url);
        const cookie = await consoleCookie(replica);
        const page = await (await fetch(new URL(`runs/${runId}`, console), { headers: { cookie } })).text();
        const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string;
        expect(csrf, page).toBeDefined();
        return (decision: string) =>
          fetch(new URL(`runs/${runId}/pauses/1`, console), {
            method: 'POST',
            redirect: 'manual',
            headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ csrf, decision, reason: 'raced' }),
          });
      };
      const [onA, onB] = await Promise.all([signIn(a), signIn(b)]);
      const [allowed, denied] = await Promise.all([onA('allow'), onB('deny')]);
      const notices = [allowed, denied].map(
        (response) => /notice=(\w+)/.exec(response.headers.get('location') ?? '')?.[1],
      );
      expect(notices.sort()).toEqual(['already', 'continuing']);
      const allowWon = /notice=continuing/.test(allowed.headers.get('location') ?? '');
      // The replica whose decision stood continues the run; the call ran only if it was the approval.
      await until(
        () => /console: run durable_[\w-]+ continued/.test(allowWon ? a.stderr() : b.stderr()),
        'the continuation',
      );
      expect((ledgerCounts().echo ?? 0) - before).toBe(allowWon ? 1 : 0);
    } finally {
      await client.close();
    }
  });

  // Known bug, found by `pnpm --filter @sluice/bench serve-load`: the full text of a cut result is
  // kept in a temporary folder of the replica that ran the program (ResultSpill), so read_output
  // through any other replica answers that no output is kept. When it is fixed, make this `it`.
  it.fails('pages a cut result through the other replica', async () => {
    const client = await balancedClient([a, b], (body) => (/"read_output"/.test(body) ? 1 : 0));
    try {
      const program = "for (let i = 0; i < 1000; i++) console.log('line ' + i + ' ' + 'x'.repeat(70)); return 1;";
      const result = await client.callTool({ name: 'run_code', arguments: { code: program } });
      const id = (result.structuredContent as { outputId?: unknown } | undefined)?.outputId;
      expect(typeof id, resultText(result)).toBe('string');
      const page = await client.callTool({ name: 'read_output', arguments: { id, offset: 0 } });
      expect(resultText(page)).toContain('line 0 ');
    } finally {
      await client.close();
    }
  });

  it('leaves the run of a replica killed mid-run to the other, which runs no call twice', async () => {
    const onA = await balancedClient([a], () => 0);
    const before = ledgerCounts();
    const program = `
      const first = await lab.add({ a: 1, b: 2 });
      let waited;
      try { waited = await lab.wait({ ms: 30000 }); } catch (error) { waited = 'interrupted'; }
      const second = await lab.add({ a: 3, b: 4 });
      return { first: first.sum, waited, second: second.sum };`;
    const pending = onA.callTool({ name: 'run_code', arguments: { code: program } }, undefined, { timeout: 120_000 });
    pending.catch(() => {});
    await until(() => (ledgerCounts().wait ?? 0) > (before.wait ?? 0), 'the program to call lab.wait on a');
    const runId = [...a.stderr().matchAll(/durable run (durable_[\w-]+) started/g)].at(-1)?.[1];
    expect(runId, a.stderr()).toBeDefined();
    await a.kill();

    const onB = await balancedClient([b], () => 0);
    try {
      // b takes the run once a's lease has lapsed.
      let resumed: Awaited<ReturnType<Client['callTool']>>;
      for (;;) {
        resumed = await onB.callTool({ name: 'resume_run', arguments: { run_id: runId } }, undefined, {
          timeout: 120_000,
        });
        if (!/is held by/.test(resultText(resumed))) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(resultValue(resumed)).toEqual({ first: 3, waited: 'interrupted', second: 7 });
      const after = ledgerCounts();
      expect((after.add ?? 0) - (before.add ?? 0)).toBe(2);
      expect((after.wait ?? 0) - (before.wait ?? 0)).toBe(1);
    } finally {
      await onB.close();
      await onA.close().catch(() => {});
    }
  });

  it('on SIGTERM stops taking requests, lets a short run finish, and exits', async () => {
    const c = await replica();
    const client = await balancedClient([c], () => 0);
    const pending = client.callTool(
      { name: 'run_code', arguments: { code: "await lab.wait({ ms: 2000 }); return 'finished';" } },
      undefined,
      { timeout: 120_000 },
    );
    await until(() => /durable run durable_[\w-]+ started/.test(c.stderr()), 'the run to start on c');
    c.child.kill('SIGTERM');
    await until(() => c.stderr().includes('stopping'), 'c to begin stopping');
    // A new request is refused (503) or finds nothing listening, while the run in flight goes on.
    const late = await fetch(c.url, { method: 'POST', body: '{}' }).then(
      (response) => response.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(late);
    expect(resultValue(await pending)).toBe('finished');
    expect(await c.exited).toBe(0);
    expect(c.stderr()).toContain('stopped');
    await client.close().catch(() => {});
  });
});
