import { InvalidRequestError } from '@sluice/code-runtime';
import { type ToolBindingName, type ToolBindingNameOptions, toolBindingNames } from '@sluice/permissions';
import { defineToolContent, type UntypedResults } from './declarations-tool-content.js';
import { schemaToType } from './schema-convert.js';
import { type JsonSchema, pascalCase, type TypeNode } from './schema-model.js';
import type { NameAllocator } from './schema-names.js';
import { DefinitionRegistry } from './schema-registry.js';

/**
 * What the declarations need of a tool: a `Tool` from `@sluice/permissions` fits, and so does any
 * object with these fields. Schemas are JSON Schema; a missing output schema declares `unknown`
 * (or `ToolContent`, see {@link UntypedResults}).
 */
export interface DeclaredTool extends ToolPlacement {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: JsonSchema;
  readonly outputSchema?: JsonSchema;
}

/**
 * Where a tool goes in the declarations, set by the host on a tool or on its namespace
 * ({@link NamespaceGuide}); a tool's own setting wins over its namespace's.
 */
export interface ToolPlacement {
  /** Always declared in full, whatever the budget. Default `false`. */
  readonly pinned?: boolean;
  /** Higher is declared in full first when the budget cannot hold every tool. Default 0. */
  readonly priority?: number;
  /**
   * Left out of the declarations until the model loads it (`sluice.searchTools`, `sluice.loadTools`,
   * or the host's search tool); it can be called all along. Default `false`.
   */
  readonly deferred?: boolean;
}

/**
 * What the host says about a namespace: a description and instructions for the model (an MCP
 * server's `instructions`), and the placement of its tools.
 */
export interface NamespaceGuide extends ToolPlacement {
  /** The namespace as programs write it (`github`), not a tool-name prefix. */
  readonly name: string;
  /** One or two sentences on what the namespace's tools are for. */
  readonly description?: string;
  /** How to use them: conventions, order of calls, pitfalls. Shown in the declarations, cut past 800 characters. */
  readonly instructions?: string;
}

/** One tool as the declarations show it: where the program calls it, what it says, its types. */
export interface DeclaredEntry {
  readonly toolName: string;
  readonly binding: ToolBindingName;
  /** `namespace.name`, as the program writes it. */
  readonly path: string;
  /** The description, trimmed. */
  readonly doc: string;
  /** One line: the description's first sentence, at most {@link summaryLength} characters. */
  readonly summary: string;
  readonly input: TypeNode;
  readonly output: TypeNode;
}

/** The longest one-line summary, in characters. */
export const summaryLength = 120;

/** The entries of a tool set, sorted by path, with the named types their schemas need. */
export interface DeclaredSet {
  readonly entries: readonly DeclaredEntry[];
  readonly definitions: ReadonlyMap<string, TypeNode>;
  /** The type names in use, to name more types without clashing. */
  readonly names: NameAllocator;
  /** Whether some entry resolves with `ToolContent`, so the declarations should say what that is. */
  readonly toolContent: boolean;
}

/** Builds the entries for `tools`, mapping names exactly as `@sluice/permissions` binds them. */
export function declareTools(
  tools: readonly DeclaredTool[],
  naming: ToolBindingNameOptions = {},
  untypedResults: UntypedResults = 'unknown',
): DeclaredSet {
  const registry = new DefinitionRegistry();
  // Named before any schema's types, so the names the note uses are the plain ones.
  const toolContent =
    untypedResults === 'tool-content' && tools.some((tool) => tool.outputSchema === undefined)
      ? defineToolContent(registry)
      : undefined;
  // As deriveBindings names them: two tools that map to one binding both stay, the second with a suffix.
  const bindings = toolBindingNames(
    tools.map((tool) => tool.name),
    naming,
  );
  const sorted = [...tools]
    .map((tool) => {
      const binding = bindings.get(tool.name)!;
      if (typeof binding === 'string') {
        throw new InvalidRequestError({ message: `Tool name ${JSON.stringify(tool.name)} ${binding}.`, field: 'name' });
      }
      return { tool, binding, path: `${binding.namespace}.${binding.name}` };
    })
    .sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  const entries = sorted.map(({ tool, binding, path }): DeclaredEntry => {
    const hint = pascalCase(binding.name);
    const description = (tool.description ?? '').trim();
    // The declarations say why the name has a suffix, and what the tool is really called.
    const renamed =
      binding.shared === undefined
        ? ''
        : `Tool ${JSON.stringify(tool.name)}, named ${binding.name} because ${binding.shared} is another tool.`;
    return {
      toolName: tool.name,
      binding,
      path,
      doc: renamed === '' ? description : description === '' ? renamed : `${description}\n\n${renamed}`,
      summary: oneLineSummary(description),
      input: schemaToType(tool.inputSchema, { hint: `${hint}Input`, registry }),
      output:
        toolContent !== undefined && tool.outputSchema === undefined
          ? toolContent
          : schemaToType(tool.outputSchema, { hint: `${hint}Output`, registry }),
    };
  });
  return { entries, definitions: registry.definitions, names: registry.names, toolContent: toolContent !== undefined };
}

/** The first sentence of `description` on one line, cut with `…` past {@link summaryLength} characters. */
export function oneLineSummary(description: string): string {
  const flat = description.replace(/\s+/g, ' ').trim();
  const sentence = /^.*?[.!?](?=\s|$)/.exec(flat)?.[0] ?? flat;
  if (sentence === '') return '(no description)';
  const characters = Array.from(sentence);
  return characters.length <= summaryLength
    ? sentence
    : `${characters
        .slice(0, summaryLength - 1)
        .join('')
        .trimEnd()}…`;
}
