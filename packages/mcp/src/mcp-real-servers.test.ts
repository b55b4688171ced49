// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text whose ${VAR} references Sluice expands.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTokens, defaultDeclarationsTokenBudget } from '@sluice/code-mode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingPath, type HttpUpstream, startEverything, startSpyOverHttp } from './__fixtures__/http-upstream.js';
import { runValue, type SluiceProcess, startSluice } from './__fixtures__/sluice-process.js';

// Third-party MCP servers from npm (pinned dev dependencies), upstream of the built `sluice mcp`,
// driven by the MCP SDK's client: over stdio, and over Streamable HTTP and SSE on 127.0.0.1.
const serverBin = (name: string) =>
  fileURLToPath(new URL(`../node_modules/@modelcontextprotocol/${name}/dist/index.js`, import.meta.url));

describe('sluice mcp over real MCP servers on stdio', () => {
  let sluice: SluiceProcess;
  let directory: string;

  beforeAll(async () => {
    directory = realpathSync(mkdtempSync(join(tmpdir(), 'sluice-mcp-real-')));
    sluice = await startSluice(
      {
        mcpServers: {
          filesystem: { command: process.execPath, args: [serverBin('server-filesystem'), '${SLUICE_E2E_DIR}'] },
          memory: {
            command: process.execPath,
            args: [serverBin('server-memory')],
            env: { MEMORY_FILE_PATH: '${SLUICE_E2E_DIR}/memory.jsonl' },
            pinned: true,
          },
          everything: {
            command: process.execPath,
            args: [everythingPath, 'stdio'],
            env: { SLUICE_E2E_MARK: 'mark-${SLUICE_E2E_SECRET}' },
          },
          retired: { command: 'a-command-that-does-not-exist', disabled: true },
        },
      },
      { env: { SLUICE_E2E_DIR: directory, SLUICE_E2E_SECRET: 'f00d' } },
    );
  });

  afterAll(async () => {
    await sluice?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('declares the tools of the enabled servers only', async () => {
    const { tools } = await sluice.client.listTools();
    const description = tools[0]!.description ?? '';
    expect(description).toContain('declare const filesystem');
    expect(description).toContain('declare const memory');
    expect(description).toContain('declare const everything');
    expect(description).not.toContain('retired');
  });

  it('fits the declarations in the default budget, with the pinned server declared in full', async () => {
    const { tools } = await sluice.client.listTools();
    const description = tools[0]!.description ?? '';
    const open = description.indexOf('Declarations:\n```ts\n') + 'Declarations:\n```ts\n'.length;
    const declarations = description.slice(open, description.lastIndexOf('\n```'));
    // 2 860 tokens at the pinned versions: 29 of 36 tools in full, 7 as summaries (see the changeset).
    expect(countTokens(declarations)).toBeLessThanOrEqual(defaultDeclarationsTokenBudget);
    const memory = declarations.slice(declarations.indexOf('declare const memory: {')).split('\n};')[0]!;
    const memoryTools = [
      'add_observations',
      'create_entities',
      'create_relations',
      'delete_entities',
      'delete_observations',
      'delete_relations',
      'open_nodes',
      'read_graph',
      'search_nodes',
    ];
    for (const name of memoryTools) expect(memory).toMatch(new RegExp(`\\n  ${name}\\(input`));
    expect(memory).not.toMatch(/\/\/ \w+: /);
  });

  it("shows server-everything's instructions as its namespace's guide, for programs too", async () => {
    const { tools } = await sluice.client.listTools();
    expect(tools[0]!.description).toContain('Everything Server – Server Instructions');
    const guide = (await runValue(sluice.client, `return await sluice.describeNamespace('everything');`)) as {
      instructions: string;
      tools: { name: string }[];
    };
    expect(guide.instructions).toContain('Everything Server – Server Instructions');
    expect(guide.tools.map((tool) => tool.name)).toContain('everything.get_sum');
  });

  it('runs one program over filesystem, memory and everything, with variables expanded', async () => {
    const value = (await runValue(
      sluice.client,
      `const path = await filesystem.list_allowed_directories({});
       await filesystem.write_file({ path: ${JSON.stringify(join(directory, 'note.txt'))}, content: 'written by a program' });
       const read = await filesystem.read_text_file({ path: ${JSON.stringify(join(directory, 'note.txt'))} });
       await memory.create_entities({ entities: [{ name: 'Sluice', entityType: 'project', observations: ['runs programs'] }] });
       const graph = await memory.read_graph({});
       const sum = await everything.get_sum({ a: 2, b: 3 });
       const env = await everything.get_env({});
       return { path, read, graph, sum, env };`,
    )) as Record<string, unknown>;
    expect(JSON.stringify(value.path)).toContain(directory);
    expect(JSON.stringify(value.read)).toContain('written by a program');
    expect(readFileSync(join(directory, 'note.txt'), 'utf8')).toBe('written by a program');
    expect(JSON.stringify(value.graph)).toContain('runs programs');
    expect(readFileSync(join(directory, 'memory.jsonl'), 'utf8')).toContain('Sluice');
    expect(JSON.stringify(value.sum)).toContain('is 5');
    expect(JSON.stringify(value.env)).toContain('mark-f00d');
  });
});

describe('sluice mcp over real MCP servers on HTTP', () => {
  let everything: HttpUpstream;
  let legacy: HttpUpstream;
  let spy: HttpUpstream;
  let sluice: SluiceProcess;

  beforeAll(async () => {
    [everything, legacy, spy] = await Promise.all([
      startEverything('streamableHttp'),
      startEverything('sse'),
      startSpyOverHttp(),
    ]);
    sluice = await startSluice(
      {
        mcpServers: {
          everything: { url: '${SLUICE_E2E_EVERYTHING}', headers: { 'X-Sluice-Test': 'yes' } },
          legacy: { type: 'sse', url: legacy.url },
          // No type: Streamable HTTP is tried first; this endpoint refuses it, so SSE is used.
          fallback: { url: legacy.url },
          spy: { type: 'http', url: spy.url, headers: { Authorization: 'Bearer ${SLUICE_E2E_TOKEN}' } },
        },
      },
      { env: { SLUICE_E2E_EVERYTHING: everything.url, SLUICE_E2E_TOKEN: 't0k3n' } },
    );
  });

  afterAll(async () => {
    await sluice?.close();
    await Promise.all([everything?.stop(), legacy?.stop(), spy?.stop()]);
  });

  it('reaches server-everything over Streamable HTTP and over SSE, falling back when no type is given', async () => {
    const value = (await runValue(
      sluice.client,
      `return [await everything.get_sum({ a: 20, b: 22 }), await legacy.echo({ message: 'over sse' }), await fallback.echo({ message: 'fell back' })];`,
    )) as unknown[];
    expect(JSON.stringify(value[0])).toContain('is 42');
    expect(JSON.stringify(value[1])).toContain('over sse');
    expect(JSON.stringify(value[2])).toContain('fell back');
    expect(sluice.stderr()).toMatch(/\[everything\] ready with \d+ tools over streamable-http/);
    expect(sluice.stderr()).toMatch(/\[legacy\] ready with \d+ tools over sse/);
    expect(sluice.stderr()).toMatch(/\[fallback\] ready with \d+ tools over sse/);
  });

  it('sends the configured headers, with variables expanded, on every request', async () => {
    const { headers } = (await runValue(sluice.client, 'return await spy.headers({});')) as {
      headers: Record<string, string>[];
    };
    expect(headers.length).toBeGreaterThan(1);
    for (const request of headers) expect(request.authorization).toBe('Bearer t0k3n');
  });

  it('sends no notifications/cancelled over HTTP for calls that completed', async () => {
    const value = await runValue(
      sluice.client,
      `await Promise.all(Array.from({ length: 12 }, (_, index) => spy.echo({ text: String(index) })));
       return (await spy.notifications({})).notifications.map((item) => item.method);`,
    );
    expect(value).toEqual(['notifications/initialized']);
  });
});
