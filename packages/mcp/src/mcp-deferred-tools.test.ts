import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labServer, resultText, runValue, type SluiceProcess, startSluice } from './__fixtures__/sluice-process.js';

/** The block of `run_code`'s description that declares `namespace`, or `undefined` when it declares none. */
function block(description: string, namespace: string): string | undefined {
  const start = description.indexOf(`declare const ${namespace}: {`);
  return start === -1 ? undefined : description.slice(start).split('\n};')[0];
}

describe('sluice mcp with a deferred server', () => {
  let sluice: SluiceProcess;
  let changes = 0;
  const description = async () => (await sluice.client.listTools()).tools[0]!.description ?? '';

  beforeAll(async () => {
    sluice = await startSluice({
      mcpServers: { lab: { ...labServer(), deferred: true }, twin: labServer() },
      sluice: { runtime: { wallTimeMs: 60_000 } },
    });
    // The lab server never changes its tools, so every notification here comes from a load.
    sluice.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
  }, 60_000);

  afterAll(async () => {
    await sluice?.close();
  });

  it('leaves the deferred server out of the declarations, while its tools can be called', async () => {
    const text = await description();
    expect(block(text, 'lab')).toBeUndefined();
    expect(block(text, 'twin')).toContain('add(input:');
    expect(await runValue(sluice.client, 'return (await lab.add({ a: 2, b: 3 })).sum;')).toBe(5);
    expect(changes).toBe(0);
  });

  it('loads what search_tools finds, tells the client, and declares it from then on', async () => {
    const found = await sluice.client.callTool({
      name: 'search_tools',
      arguments: { query: 'add two numbers', namespace: 'lab', limit: 1 },
    });
    expect(resultText(found)).toBe('lab.add: Add two numbers. (loaded into run_code)');
    expect(changes).toBe(1);
    const lab = block(await description(), 'lab');
    expect(lab).toContain('add(input:');
    expect(lab).not.toContain('echo');
  });

  it('loads what a program loads with sluice.loadTools, and tells the client', async () => {
    const declared = await runValue(sluice.client, `return await sluice.loadTools(['lab.echo']);`);
    expect(declared).toContain('echo(input:');
    expect(changes).toBe(2);
    const lab = block(await description(), 'lab');
    expect(lab).toContain('add(input:');
    expect(lab).toContain('echo(input:');
  });

  it('sends nothing when a search loads nothing new', async () => {
    const again = await sluice.client.callTool({
      name: 'search_tools',
      arguments: { query: 'add two numbers', namespace: 'lab', limit: 1 },
    });
    expect(resultText(again)).toContain('lab.add: Add two numbers.');
    await sluice.client.callTool({ name: 'search_tools', arguments: { query: 'add two numbers', namespace: 'twin' } });
    expect(changes).toBe(2);
  });
});
