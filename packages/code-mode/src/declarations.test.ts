import { execFileSync } from 'node:child_process';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { mcpCatalogue } from './__fixtures__/mcp-catalogue.js';
import { realisticTools } from './__fixtures__/realistic-tools.js';
import { unequalCatalogue } from './__fixtures__/unequal-catalogue.js';
import { countTokens, defaultDeclarationsTokenBudget, estimateTokens, generateDeclarations } from './declarations.js';
import type { DeclaredTool } from './declarations-entry.js';
import { LoadedTools } from './loaded-tools.js';

// Just the globals declarations use, so the compiler checks them without loading its whole lib.
const minimalLib = `
interface Array<T> { length: number; [index: number]: T }
interface Boolean {}
interface CallableFunction {}
interface Function {}
interface IArguments {}
interface NewableFunction {}
interface Number {}
interface Object {}
interface RegExp {}
interface String {}
interface Promise<T> { then(onfulfilled: (value: T) => void): void }
type Record<K extends keyof any, T> = { [P in K]: T };
`;

/** TypeScript's own diagnostics for `text` as a declaration file: syntax and types. */
function typescriptProblems(text: string): string[] {
  const files: Record<string, string> = { '/declarations.d.ts': text, '/lib.d.ts': minimalLib };
  const options: ts.CompilerOptions = { strict: true, noEmit: true, noLib: true, types: [] };
  const host = ts.createCompilerHost(options);
  host.readFile = (name) => files[name];
  host.fileExists = (name) => name in files;
  host.getSourceFile = (name, version) => {
    const source = files[name];
    return source === undefined ? undefined : ts.createSourceFile(name, source, version);
  };
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

/** Python's own parser on `text`; returns the error it prints, or '' when the stubs parse. */
/** Python's syntax errors in each of `texts`, one line each, from one `python3` (a start is seconds on a loaded machine). */
function pythonProblems(...texts: string[]): string {
  const check =
    'import ast, json, sys\nfor text in json.load(sys.stdin):\n    try:\n        ast.parse(text)\n    except SyntaxError as error:\n        print(error)';
  return execFileSync('python3', ['-c', check], { input: JSON.stringify(texts), encoding: 'utf8' }).trim();
}

function shuffled<T>(items: readonly T[]): T[] {
  return [...items].reverse().sort((_, __) => 0);
}

const everything = { tokenBudget: 1_000_000 };

const untypedTool = {
  name: 'content__fetch_page',
  description: 'A page as MCP content.',
  inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
};

describe('generateDeclarations', () => {
  it('declares a realistic tool set in TypeScript', async () => {
    const declarations = generateDeclarations(realisticTools, { language: 'typescript' });
    expect(declarations.mode).toBe('full');
    await expect(declarations.text).toMatchFileSnapshot('./__snapshots__/realistic.typescript.txt');
  });

  it('declares a realistic tool set as Python stubs', async () => {
    const declarations = generateDeclarations(realisticTools, { language: 'python' });
    expect(declarations.mode).toBe('full');
    await expect(declarations.text).toMatchFileSnapshot('./__snapshots__/realistic.python.txt');
  });

  it('declares a 150-tool MCP-like catalogue in full when the budget allows', async () => {
    const catalogue = mcpCatalogue();
    expect(catalogue).toHaveLength(150);
    const typescript = generateDeclarations(catalogue, { language: 'typescript', ...everything });
    const python = generateDeclarations(catalogue, { language: 'python', ...everything });
    await expect(typescript.text).toMatchFileSnapshot('./__snapshots__/catalogue.typescript.txt');
    await expect(python.text).toMatchFileSnapshot('./__snapshots__/catalogue.python.txt');
  });

  it('fills the default 3 000-token budget by priority: pinned in full, then summaries, the rest counted', async () => {
    const pinned = mcpCatalogue().map((tool) =>
      tool.name === 'mcp__github__create_issue' ? { ...tool, pinned: true } : tool,
    );
    const typescript = generateDeclarations(pinned, { language: 'typescript' });
    const python = generateDeclarations(pinned, { language: 'python' });
    for (const declarations of [typescript, python]) {
      expect(declarations.mode).toBe('partial');
      expect(declarations.estimatedTokens).toBeLessThanOrEqual(3_000);
      expect(declarations.inlined).toContain('github.create_issue');
      expect(declarations.inlined.length).toBeGreaterThan(5);
      expect(declarations.summarized.length).toBeGreaterThan(50);
      expect(declarations.inlined.length + declarations.summarized.length + declarations.counted.length).toBe(150);
    }
    expect(typescript.text).toContain('  create_issue(input: {');
    expect(python.text).toContain('    async def create_issue(');
    await expect(typescript.text).toMatchFileSnapshot('./__snapshots__/catalogue-summary.typescript.txt');
    await expect(python.text).toMatchFileSnapshot('./__snapshots__/catalogue-summary.python.txt');
  });

  // The measurement of docs/decisions/2026-12-02-declarations-fair-share.md: one 220-tool server
  // beside two small ones. Filled alphabetically by namespace, the small ones were only counted.
  it.each([
    ['typescript', { backoffice: [13, 117, 90], filesystem: [12, 2, 0], memory: [9, 0, 0] }],
    ['python', { backoffice: [10, 112, 98], filesystem: [10, 4, 0], memory: [9, 0, 0] }],
  ] as const)(
    "shares the budget between unequal servers in %s: every small one shown before the large one's tail",
    (language, expected) => {
      const tools = unequalCatalogue();
      expect(tools).toHaveLength(243);
      const declarations = generateDeclarations(tools, { language });
      const count = (paths: readonly string[], namespace: string) =>
        paths.filter((path) => path.startsWith(`${namespace}.`)).length;
      const shares = Object.fromEntries(
        ['backoffice', 'filesystem', 'memory'].map((namespace) => [
          namespace,
          [
            count(declarations.inlined, namespace),
            count(declarations.summarized, namespace),
            count(declarations.counted, namespace),
          ],
        ]),
      );
      console.log(
        `unequal servers, ${language}: ${declarations.estimatedTokens} tokens, [full, summarised, counted]`,
        shares,
      );
      expect(declarations.estimatedTokens).toBeLessThanOrEqual(defaultDeclarationsTokenBudget);
      expect(shares).toEqual(expected);
      // A pinned or higher-priority tool still comes first, whatever its namespace's turn.
      const favoured = generateDeclarations(
        tools.map((tool) => (tool.name === 'mcp__backoffice__update_warehouse' ? { ...tool, priority: 1 } : tool)),
        { language },
      );
      expect(favoured.inlined).toContain('backoffice.update_warehouse');
    },
  );

  it('declares higher-priority tools in full before others', () => {
    const tools = mcpCatalogue().map((tool) =>
      tool.name.startsWith('mcp__slack__') ? { ...tool, priority: 5 } : tool,
    );
    const declarations = generateDeclarations(tools, { language: 'typescript' });
    expect(declarations.inlined.every((path) => path.startsWith('slack.'))).toBe(true);
    expect(declarations.inlined.length).toBeGreaterThan(3);
  });

  it('shows namespace descriptions and instructions, and leaves deferred tools out until loaded', () => {
    const namespaces = [
      { name: 'github', description: 'GitHub issues and pull requests.', instructions: 'Pass owner and repo.' },
      { name: 'slack', deferred: true },
    ];
    const tools = mcpCatalogue()
      .filter((tool) => /__(github|slack)__/.test(tool.name))
      .slice(0, 40);
    for (const language of ['typescript', 'python'] as const) {
      const declarations = generateDeclarations(tools, { language, namespaces, ...everything });
      expect(declarations.text).toContain('GitHub issues and pull requests.');
      expect(declarations.text).toContain('Pass owner and repo.');
      expect(declarations.text).not.toMatch(/slack/);
      expect(declarations.deferred.length).toBeGreaterThan(0);
      expect(declarations.text).toContain(`${declarations.deferred.length} more tools are loaded on demand`);
      const loaded = new LoadedTools({ paths: [declarations.deferred[0]!] });
      const next = generateDeclarations(tools, { language, namespaces, loaded, ...everything });
      expect(next.text).toContain(
        `class slack:`.replace('class slack:', language === 'python' ? 'class slack:' : 'declare const slack:'),
      );
      expect(next.deferred).toHaveLength(declarations.deferred.length - 1);
    }
  });

  it('declares a shape that several tools share once, by name, with no per-tool name comments', () => {
    const entity = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        entityType: { type: 'string' },
        observations: { type: 'array', items: { type: 'string' } },
      },
      required: ['name', 'entityType', 'observations'],
    };
    const tools: DeclaredTool[] = ['create_entities', 'delete_entities', 'update_entities'].map((name) => ({
      name: `memory__${name}`,
      description: `${name} in the graph.`,
      inputSchema: {
        type: 'object',
        properties: { entities: { type: 'array', items: entity } },
        required: ['entities'],
      },
      outputSchema: { type: 'object', properties: { entities: { type: 'array', items: entity } } },
    }));
    const typescript = generateDeclarations(tools, { language: 'typescript' }).text;
    expect(typescript.match(/entityType: string/g)).toHaveLength(1);
    expect(typescript).toContain('type Entity = {');
    expect(typescript).toContain('entities: Entity[];');
    expect(typescript).not.toContain('Tool name:');
    const python = generateDeclarations(tools, { language: 'python' }).text;
    expect(python.match(/entityType: str/g)).toHaveLength(1);
    expect(python).toContain('class Entity(TypedDict):');
    expect(python).toContain('entities: list[Entity]');
    expect(pythonProblems(python)).toBe('');
    expect(typescriptProblems(typescript)).toEqual([]);
  });

  it('writes TypeScript that the TypeScript compiler accepts', () => {
    for (const tools of [realisticTools, mcpCatalogue()]) {
      expect(typescriptProblems(generateDeclarations(tools, { language: 'typescript', ...everything }).text)).toEqual(
        [],
      );
      expect(typescriptProblems(generateDeclarations(tools, { language: 'typescript' }).text)).toEqual([]);
      const content = generateDeclarations([...tools, untypedTool], {
        language: 'typescript',
        ...everything,
        untypedResults: 'tool-content',
      });
      expect(content.text).toContain('Promise<ToolContent>');
      expect(typescriptProblems(content.text)).toEqual([]);
    }
  });

  it('writes Python stubs that Python parses', () => {
    const stubs: string[] = [];
    for (const tools of [realisticTools, mcpCatalogue()]) {
      stubs.push(generateDeclarations(tools, { language: 'python', ...everything }).text);
      stubs.push(generateDeclarations(tools, { language: 'python' }).text);
      const content = generateDeclarations([...tools, untypedTool], {
        language: 'python',
        ...everything,
        untypedResults: 'tool-content',
      });
      expect(content.text).toContain('-> ToolContent:');
      stubs.push(content.text);
    }
    expect(pythonProblems(...stubs)).toBe('');
  });

  it('gives byte-identical text for the same tools in any order', () => {
    for (const language of ['typescript', 'python'] as const) {
      for (const tools of [realisticTools, mcpCatalogue()]) {
        const first = generateDeclarations(tools, { language, ...everything }).text;
        const reordered = generateDeclarations(shuffled(tools).reverse(), { language, ...everything }).text;
        expect(reordered).toBe(first);
      }
    }
  });

  it('counts tools under their namespace when even the summaries are over budget', () => {
    const tight = generateDeclarations(mcpCatalogue(), { language: 'typescript', tokenBudget: 700 });
    expect(tight.mode).toBe('partial');
    expect(tight.counted.length).toBeGreaterThan(100);
    expect(tight.text).toContain('declare const github: {');
    expect(tight.text).toMatch(/more: await sluice\.searchTools\("words", \{ namespace: "github" \}\)/);
    expect(tight.estimatedTokens).toBeLessThanOrEqual(700);
  });

  it('counts declaration tokens with a real tokenizer (o200k_base)', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    const text = generateDeclarations(realisticTools, { language: 'typescript' });
    expect(text.estimatedTokens).toBe(countTokens(text.text));
  });

  it('keeps the rough estimate for results: UTF-8 bytes divided by four', () => {
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('éé')).toBe(1);
  });

  it('refuses a tool in the reserved sluice namespace', () => {
    const tool: DeclaredTool = { name: 'sluice.search', description: 'x', inputSchema: {} };
    expect(() => generateDeclarations([tool], { language: 'typescript' })).toThrow(/reserved for tool discovery/);
  });

  it('declares both of two tools that bind to the same name, the second with a suffix it explains', () => {
    const tools: DeclaredTool[] = [
      { name: 'get-weather', description: 'Weather, dashed.', inputSchema: {} },
      { name: 'get_weather', description: 'Weather.', inputSchema: {} },
    ];
    const typescript = generateDeclarations(tools, { language: 'typescript' });
    expect(typescript.paths).toEqual(['tools.get_weather', 'tools.get_weather_2']);
    expect(typescript.text).toContain(
      '  /**\n   * Weather, dashed.\n   *\n   * Tool "get-weather", named get_weather_2 because tools.get_weather is another tool.\n   */\n  get_weather_2(',
    );
    const python = generateDeclarations([...tools].reverse(), { language: 'python' });
    expect(python.text).toContain('async def get_weather_2(');
    expect(python.text).toContain('Tool "get-weather", named get_weather_2 because tools.get_weather is another tool.');
    expect(typescript.discovery.describe('get-weather')).toContain('get_weather_2(');
  });

  it('follows the naming options, as permissions does', () => {
    const tools: DeclaredTool[] = [{ name: 'github__create_issue', description: 'Create.', inputSchema: {} }];
    const split = generateDeclarations(tools, { language: 'typescript' }).text;
    const flat = generateDeclarations(tools, { language: 'typescript', naming: { splitNamespaces: false } }).text;
    expect(split).toContain('declare const github: {\n  /** Create. */');
    expect(split).toContain('create_issue(input?: unknown)');
    expect(flat).toContain('declare const tools: {');
    expect(flat).toContain('github__create_issue(input?: unknown)');
  });
});
