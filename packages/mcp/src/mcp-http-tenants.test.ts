import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, freePort, type ServedSluice, serveInProcess } from './__fixtures__/serve.js';
import { labServer, resultText, resultValue } from './__fixtures__/sluice-process.js';
import { hashServeToken } from './mcp-serve-config.js';

// What a run leaves belongs to its principal: over HTTP, with two tokens, bob can neither read
// alice's stored values, resume her run, decide her pause nor page her output; and one principal
// flooding the server waits behind its own runs while the other's go ahead.

const tokens = { alice: 'alice-token-0123456789abcdef', bob: 'bob-token-0123456789abcdef' };
let directory: string;
let served: ServedSluice;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'sluice-tenants-'));
  served = await serveInProcess(
    {
      mcpServers: { lab: labServer() },
      sluice: {
        runtime: { provider: 'quickjs', wallTimeMs: 60_000, poolSize: 2 },
        resultTokenBudget: 200,
        policy: { default: 'allow', rules: [{ tool: 'lab__echo', effect: 'ask' }] },
        durable: { store: 'runs' },
        serve: {
          port: await freePort(),
          runsInFlight: 1,
          queue: 1,
          auth: {
            tokens: [
              { principal: 'alice', sha256: hashServeToken(tokens.alice) },
              { principal: 'bob', sha256: hashServeToken(tokens.bob) },
            ],
          },
        },
      },
    },
    directory,
  );
}, 120_000);

afterAll(async () => {
  await served?.close();
  rmSync(directory, { recursive: true, force: true });
});

const run = (client: Awaited<ReturnType<typeof connectClient>>, code: string) =>
  client.callTool({ name: 'run_code', arguments: { code } }, undefined, { timeout: 120_000 });

/** POSTs an answer to a request the server sent (an elicitation), as `who`. */
const answer = (who: keyof typeof tokens, id: string, action: 'accept' | 'decline') =>
  fetch(served.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tokens[who]}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, result: { action } }),
  });

describe('tenants of sluice serve', () => {
  it('keeps stored values per principal', async () => {
    const alice = await connectClient(served.url, tokens.alice);
    const bob = await connectClient(served.url, tokens.bob);
    try {
      await run(alice, "await sluice.store('plan', 'alice only'); return 1;");
      expect(resultValue(await run(alice, "return await sluice.load('plan');"))).toBe('alice only');
      expect(resultValue(await run(bob, "return (await sluice.load('plan')) ?? 'nothing';"))).toBe('nothing');
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });

  it('lets neither list_runs, resume_run nor a forged answer of bob’s reach alice’s paused run; alice’s answer decides it', async () => {
    const alice = await connectClient(served.url, tokens.alice);
    const bob = await connectClient(served.url, tokens.bob);
    try {
      const paused = await run(alice, "return await lab.echo({ text: 'hello' });");
      const runId = /The run id is (durable_[\w-]+)/.exec(resultText(paused))?.[1];
      expect(runId, resultText(paused)).toBeDefined();
      const resumed = await bob.callTool({ name: 'resume_run', arguments: { run_id: runId } });
      expect(resultText(resumed)).toContain(`There is no durable run "${runId}"`);
      expect(resultText(await alice.callTool({ name: 'list_runs', arguments: { status: 'paused' } }))).toContain(
        `${runId} · paused: lab__echo waits for a person's approval`,
      );
      expect(resultText(await bob.callTool({ name: 'list_runs', arguments: {} }))).not.toContain(runId);

      const store = served.server.service.store!;
      const [pause] = await store.listPauses(runId as string);
      const id = `sluice:pause:${encodeURIComponent(runId as string)}:${pause?.seq}:${randomUUID()}`;
      expect((await answer('bob', id, 'accept')).status).toBe(202);
      expect((await store.listPauses(runId as string))[0]?.decision).toBeUndefined();
      expect((await answer('alice', id, 'accept')).status).toBe(202);
      expect((await store.listPauses(runId as string))[0]?.decision).toEqual({ decision: 'allow', by: 'alice' });
      expect(resultValue(await alice.callTool({ name: 'resume_run', arguments: { run_id: runId } }))).toBe('hello');
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });

  it('asks a client that can elicit about a pause in the same request, and goes on with the answer', async () => {
    const alice = await connectClient(served.url, tokens.alice, { elicitation: {} });
    const questions: string[] = [];
    alice.setRequestHandler(ElicitRequestSchema, async (request) => {
      questions.push(request.params.message);
      return { action: 'accept', content: {} };
    });
    try {
      expect(resultValue(await run(alice, "return await lab.echo({ text: 'asked' });"))).toBe('asked');
      expect(questions).toEqual([expect.stringContaining('lab.echo')]);
    } finally {
      await alice.close();
    }
  });

  it('keeps a durable run resumable when its client goes away, rather than cancelling it', async () => {
    const store = served.server.service.store!;
    const session = await fetch(served.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.alice}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'leaving', version: '1' } },
      }),
    });
    await session.text();
    const gone = new AbortController();
    const program = `let waited;
      try { waited = await lab.wait({ ms: 600000 }); } catch (error) { waited = 'interrupted'; }
      return { waited, after: (await lab.add({ a: 20, b: 22 })).sum };`;
    const call = fetch(served.url, {
      method: 'POST',
      signal: gone.signal,
      headers: {
        authorization: `Bearer ${tokens.alice}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        'mcp-session-id': session.headers.get('mcp-session-id') as string,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'run_code', arguments: { code: program } },
      }),
    }).then((response) => response.text());
    call.catch(() => {});
    let runId: string | undefined;
    for (let attempt = 0; attempt < 1200 && runId === undefined; attempt++) {
      for (const run of await store.listRuns({ conversation: 'principal:alice', status: 'running' })) {
        const journal = await store.readJournal(run.start.runId);
        if (journal.some((entry) => entry.intent.name === 'wait')) runId = run.start.runId;
      }
      if (runId === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(runId).toBeDefined();
    gone.abort();
    // Let go, not finished: no owner holds it, and it is still running in the store.
    for (let attempt = 0; attempt < 1200; attempt++) {
      const record = await store.getRun(runId as string);
      if (record?.owner === undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await store.getRun(runId as string)).toMatchObject({ status: 'running' });
    const alice = await connectClient(served.url, tokens.alice);
    try {
      const resumed = await alice.callTool({ name: 'resume_run', arguments: { run_id: runId } }, undefined, {
        timeout: 120_000,
      });
      expect(resultValue(resumed)).toEqual({ waited: 'interrupted', after: 42 });
    } finally {
      await alice.close();
    }
  });

  it('pages output only for its principal', async () => {
    const alice = await connectClient(served.url, tokens.alice);
    const bob = await connectClient(served.url, tokens.bob);
    try {
      const cut = await run(alice, "for (let i = 0; i < 400; i++) console.log('line', i, 'of alice'); return 1;");
      const id = (cut.structuredContent as { outputId?: string } | undefined)?.outputId;
      expect(id, resultText(cut)).toBeDefined();
      expect(resultText(cut)).toContain(`call read_output with {"id": "${id}"`);
      const own = await alice.callTool({ name: 'read_output', arguments: { id } });
      expect(resultText(own)).toContain('of alice');
      const other = await bob.callTool({ name: 'read_output', arguments: { id } });
      expect(other.isError).toBe(true);
      expect(resultText(other)).not.toContain('of alice');
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });

  it('answers a flood busy past its share and queue, while another principal’s run goes ahead', async () => {
    const alice = await connectClient(served.url, tokens.alice);
    const bob = await connectClient(served.url, tokens.bob);
    try {
      // Each of alice's programs waits until bob's program has called the lab, for at most 50 s: if
      // alice's flood kept bob's run from starting, her running program would see no call of his.
      const nonce = randomUUID();
      const waitForBob = `
        for (let i = 0; i < 100; i++) {
          const { events } = await lab.events({});
          if (events.some((event) => event === 'called add')) return 'saw bob';
          await lab.wait({ ms: 500 });
        }
        return 'bob never ran ${nonce}';`;
      const flood = Array.from({ length: 4 }, () => run(alice, waitForBob));
      const bobs = await run(bob, 'return (await lab.add({ a: 1, b: 1 })).sum;');
      expect(resultValue(bobs)).toBe(2);
      const results = await Promise.all(flood);
      const busy = results.filter((result) => /not run: this server is already running/.test(resultText(result)));
      expect(busy).toHaveLength(2);
      expect(resultText(busy[0])).toMatch(/again in about \d+ s/);
      const ran = results.filter((result) => !busy.includes(result));
      expect(ran.map((result) => resultValue(result))).toEqual(['saw bob', 'saw bob']);
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });
});
