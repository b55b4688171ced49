import type { HostCallContext, JsonValue } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { mcpCatalogue } from './__fixtures__/mcp-catalogue.js';
import { realisticTools } from './__fixtures__/realistic-tools.js';
import { generateDeclarations } from './declarations.js';
import { ToolDiscovery } from './tool-discovery.js';

const context: HostCallContext = { runId: 'run_test', callId: 'c1', signal: new AbortController().signal };

function call(discovery: ToolDiscovery, name: 'searchTools' | 'describeTool', input: JsonValue): Promise<JsonValue> {
  return Promise.resolve(discovery.bindings.sluice![name]!(input, context));
}

describe('ToolDiscovery', () => {
  const catalogue = new ToolDiscovery(mcpCatalogue(), 'typescript');

  it('ranks tools whose names contain the words above tools that only mention them', () => {
    const hits = catalogue.search('create issue github');
    expect(hits[0]).toEqual({ name: 'github.create_issue', summary: 'Create issues in github.' });
    expect(hits.length).toBeLessThanOrEqual(10);
  });

  it('matches a word by the start of a name word', () => {
    expect(catalogue.search('bookm').map((hit) => hit.name)).toContain('browser.get_bookmark');
  });

  it('lists tools by name for an empty query, and caps the count', () => {
    const hits = catalogue.search('', 100);
    expect(hits).toHaveLength(25);
    expect(hits[0]!.name).toBe('browser.create_bookmark');
    expect(catalogue.search('nothing-like-this-exists')).toEqual([]);
  });

  it('describes one tool by path, by tool name, and by a unique bare name', () => {
    const byPath = catalogue.describe('postgres.query_table');
    expect(byPath).toContain('declare const postgres: {');
    expect(byPath).toContain('query_table(input: {');
    expect(byPath).toContain('type JsonValue =');
    expect(catalogue.describe('mcp__postgres__query_table')).toBe(byPath);
    expect(catalogue.describe('query_table')).toBe(byPath);
    expect(catalogue.describe('postgres.nope')).toBeUndefined();
  });

  it('describes in Python for a Python runtime, without repeating the preamble', () => {
    const python = new ToolDiscovery(realisticTools, 'python').describe('weather.forecast');
    expect(python).toContain('class weather:');
    expect(python).toContain('async def forecast(*, city: str');
    expect(python).not.toContain('from typing import');
  });

  it('serves searchTools and describeTool to programs, with a string or an object argument', async () => {
    expect(await call(catalogue, 'searchTools', 'slack message')).toEqual(catalogue.search('slack message'));
    expect(await call(catalogue, 'searchTools', { query: 'slack message', limit: 2 })).toHaveLength(2);
    expect(await call(catalogue, 'describeTool', { name: 'slack.get_user' })).toContain('get_user(');
  });

  it('names the namespaces when searchTools is narrowed to one that does not exist', async () => {
    await expect(call(catalogue, 'searchTools', { query: 'issue', namespace: 'gitlab' })).rejects.toThrow(
      /^sluice\.searchTools: no namespace is named "gitlab"\. Namespaces: [a-z_]+, .*github.*\. Leave `namespace` out to search them all\.$/,
    );
    expect(catalogue.unknownNamespace('github', 'search_tools')).toBeUndefined();
  });

  it('answers an unknown tool with close matches, as an error the program can read', async () => {
    await expect(call(catalogue, 'describeTool', 'slack.get_users')).rejects.toThrow(
      /No tool is named "slack\.get_users"\. Close matches: slack\.get_user/,
    );
    await expect(call(catalogue, 'searchTools', 42)).rejects.toThrow(/takes one string/);
  });

  it('hands back well-formed text when a tool’s descriptions hold half of a surrogate pair', () => {
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    const half = '🚀'.slice(0, 1);
    const tool = {
      name: 'launch.schedule',
      description: `Schedule a launch ${half}.`,
      inputSchema: { type: 'object', properties: { when: { type: 'string', description: `ISO time ${half}` } } },
      execute: () => null,
    };
    for (const language of ['typescript', 'python'] as const) {
      const discovery = new ToolDiscovery([tool], language);
      expect(discovery.search('launch')).toEqual([{ name: 'launch.schedule', summary: 'Schedule a launch \uFFFD.' }]);
      const declaration = discovery.describe('launch.schedule')!;
      expect(declaration).toContain('ISO time \uFFFD');
      expect(declaration).not.toMatch(lone);
      const declarations = generateDeclarations([tool], { language });
      expect(declarations.text).toContain('Schedule a launch \uFFFD.');
      expect(declarations.text).not.toMatch(lone);
    }
  });
});
