import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labServer, resultText, resultValue, startSluice } from './__fixtures__/sluice-process.js';

// `sluice.durable`: a run that needs a person's approval pauses in the run store; a client that can
// ask its user (elicitation) is asked at once, and `resume_run` asks again later — also from a new
// server process over the same store.

let directory: string;
let configPath: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'sluice-mcp-durable-'));
  configPath = join(directory, 'sluice-mcp.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      mcpServers: { lab: labServer() },
      sluice: {
        runtime: { provider: 'quickjs', wallTimeMs: 60_000 },
        policy: {
          default: 'allow',
          rules: [{ tool: 'lab__echo', effect: 'ask', description: 'echoes need a person' }],
        },
        durable: { store: 'runs', conversation: 'chat-1' },
      },
    }),
  );
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

const program = `
console.log('before the approval');
const sum = await lab.add({ a: 2, b: 3 });
const echoed = await lab.echo({ text: 'approved' });
await sluice.store('last', echoed);
return { sum, echoed, kept: await sluice.load('last') };`;

describe('durable runs through sluice mcp', () => {
  it('pauses for a client that cannot ask its user, and resume_run from a new server asks and finishes the run', async () => {
    const first = await startSluice(undefined, { configPath });
    let runId: string;
    try {
      const { tools } = await first.client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('resume_run');
      const paused = await first.client.callTool({ name: 'run_code', arguments: { code: program } }, undefined, {
        timeout: 120_000,
      });
      const text = resultText(paused);
      expect(text).toMatch(/paused: waiting for approval/);
      expect(text).toMatch(/lab\.echo\(\{"text":"approved"\}\): echoes need a person/);
      expect(text).toContain('before the approval');
      expect(text).not.toMatch(/pause_[A-Za-z0-9_-]{20}/);
      expect(paused.isError).toBe(false);
      runId = /The run id is (\S+): call resume_run/.exec(text)?.[1] ?? '';
      expect(runId).toMatch(/^durable_/);
      // As data: paused, with the id resume_run takes, and never the pause token (the client checked the outputSchema).
      expect(paused.structuredContent).toMatchObject({
        ok: false,
        status: 'paused',
        runId,
        pause: { tool: 'lab.echo', reason: 'echoes need a person' },
      });
      expect(paused.structuredContent).not.toHaveProperty('failure');
      expect(JSON.stringify(paused)).not.toMatch(/pause_[A-Za-z0-9_-]{20}/);
      expect(JSON.stringify(paused.structuredContent)).not.toMatch(/token/i);
      // Asked again with nobody to answer: it still waits, and says so.
      const still = await first.client.callTool({ name: 'resume_run', arguments: { run_id: runId } });
      expect(resultText(still)).toMatch(/still waits for a person to approve lab__echo/);
    } finally {
      await first.close();
    }

    const second = await startSluice(undefined, { configPath, capabilities: { elicitation: {} } });
    try {
      const asked: string[] = [];
      second.client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push('message' in request.params ? request.params.message : '');
        return { action: 'accept' };
      });
      const done = await second.client.callTool({ name: 'resume_run', arguments: { run_id: runId } }, undefined, {
        timeout: 120_000,
      });
      expect(resultValue(done)).toEqual({ sum: { sum: 5 }, echoed: 'approved', kept: 'approved' });
      expect(done.structuredContent).toMatchObject({ ok: true, status: 'finished', runId });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatch(/echoes need a person/);
      // The stored value is the conversation's now: a new run reads it.
      const next = await second.client.callTool({
        name: 'run_code',
        arguments: { code: `return await sluice.load('last');` },
      });
      expect(resultValue(next)).toBe('approved');
      // Resuming a finished run gives its result again, and asks nobody.
      const again = await second.client.callTool({ name: 'resume_run', arguments: { run_id: runId } });
      expect(resultValue(again)).toEqual({ sum: { sum: 5 }, echoed: 'approved', kept: 'approved' });
      expect(asked).toHaveLength(1);
      const unknown = await second.client.callTool({ name: 'resume_run', arguments: { run_id: 'durable_nope' } });
      expect(resultText(unknown)).toMatch(/There is no durable run "durable_nope"/);
    } finally {
      await second.close();
    }
  }, 240_000);

  it('keeps a durable run resumable when the client quits while a tool runs; resume_run from a new server continues it', async () => {
    const first = await startSluice(undefined, { configPath });
    const code = `console.log('waiting');
try { await lab.wait({ ms: 600000 }); return 'waited'; } catch (error) { return String(error.message).split(':')[0]; }`;
    let running = false;
    const call = first.client.callTool({ name: 'run_code', arguments: { code } }, undefined, {
      timeout: 120_000,
      onprogress: (progress) => {
        running ||= progress.message?.includes('running: lab.wait') === true;
      },
    });
    call.catch(() => {});
    for (let waited = 0; !running && waited < 60_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running, first.stderr()).toBe(true);
    const runId = /durable run (durable_[\w-]+) started/.exec(first.stderr())?.[1];
    expect(runId, first.stderr()).toBeDefined();
    // The call reached the host; a moment more and the lab runs it. Then the client quits (stdin closes).
    await new Promise((resolve) => setTimeout(resolve, 500));
    await first.close();

    const second = await startSluice(undefined, { configPath });
    try {
      const resumed = await second.client.callTool({ name: 'resume_run', arguments: { run_id: runId } }, undefined, {
        timeout: 120_000,
      });
      // As after a crash: the call in flight is not run again blind, and the program reads why.
      expect(resultValue(resumed)).toBe('interrupted');
      expect(resultText(resumed)).toContain('waiting');
      expect(resumed.structuredContent).toMatchObject({ ok: true, status: 'finished', runId });
    } finally {
      await second.close();
    }
  }, 240_000);

  it('asks a client that can at once, and answers run_code with the finished run', async () => {
    const sluice = await startSluice(undefined, { configPath, capabilities: { elicitation: {} } });
    try {
      sluice.client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' }));
      const result = await sluice.client.callTool(
        {
          name: 'run_code',
          arguments: {
            code: `try { await lab.echo({ text: 'x' }); return 'echoed'; } catch (error) { return error.message; }`,
          },
        },
        undefined,
        { timeout: 120_000 },
      );
      expect(resultValue(result)).toMatch(/the user declined/);
    } finally {
      await sluice.close();
    }
  }, 240_000);
});
