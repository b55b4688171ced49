import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@sluice/permissions';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from './cli-io.js';
import { collectTools, loadToolsModule } from './cli-tools-module.js';

const directory = mkdtempSync(join(tmpdir(), 'sluice-cli-tools-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function file(name: string, text: string): string {
  writeFileSync(join(directory, name), text);
  return name;
}

const context = { signal: new AbortController().signal, runId: 'run_1', callId: 'c1' };

async function refusal(path: string): Promise<string> {
  try {
    await loadToolsModule(path, directory);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`expected ${path} to be refused`);
}

describe('loadToolsModule', () => {
  it('refuses a module that throws a Proxy whose every trap throws, as a usage error instead of crashing', async () => {
    const path = file(
      'hostile.mjs',
      `const trap = () => { throw new Error('trap'); };
throw new Proxy({}, { get: trap, getPrototypeOf: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, has: trap });`,
    );
    expect(await refusal(path)).toBe(`The tools module ${path} failed to load: a value that could not be read`);
  });

  it('loads a TypeScript module with type annotations, compiled on the fly', async () => {
    const path = file(
      'tools.ts',
      `interface Input { a: number; b: number }
export const tools = [
  { name: 'math.add', description: 'Add.', inputSchema: { type: 'object' }, execute: async (input: Input) => input.a + input.b },
];`,
    );
    const [tool] = await loadToolsModule(path, directory);
    expect(tool?.name).toBe('math.add');
    expect(await tool?.execute({ a: 2, b: 3 }, context)).toBe(5);
  });

  it('loads a JavaScript module whose default export is an array of tools', async () => {
    const path = file(
      'tools.mjs',
      "export default [{ name: 'echo', execute: async (input) => input }, { name: 'ping', execute: () => 'pong' }];",
    );
    const tools = await loadToolsModule(path, directory);
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'ping']);
    expect(tools[0]).toMatchObject({ description: '', inputSchema: {} });
  });

  it('turns exported async functions into tools when no tool objects are exported', async () => {
    const path = file('functions.mjs', "export async function greet(input) { return 'hi ' + input.name; }");
    const [tool] = await loadToolsModule(path, directory);
    expect(tool?.name).toBe('greet');
    expect(await tool?.execute({ name: 'Ada' }, context)).toBe('hi Ada');
  });

  it('says in one sentence when the module is missing, not a module, broken or empty of tools', async () => {
    expect(await refusal('missing.ts')).toBe('The tools module missing.ts does not exist.');
    expect(await refusal(file('tools.json', '[]'))).toBe(
      'The tools module tools.json must be a .ts or .js file, got .json.',
    );
    expect(await refusal(file('broken.ts', 'export const = ;'))).toMatch(
      /^The tools module broken\.ts failed to load: /,
    );
    expect(await refusal(file('throws.mjs', "throw new Error('no database');"))).toBe(
      'The tools module throws.mjs failed to load: no database',
    );
    expect(await refusal(file('nothing.mjs', 'export const answer = 42;'))).toMatch(
      /^The tools module nothing\.mjs exports no tools; /,
    );
    expect(
      await refusal(
        file('bad-array.mjs', "export const tools = [{ name: 'ok', execute() {} }, { name: 'no execute' }];"),
      ),
    ).toBe(
      'The tools module bad-array.mjs exports tools[1], which is not a tool: it needs a string name and an execute function.',
    );
  });
});

describe('collectTools', () => {
  const tool = (name: string): Tool => ({ name, description: name, inputSchema: {}, execute: () => name });

  it('prefers an exported array over everything else', () => {
    const namespace = { tools: [tool('a')], other: tool('b'), helper: () => 1 };
    expect(collectTools(namespace).map((found) => found.name)).toEqual(['a']);
  });

  it('gathers named tool objects and the members of a default object, each name once', () => {
    const shared = tool('shared');
    const namespace = { shared, default: { shared, extra: tool('extra') }, helper: () => 1 };
    expect(collectTools(namespace).map((found) => found.name)).toEqual(['shared', 'extra']);
  });
});
