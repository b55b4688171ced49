import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { createContext } from '@sluice/context';
import type { PolicyDefinition, Tool } from '@sluice/permissions';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDeclarations } from './declarations.js';
import { createRunCodeTool } from './run-code-tool.js';

const allowAll: PolicyDefinition = { default: 'allow', rules: [] };
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const chart: Tool = {
  name: 'charts.draw',
  description: 'Draw a chart.',
  inputSchema: { type: 'object', properties: {} },
  execute: () => ({ type: 'image', data: png, mimeType: 'image/png' }),
};

const ctx = createContext();
ctx.provide('codeRuntime', createWorkerThreadCodeRuntime({ wallTimeMs: 20_000 }));
const spillDirectory = mkdtempSync(join(tmpdir(), 'sluice-run-code-results-'));
afterAll(async () => {
  await ctx.dispose();
  rmSync(spillDirectory, { recursive: true, force: true });
});

describe('run_code results', () => {
  it('sends images in the returned value along, showing a note instead of base64 in the text and the data', async () => {
    const runCode = createRunCodeTool({
      context: ctx,
      tools: [chart],
      policy: allowAll,
      result: { attachImages: true },
    });
    const outcome = await runCode.run({ code: 'const image = await charts.draw(); return { title: "rain", image };' });
    expect(outcome.images).toEqual([{ type: 'image', data: png, mimeType: 'image/png' }]);
    expect(outcome.rendered.text).not.toContain(png);
    expect(outcome.rendered.text).toContain('"data": "(image 1: image/png, 70 bytes, sent with this result)"');
    expect(outcome.structured?.value).toEqual({
      title: 'rain',
      image: { type: 'image', data: '(image 1: image/png, 70 bytes, sent with this result)', mimeType: 'image/png' },
    });
    // The raw result keeps what the program returned.
    expect(outcome.result?.ok && outcome.result.value).toMatchObject({ image: { data: png } });
  });

  it('sends no image and says it is not shown when the host does not attach images', async () => {
    const runCode = createRunCodeTool({ context: ctx, tools: [chart], policy: allowAll });
    const outcome = await runCode.run({ code: 'return await charts.draw();' });
    expect(outcome.images).toEqual([]);
    expect(outcome.rendered.text).toContain('not shown: images are not sent here');
    expect(outcome.rendered.text).not.toContain(png);
  });

  it('gives the result as data matching its output schema: value, logs and calls, or the failure', async () => {
    const runCode = createRunCodeTool({ context: ctx, tools: [chart], policy: allowAll });
    const ok = await runCode.run({ code: 'console.log("drawing"); await charts.draw(); return 42;' });
    expect(ok.structured).toMatchObject({
      ok: true,
      value: 42,
      logs: [{ level: 'log', text: 'drawing' }],
      logsTruncated: false,
      calls: [{ tool: 'charts.draw', ok: true }],
      usage: { hostCalls: 1 },
    });
    expect(runCode.outputSchema).toMatchObject({ required: ['ok', 'runId', 'logsTruncated', 'usage'] });
    const failed = await runCode.run({ code: 'throw new Error("boom")' });
    expect(failed.structured).toMatchObject({ ok: false, failure: { kind: 'exception' } });
    expect(failed.structured?.failure?.message).toContain('boom');
    expect((await runCode.run({ code: '' })).structured).toBeUndefined();
  });

  it('leaves the value, logs and calls out of the data when they are over the budget, naming the output id', async () => {
    const runCode = createRunCodeTool({
      context: ctx,
      tools: [],
      policy: allowAll,
      result: { tokenBudget: 300, spillDirectory, paging: true },
    });
    const outcome = await runCode.run({ code: 'return "x".repeat(5000);' });
    expect(outcome.structured).toMatchObject({ ok: true, cut: true, outputId: outcome.result?.runId });
    expect(outcome.structured).not.toHaveProperty('value');
    runCode.dispose();
  });

  it('lets the model page through a cut result with read_output, from the offset the cut names to the end', async () => {
    const runCode = createRunCodeTool({
      context: ctx,
      tools: [],
      policy: allowAll,
      result: { tokenBudget: 300, spillDirectory, paging: true },
    });
    const { result, rendered } = await runCode.run({
      code: "for (let i = 0; i < 400; i++) console.log('line ' + i); return 'done';",
    });
    const call = /call read_output with (\{[^}]+\}) to read on from the cut/.exec(rendered.text);
    expect(call).not.toBeNull();
    let input = JSON.parse(call![1]!) as { id: string; offset: number };
    expect(input.id).toBe(result?.runId);
    const read: string[] = [];
    for (let page = 0; page < 100; page += 1) {
      const answer = runCode.readOutput.read(input);
      expect(answer.isError).toBe(false);
      read.push(answer.text.split('\n').slice(1, -2).join('\n'));
      const next = /more: call read_output with (\{[^}]+\})/.exec(answer.text);
      if (next === null) break;
      input = JSON.parse(next[1]!);
    }
    const joined = read.join('\n');
    for (const line of ['line 100', 'line 250', 'line 399', '"done"']) expect(joined).toContain(line);
    expect(rendered.text).not.toContain('line 250\n');
    expect(readFileSync(rendered.spillPath!, 'utf8')).toContain('line 250\n');
    runCode.dispose();
    expect(existsSync(rendered.spillPath!)).toBe(false);
    expect(runCode.readOutput.read({ id: result!.runId }).isError).toBe(true);
  });

  it('refuses a spill retention out of range when the tool is made', () => {
    expect(() =>
      createRunCodeTool({ context: ctx, tools: [], policy: allowAll, result: { spillRetentionMs: 10 } }),
    ).toThrow(/spillRetentionMs/);
  });
});

describe('declarations of untyped results', () => {
  const echo: Tool = {
    name: 'everything__echo',
    description: 'Echo.',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    execute: () => '',
  };
  const sum: Tool = {
    name: 'everything__sum',
    description: 'Sum.',
    inputSchema: { type: 'object', properties: {} },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    execute: () => ({ sum: 1 }),
  };

  it('declares MCP tools without an output schema as ToolContent, and says what that is', () => {
    const typescript = generateDeclarations([echo, sum], {
      language: 'typescript',
      untypedResults: 'tool-content',
    }).text;
    expect(typescript).toContain('}): Promise<ToolContent>;');
    expect(typescript).toContain('type ToolContent = string | ImageContent | ContentItem[];');
    expect(typescript).toContain(
      '// A tool without a declared result resolves with ToolContent: its one text item as a string',
    );
    expect(typescript).toMatch(/sum\(input\?: \{ \[key: string\]: unknown \}\): Promise<\{\n\s+sum: number;/);
    const python = generateDeclarations([echo, sum], { language: 'python', untypedResults: 'tool-content' }).text;
    expect(python).toContain('async def echo(*, message: str) -> ToolContent:');
    expect(python).toContain('ToolContent = str | ImageContent | list[ContentItem]');
    expect(python).toContain('# A tool without a declared result resolves with ToolContent');
  });

  it('keeps unknown by default, and adds nothing when every tool declares its result', () => {
    expect(generateDeclarations([echo], { language: 'typescript' }).text).toContain('Promise<unknown>');
    const typed = generateDeclarations([sum], { language: 'typescript', untypedResults: 'tool-content' }).text;
    expect(typed).not.toContain('ToolContent');
  });

  it('describes one tool with the types it needs when the catalogue is only listed', () => {
    const declarations = generateDeclarations([echo, sum], {
      language: 'typescript',
      untypedResults: 'tool-content',
      tokenBudget: 10,
    });
    const described = declarations.discovery!.describe('everything.echo')!;
    expect(described).toContain('Promise<ToolContent>');
    expect(described).toContain('type ToolContent = string | ImageContent | ContentItem[];');
  });
});
