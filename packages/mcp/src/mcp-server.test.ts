import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type Progress,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  labServer,
  resultText,
  resultValue,
  runValue,
  type SluiceProcess,
  startSluice,
} from './__fixtures__/sluice-process.js';

const labConfig = {
  mcpServers: { lab: labServer(), twin: labServer() },
  sluice: {
    policy: {
      default: 'allow',
      rules: [
        { tool: 'lab__delete_*', effect: 'deny', reason: 'Deleting is not allowed from programs.' },
        { tool: '*__crash', effect: 'deny' },
        { tool: 'twin__echo', effect: 'ask' },
      ],
    },
    runtime: { wallTimeMs: 60_000 },
    progressIntervalMs: 100,
  },
};

describe('sluice mcp', () => {
  let sluice: SluiceProcess;
  const logs: string[] = [];

  beforeAll(async () => {
    sluice = await startSluice(labConfig, { capabilities: { elicitation: {} } });
    sluice.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(String(notification.params.data));
    });
    sluice.client.setRequestHandler(ElicitRequestSchema, (request) => {
      const message = 'message' in request.params ? request.params.message : '';
      return { action: message.includes('"yes"') ? 'accept' : 'decline' };
    });
  }, 60_000);

  afterAll(async () => {
    await sluice?.close();
  });

  it('lists run_code, read_output, search_tools and describe_tool, with the upstream tools declared in run_code', async () => {
    const { tools } = await sluice.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['run_code', 'read_output', 'search_tools', 'describe_tool']);
    const description = tools[0]!.description ?? '';
    expect(description).toContain('declare const lab');
    expect(description).toContain('declare const twin');
    expect(description).toMatch(/add\(input: \{[^}]*a: number;/s);
    // A tool the policy can never allow is not declared.
    const block = (namespace: string) =>
      description.slice(description.indexOf(`declare const ${namespace}: {`)).split('\n};')[0]!;
    expect(block('lab')).not.toContain('delete_everything');
    expect(block('twin')).toContain('delete_everything(');
    expect(description).not.toContain('crash');
    expect(tools[0]!.inputSchema).toMatchObject({ type: 'object', required: ['code'] });
  });

  it('runs a program that fans out over tools of two upstream servers', async () => {
    const value = await runValue(
      sluice.client,
      `const sums = await Promise.all([1, 2, 3].map((n) => lab.add({ a: n, b: n * 10 })));
       const [echoed, twice] = await Promise.all([lab.echo({ text: 'hello' }), twin.add({ a: 20, b: 22 })]);
       console.log('fanned out');
       return { sums: sums.map((result) => result.sum), echoed, twice: twice.sum };`,
    );
    expect(value).toEqual({ sums: [11, 22, 33], echoed: 'hello', twice: 42 });
  });

  it('refuses a call the policy denies, inside the program, without reaching the upstream', async () => {
    const value = await runValue(
      sluice.client,
      `let message = 'not refused';
       try { await lab.delete_everything({}); } catch (error) { message = error.message; }
       const { events } = await lab.events();
       return { message, deleted: events.includes('deleted everything') };`,
    );
    expect(value).toMatchObject({ deleted: false });
    expect((value as { message: string }).message).toContain('Deleting is not allowed from programs.');
  });

  it('asks the MCP client for approval on an ask rule, through elicitation', async () => {
    const value = await runValue(
      sluice.client,
      `const allowed = await twin.echo({ text: 'yes' });
       let denied = 'not refused';
       try { await twin.echo({ text: 'no' }); } catch (error) { denied = error.message; }
       return { allowed, denied };`,
    );
    expect(value).toMatchObject({ allowed: 'yes' });
    expect((value as { denied: string }).denied).toMatch(/decline/);
  });

  it('passes a tool error to the program as a catchable error', async () => {
    const value = await runValue(
      sluice.client,
      `try { await lab.fail(); return 'no error'; } catch (error) { return error.message; }`,
    );
    expect(value).toContain('the lab tool failed on purpose');
  });

  it('reports progress while a long run is going', async () => {
    const updates: Progress[] = [];
    const result = await sluice.client.callTool(
      { name: 'run_code', arguments: { code: `await lab.wait({ ms: 1500 }); return 'done';` } },
      undefined,
      { onprogress: (progress) => updates.push(progress), timeout: 60_000 },
    );
    expect(resultValue(result)).toBe('done');
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.some((update) => update.message?.includes('running: lab.wait'))).toBe(true);
    expect(updates.every((update) => update.total === 60_000)).toBe(true);
    const progress = updates.map((update) => update.progress);
    expect(progress).toEqual([...progress].sort((left, right) => left - right));
  });

  it('cancels the run when the client cancels the request, and the upstream call with it', async () => {
    const controller = new AbortController();
    const call = sluice.client.callTool(
      { name: 'run_code', arguments: { code: `await lab.wait({ ms: 120000 }); return 'finished';` } },
      undefined,
      {
        signal: controller.signal,
        timeout: 120_000,
        onprogress: (progress) => {
          if (progress.message?.includes('running: lab.wait')) controller.abort('the user pressed stop');
        },
      },
    );
    await expect(call).rejects.toThrow();
    await vi.waitFor(() => expect(logs.some((line) => line.includes('ended with abort'))).toBe(true), {
      timeout: 30_000,
      interval: 50,
    });
    await vi.waitFor(
      async () => {
        const { events } = (await runValue(sluice.client, 'return await lab.events();')) as { events: string[] };
        expect(events).toContain('cancelled wait');
      },
      { timeout: 30_000, interval: 200 },
    );
  });

  it('searches and describes upstream tools', async () => {
    const search = resultText(
      await sluice.client.callTool({ name: 'search_tools', arguments: { query: 'add numbers' } }),
    );
    expect(search.split('\n')[0]).toMatch(/^(lab|twin)\.add: Add two numbers\.$/);
    expect(search).not.toContain('delete_everything');
    const described = resultText(
      await sluice.client.callTool({ name: 'describe_tool', arguments: { name: 'lab.add' } }),
    );
    expect(described).toContain('add(input:');
    const elsewhere = await sluice.client.callTool({
      name: 'search_tools',
      arguments: { query: 'add', namespace: 'labs' },
    });
    expect(elsewhere.isError).toBe(true);
    expect(resultText(elsewhere)).toMatch(/^search_tools: no namespace is named "labs"\. Namespaces: .*lab.*twin/);
    const missing = await sluice.client.callTool({ name: 'describe_tool', arguments: { name: 'lab.ad' } });
    expect(missing.isError).toBe(true);
    expect(resultText(missing)).toContain('lab.add');
  });

  it('returns a failed run as an error result the model can read', async () => {
    const result = await sluice.client.callTool({ name: 'run_code', arguments: { code: 'throw new Error("boom")' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('failed: exception');
    expect(resultText(result)).toContain('boom');
  });
});

describe('sluice mcp with failing upstreams', () => {
  it('reports an upstream that fails to start, and one that never answers, and serves the others', async () => {
    const sluice = await startSluice({
      mcpServers: {
        lab: labServer(),
        broken: labServer({ LAB_MODE: 'exit-at-start' }),
        stuck: labServer({ LAB_MODE: 'hang-at-start' }),
      },
      // What ends the stuck server's start, and what the healthy one starts within: loading the SDK
      // takes a node process past 2 s on a loaded machine.
      sluice: { startTimeoutMs: 6_000 },
    });
    try {
      const { tools } = await sluice.client.listTools();
      const description = tools[0]!.description ?? '';
      expect(description).toContain(
        '- broken: The broken server failed to start: it exited before it finished starting.',
      );
      expect(description).toContain('lab: cannot open the lab database');
      expect(description).toContain(
        '- stuck: The stuck server failed to start: it did not start and list its tools within 6000 ms.',
      );
      expect(await runValue(sluice.client, `return await lab.echo({ text: 'still here' });`)).toBe('still here');
      const result = await sluice.client.callTool({
        name: 'run_code',
        arguments: { code: `return await broken.anything({});` },
      });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toContain('The broken server failed to start');
      expect(sluice.stderr()).toContain('[broken] lab: cannot open the lab database');
    } finally {
      await sluice.close();
    }
  });

  it('fails the calls of an upstream that dies mid-run, with what it said, and tells the client', async () => {
    // Restart off: with it on, the server may be back before the description is read.
    const sluice = await startSluice({ mcpServers: { lab: labServer() }, sluice: { restart: false } });
    let listChanged = false;
    sluice.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged = true;
    });
    try {
      const value = (await runValue(
        sluice.client,
        `const messages = [];
           try { await lab.crash(); } catch (error) { messages.push(error.message); }
           try { await lab.echo({ text: 'anyone?' }); } catch (error) { messages.push(error.message); }
           return messages;`,
      )) as string[];
      expect(value).toHaveLength(2);
      expect(value[0]).toContain('The lab server exited while crash was running.');
      expect(value[0]).toContain('lab: crashing on purpose');
      expect(value[1]).toContain('The lab server exited.');
      await vi.waitFor(() => expect(listChanged).toBe(true), { timeout: 10_000 });
      const { tools } = await sluice.client.listTools();
      expect(tools[0]!.description).toContain('- lab: The lab server exited.');
    } finally {
      await sluice.close();
    }
  });
});

describe('sluice mcp in Python', () => {
  it('declares the upstream tools as Python and runs a Python program over them', async () => {
    const sluice = await startSluice({ mcpServers: { lab: labServer() }, sluice: { language: 'python' } });
    try {
      const { tools } = await sluice.client.listTools();
      expect(tools[0]!.description).toContain('```python');
      expect(tools[0]!.description).toContain('async def add(');
      const value = await runValue(
        sluice.client,
        `results = await asyncio.gather(*(lab.add(a=n, b=1) for n in range(3)))
echoed = await lab.echo(text="from python")
return {"sums": [result["sum"] for result in results], "echoed": echoed}`,
      );
      expect(value).toEqual({ sums: [1, 2, 3], echoed: 'from python' });
    } finally {
      await sluice.close();
    }
  });
});

describe('sluice mcp with a large catalogue', () => {
  it('lists names only and lets the program look tools up itself', async () => {
    const sluice = await startSluice({
      mcpServers: { lab: labServer(), twin: labServer() },
      sluice: { declarationsTokenBudget: 300 },
    });
    try {
      const { tools } = await sluice.client.listTools();
      const description = tools[0]!.description ?? '';
      expect(description).toContain('await sluice.describeTool(');
      expect(description).not.toContain('add(input:');
      const value = await runValue(
        sluice.client,
        `const hits = await sluice.searchTools('add numbers');
         const declaration = await sluice.describeTool(hits[0].name);
         const { sum } = await lab.add({ a: 1, b: 2 });
         return { first: hits[0].name, declares: declaration.includes('add(input:'), sum };`,
      );
      expect(value).toMatchObject({ declares: true, sum: 3 });
      expect((value as { first: string }).first).toMatch(/^(lab|twin)\.add$/);
    } finally {
      await sluice.close();
    }
  });
});
