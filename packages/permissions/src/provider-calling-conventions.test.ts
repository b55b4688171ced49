import type { CodeRuntime, JsonValue } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { afterAll, describe, expect, it } from 'vitest';
import { deriveBindings } from './derive-bindings.js';
import type { Tool } from './tool.js';

const received: JsonValue[] = [];
const tools: Tool[] = [
  {
    name: 'search',
    description: 'Searches.',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer' } },
      required: ['query'],
    },
    execute: (input) => {
      received.push(input);
      return { hits: [(input as { query: string }).query] };
    },
  },
  {
    name: 'add',
    description: 'Adds.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    execute: (input) => {
      const { a, b } = input as { a: number; b: number };
      return a + b;
    },
  },
  {
    name: 'list_customers',
    description: 'Lists customers.',
    inputSchema: { type: 'object', properties: { limit: { type: 'integer' } }, additionalProperties: false },
    execute: (input) => {
      received.push(input);
      return ['ada', 'grace'];
    },
  },
];
const bindings = deriveBindings(tools, { default: 'allow', rules: [] });

const providers: Array<[string, () => CodeRuntime, Record<string, string>]> = [
  [
    'worker-thread',
    () => createWorkerThreadCodeRuntime({}),
    {
      positional: "return [await tools.search('oslo'), await tools.add(5, 3), await search('bare')];",
      notGranted: 'try { await tools.nope(1); } catch (error) { return error.message; }',
      noArgument: 'return [await tools.list_customers(), await list_customers()];',
    },
  ],
  [
    'quickjs',
    () => createQuickJsCodeRuntime({}),
    {
      positional: "return [await tools.search('oslo'), await tools.add(5, 3), await search('bare')];",
      notGranted: 'try { await tools.nope(1); } catch (error) { return error.message; }',
      noArgument: 'return [await tools.list_customers(), await list_customers()];',
    },
  ],
  [
    'python',
    () => createPythonCodeRuntime({}),
    {
      positional:
        'return [await tools.search("oslo"), await tools.add(5, 3), await search("bare"), await tools.search("k", limit=2)]',
      notGranted: 'try:\n    await tools.nope(1)\nexcept AttributeError as error:\n    return str(error)',
      noArgument: 'return [await tools.list_customers(), await list_customers()]',
    },
  ],
];

describe.each(providers)('positional calls of derived bindings with the %s provider', (_name, create, programs) => {
  const runtime = create();
  afterAll(() => runtime.dispose());

  it('maps positional arguments by the schema, and calls a unique bare name', async () => {
    received.length = 0;
    const result = await runtime.run({ program: programs.positional!, bindings });
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && (result.value as JsonValue[]).slice(0, 3)).toEqual([{ hits: ['oslo'] }, 8, { hits: ['bare'] }]);
    expect(received.slice(0, 2)).toEqual([{ query: 'oslo' }, { query: 'bare' }]);
    if (runtime.language === 'python') expect(received[2]).toEqual({ limit: 2, query: 'k' });
  });

  it('refuses a name that is not granted, saying what is available', async () => {
    const result = await runtime.run({ program: programs.notGranted!, bindings });
    expect(result.ok && result.value).toMatch(/nope.*(tools\.)?add, (tools\.)?list_customers, (tools\.)?search/);
    // TypeScript sends the call to the host, which refuses and records it; Python refuses it in the program.
    if (runtime.language === 'typescript') expect(result.calls).toMatchObject([{ name: 'nope', ok: false }]);
  });

  it('calls a tool whose input has no required property with no argument, as {}', async () => {
    received.length = 0;
    const result = await runtime.run({ program: programs.noArgument!, bindings });
    expect(result).toMatchObject({
      ok: true,
      value: [
        ['ada', 'grace'],
        ['ada', 'grace'],
      ],
    });
    expect(received).toEqual([{}, {}]);
  });
});
