import type { CodeRuntime, JsonValue } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import type { Tool } from '@sluice/permissions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unequalCatalogue } from './__fixtures__/unequal-catalogue.js';
import type { DeclaredTool } from './declarations-entry.js';
import { createRunCodeTool } from './run-code-tool.js';

// Names as a model meets them, through createRunCodeTool on every provider (issue 27, item 4).
const echo = (tool: DeclaredTool): Tool => ({
  name: tool.name,
  description: tool.description ?? '',
  inputSchema: (tool.inputSchema ?? { type: 'object' }) as Tool['inputSchema'],
  execute: (input) => ({ tool: tool.name, input }),
});
const catalogue = unequalCatalogue().map(echo);

const reserved = ['delete', 'class', 'import', 'new'].map((name) => ({
  ...echo({ name: `lab__${name}`, description: `The ${name} tool.` }),
  inputSchema: { type: 'object', properties: {} },
}));

interface Programs {
  readonly unknownTool: string;
  /** Calls lab.delete, lab.class, lab.import, lab.new as the language allows, then the old lab.delete_. */
  readonly reserved: string;
}

const typescriptReserved =
  'return [await lab.delete(), await lab.class(), await lab.import(), await lab.new(), await lab.delete_()].map((result) => result.tool);';

const providers: [string, () => CodeRuntime, Programs][] = [
  [
    'worker-thread',
    () => createWorkerThreadCodeRuntime({ wallTimeMs: 20_000 }),
    {
      unknownTool: "try { await filesystem.read_fil({ path: '/x' }); } catch (error) { return error.message; }",
      reserved: typescriptReserved,
    },
  ],
  [
    'quickjs',
    () => createQuickJsCodeRuntime({ wallTimeMs: 20_000 }),
    {
      unknownTool: "try { await filesystem.read_fil({ path: '/x' }); } catch (error) { return error.message; }",
      reserved: typescriptReserved,
    },
  ],
  [
    'python',
    () => createPythonCodeRuntime({ wallTimeMs: 20_000 }),
    {
      unknownTool:
        'try:\n    await filesystem.read_fil(path="/x")\nexcept AttributeError as error:\n    return str(error)',
      // `lab.class` and `lab.import` are SyntaxErrors in Python: their `_` names, or getattr.
      reserved:
        'results = [await lab.delete(), await lab.class_(), await getattr(lab, "import")(), await lab.new(), await lab.delete_()]\nreturn [result["tool"] for result in results]',
    },
  ],
];

describe.each(providers)('names through run_code on the %s provider', (_name, create, programs) => {
  const runtime = create();
  afterAll(() => runtime.dispose());
  const runCode = (tools: readonly Tool[]) =>
    createRunCodeTool({ context: { codeRuntime: runtime }, tools, policy: { default: 'allow', rules: [] } });
  // The substrate's start and the tokenizer's first load are not what these cases measure: both
  // happen here, so a case's 5 s is its own run (on a loaded machine either takes seconds).
  beforeAll(async () => {
    await runtime.ready?.();
    const warm = runCode(catalogue);
    void warm.description;
    await warm.close();
  }, 60_000);
  const value = async (tools: readonly Tool[], program: string): Promise<JsonValue | undefined> => {
    const tool = runCode(tools);
    try {
      const { result } = await tool.run({ code: program });
      expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
      return result?.ok ? result.value : undefined;
    } finally {
      await tool.close();
    }
  };

  it('names the closest tools and how to search for an unknown tool of a 243-tool catalogue, not all of them', async () => {
    const message = (await value(catalogue, programs.unknownTool)) as string;
    expect(message).toContain('read_file');
    expect(message).toMatch(/search_?[tT]ools\("words"/);
    expect(message).not.toContain('backoffice.');
    expect(message.length).toBeLessThan(500);
  });

  it('calls a tool named by a reserved word by its own name where the language allows it, and by the old _ name', async () => {
    const tool = runCode(reserved);
    try {
      const { result, rendered } = await tool.run({ code: programs.reserved });
      expect(result, rendered.text).toMatchObject({
        ok: true,
        value: ['lab__delete', 'lab__class', 'lab__import', 'lab__new', 'lab__delete'],
      });
      const declared = tool.declarations.text;
      if (runtime.language === 'python') {
        expect(declared).toContain('async def delete(');
        expect(declared).toContain('async def class_(');
        expect(declared).toContain('Named class_: `lab.class` is a SyntaxError, "class" being a Python keyword.');
      } else {
        expect(declared).toContain('  delete(input?: {');
        expect(declared).toContain('  class(input?: {');
      }
    } finally {
      await tool.close();
    }
  });
});
