import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { everythingPath } from './__fixtures__/http-upstream.js';
import { resultText, runValue, type SluiceProcess, startSluice } from './__fixtures__/sluice-process.js';

// What programs get from upstream tools, and what the MCP client gets back from run_code, with the
// real server-everything and a small server for the shapes it lacks, driven by the SDK's client.
const resultsServerPath = fileURLToPath(new URL('./__fixtures__/results-server.mjs', import.meta.url));
const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('sluice mcp results', () => {
  let sluice: SluiceProcess;
  let temporary: string;
  /** The spill folders `sluice mcp` made in the test's temp folder (its TMPDIR). */
  const spillFolders = (): string[] => readdirSync(temporary).filter((name) => name.startsWith('sluice-results-'));

  beforeAll(async () => {
    // The server's temp directory is the test's, so the test can see what it leaves behind.
    temporary = realpathSync(mkdtempSync(join(tmpdir(), 'sluice-mcp-results-')));
    sluice = await startSluice(
      {
        mcpServers: {
          everything: { command: process.execPath, args: [everythingPath, 'stdio'] },
          results: { command: process.execPath, args: [resultsServerPath] },
        },
        sluice: { resultTokenBudget: 400 },
      },
      { env: { TMPDIR: temporary } },
    );
    // The SDK's client validates structuredContent against outputSchema once it has listed the tools.
    await sluice.client.listTools();
  }, 60_000);

  afterAll(async () => {
    await sluice?.close();
    rmSync(temporary, { recursive: true, force: true });
  });

  const call = async (code: string) =>
    (await sluice.client.callTool({ name: 'run_code', arguments: { code } })) as CallToolResult;

  it('declares what untyped results are, and lists run_code with its output schema next to read_output', async () => {
    const { tools } = await sluice.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['run_code', 'read_output', 'search_tools', 'describe_tool']);
    const description = tools[0]!.description ?? '';
    expect(description).toContain('type ToolContent = string | ImageContent | ContentItem[];');
    expect(description).toMatch(/echo\(input: \{[^}]*message: string;\s*\}\): Promise<ToolContent>;/);
    expect(description).toMatch(/get_structured_content\(input: \{[\s\S]*?\}\): Promise<\{\s*\/\*\* Temperature/);
    expect(tools[0]!.outputSchema).toMatchObject({
      type: 'object',
      required: ['ok', 'runId', 'logsTruncated', 'usage'],
    });
  });

  it('gives the program one text as a string, one image as its content, nothing as "", and lists as lists', async () => {
    const value = (await runValue(
      sluice.client,
      `const echo = await everything.echo({ message: 'hi' });
       const picture = await results.picture();
       const nothing = await results.nothing();
       const tiny = await everything.get_tiny_image();
       const weather = await everything.get_structured_content({ location: 'Chicago' });
       return { echo, picture: { type: picture.type, mimeType: picture.mimeType, size: picture.data.length },
                nothing, tiny: tiny.map((item) => item.type), weather };`,
    )) as Record<string, unknown>;
    expect(value).toEqual({
      echo: 'Echo: hi',
      picture: { type: 'image', mimeType: 'image/png', size: pixel.length },
      nothing: '',
      tiny: ['text', 'image', 'text'],
      weather: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 },
    });
  });

  it('resolves a schema tool’s error with its value, and rejects other errors with their text', async () => {
    const value = await runValue(
      sluice.client,
      `const grep = await results.grep();
       const errors = [];
       for (const fail of [() => results.broken(), () => results.refuse()]) {
         try { await fail(); errors.push('resolved'); } catch (error) { errors.push(error.message); }
       }
       return { grep, errors };`,
    );
    expect(value).toEqual({
      grep: { output: 'grep: notes.txt: No such file', exitCode: 2 },
      errors: [
        expect.stringContaining('results.broken returned an error: disk full'),
        expect.stringContaining('results.refuse returned an error: not today'),
      ],
    });
  });

  it('sends images the program returns as image content, beside the text and the structured result', async () => {
    const result = await call(`return await results.picture();`);
    expect(result.isError).toBe(false);
    expect(result.content).toContainEqual({ type: 'image', data: pixel, mimeType: 'image/png' });
    expect(resultText(result)).not.toContain(pixel);
    expect(resultText(result)).toContain('(image 1: image/png, 70 bytes, sent with this result)');
    expect(result.structuredContent).toMatchObject({
      ok: true,
      value: { type: 'image', mimeType: 'image/png', data: '(image 1: image/png, 70 bytes, sent with this result)' },
      calls: [{ tool: 'results.picture', ok: true }],
    });
    const tiny = await call(`return await everything.get_tiny_image();`);
    expect(tiny.content.filter((item) => item.type === 'image')).toHaveLength(1);
  });

  it('returns the run as structured content: value, logs and calls, or the failure', async () => {
    const ok = await call(`console.log('adding'); return (await everything.echo({ message: 'x' })).length;`);
    expect(ok.structuredContent).toMatchObject({
      ok: true,
      value: 7,
      logs: [{ level: 'log', text: 'adding' }],
      calls: [{ tool: 'everything.echo', ok: true }],
      usage: { hostCalls: 1 },
    });
    const failed = await call(`await results.refuse();`);
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({
      ok: false,
      failure: { kind: 'exception' },
      calls: [{ tool: 'results.refuse', ok: false }],
    });
  });

  it('cuts a long result naming read_output rather than a host path, pages through it, and leaves no file', async () => {
    const result = await call(`for (let i = 0; i < 300; i++) console.log('line ' + i); return 'done';`);
    const text = resultText(result);
    expect(text).not.toContain(temporary);
    const named = /call read_output with (\{[^}]+\}) to read on from the cut/.exec(text);
    expect(named).not.toBeNull();
    let input = JSON.parse(named![1]!) as Record<string, unknown>;
    expect(result.structuredContent).toMatchObject({ cut: true, outputId: input.id });
    const pages: string[] = [];
    for (let page = 0; page < 50; page += 1) {
      const answer = (await sluice.client.callTool({ name: 'read_output', arguments: input })) as CallToolResult;
      expect(answer.isError).toBe(false);
      const pageText = resultText(answer);
      pages.push(pageText);
      const next = /more: call read_output with (\{[^}]+\})/.exec(pageText);
      if (next === null) break;
      input = JSON.parse(next[1]!);
    }
    expect(pages.join('\n')).toContain('line 150\n');
    expect(pages.at(-1)).toContain('[read_output] end of output.');
    const missing = (await sluice.client.callTool({
      name: 'read_output',
      arguments: { id: 'run_0000000000000000' },
    })) as CallToolResult;
    expect(missing.isError).toBe(true);
    const folders = spillFolders();
    expect(folders).toHaveLength(1);
    expect(readdirSync(join(temporary, folders[0]!))).toHaveLength(1);
  });

  it('removes the kept output when it closes', async () => {
    expect(spillFolders()).toHaveLength(1);
    await sluice.close();
    await vi.waitFor(() => expect(spillFolders()).toEqual([]), { timeout: 10_000, interval: 50 });
  });
});
