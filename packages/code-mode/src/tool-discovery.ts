import {
  type Bindings,
  type CodeRuntimeLanguage,
  type HostCallContext,
  type JsonValue,
  wellFormedText,
} from '@sluice/code-runtime';
import type { ToolBindingNameOptions } from '@sluice/permissions';
import { type CatalogEntry, DeclaredCatalog, discoveryNamespace } from './declarations-catalog.js';
import type { DeclaredTool, NamespaceGuide } from './declarations-entry.js';
import type { UntypedResults } from './declarations-tool-content.js';
import { LoadedTools } from './loaded-tools.js';
import { maxSearchResults, ToolSearchIndex, type ToolSearchOptions } from './tool-search.js';

export { discoveryNamespace, maxSearchResults };

/** The most namespaces an unknown-namespace message names. */
export const maxNamespacesNamed = 30;

/** One search hit: the path the program calls, and the tool's one-line summary. */
export interface ToolSearchHit {
  readonly name: string;
  readonly summary: string;
  /** Present when the tool is deferred: `true` once it is loaded (a search through the bindings loads it). */
  readonly loaded?: boolean;
}

/** What `describeNamespace` answers. */
export interface NamespaceDescription {
  readonly name: string;
  readonly description: string;
  readonly instructions: string;
  readonly tools: readonly ToolSearchHit[];
}

/** Options for {@link ToolDiscovery}. */
export interface ToolDiscoveryOptions {
  readonly untypedResults?: UntypedResults;
  readonly namespaces?: readonly NamespaceGuide[];
  /** The conversation's loaded deferred tools; loading adds to it. Default: a set of its own. */
  readonly loaded?: LoadedTools;
}

/**
 * Tool lookup for programs and hosts: full-text search (see {@link ToolSearchIndex}), the full
 * declaration of one tool, a namespace's guide and tools, and loading deferred tools.
 * {@link bindings} gives a run `sluice.searchTools`, `describeTool`, `describeNamespace` and `loadTools`.
 */
export class ToolDiscovery {
  readonly catalog: DeclaredCatalog;
  readonly loaded: LoadedTools;
  #index: ToolSearchIndex | undefined;

  constructor(
    tools: readonly DeclaredTool[] | DeclaredCatalog,
    language: CodeRuntimeLanguage,
    naming: ToolBindingNameOptions = {},
    options: ToolDiscoveryOptions = {},
  ) {
    this.catalog =
      tools instanceof DeclaredCatalog
        ? tools
        : new DeclaredCatalog(tools, {
            language,
            naming,
            ...(options.untypedResults === undefined ? {} : { untypedResults: options.untypedResults }),
            ...(options.namespaces === undefined ? {} : { namespaces: options.namespaces }),
          });
    this.loaded = options.loaded ?? new LoadedTools();
  }

  /**
   * Tools matching the words of `query`, best first: BM25 over names, namespaces, descriptions and
   * parameters, with prefixes and small typos; ties by name. An empty query lists tools by name.
   * `options` is a limit (1 to {@link maxSearchResults}, default 10) or `{ namespace, limit }`.
   */
  search(query: string, options: number | ToolSearchOptions = {}): ToolSearchHit[] {
    this.#index ??= new ToolSearchIndex(this.catalog.entries);
    const settings = typeof options === 'number' ? { limit: options } : options;
    return this.#index.search(query, settings).map((entry) => this.#hit(entry));
  }

  /** Like {@link search}, and loads the deferred tools it finds for the rest of the conversation. */
  searchAndLoad(query: string, options: number | ToolSearchOptions = {}): ToolSearchHit[] {
    const hits = this.search(query, options);
    this.loaded.add(hits.filter((hit) => hit.loaded === false).map((hit) => hit.name));
    return hits.map((hit) => (hit.loaded === false ? { ...hit, loaded: true } : hit));
  }

  /**
   * The full declaration of one tool in the runtime's language, by `namespace.name`, by the tool's
   * own name, or by its bare binding name when only one tool has it; `undefined` when none matches.
   */
  describe(name: string): string | undefined {
    const entry = this.catalog.entry(name);
    return entry === undefined ? undefined : wellFormedText(this.catalog.describe(entry));
  }

  /**
   * Why `namespace` cannot narrow a search, naming the known namespaces (the first
   * {@link maxNamespacesNamed}), or `undefined` when it is one; `where` is how the caller names the
   * search (`sluice.searchTools`, `search_tools`) in the message.
   */
  unknownNamespace(namespace: string, where: string): string | undefined {
    if (this.catalog.namespaces.has(namespace)) return undefined;
    const known = [...this.catalog.namespaces.keys()];
    const shown =
      known.length <= maxNamespacesNamed
        ? known.join(', ')
        : `${known.slice(0, maxNamespacesNamed).join(', ')} and ${known.length - maxNamespacesNamed} more`;
    return wellFormedText(
      `${where}: no namespace is named ${JSON.stringify(namespace)}. Namespaces: ${shown || '(none)'}. Leave \`namespace\` out to search them all.`,
    );
  }

  /** A namespace's description, instructions and tools; `undefined` for an unknown namespace. */
  describeNamespace(name: string): NamespaceDescription | undefined {
    const namespace = this.catalog.namespaces.get(name);
    if (namespace === undefined) return undefined;
    return {
      name,
      description: wellFormedText(namespace.description),
      instructions: wellFormedText(namespace.instructions),
      tools: namespace.entries.map((entry) => this.#hit(entry)),
    };
  }

  /**
   * Loads deferred tools by name for the rest of the conversation. Returns the declarations of the
   * named tools (loaded now, before, or never deferred) and the names no tool has.
   */
  load(names: readonly string[]): { readonly text: string; readonly unknown: readonly string[] } {
    const entries: CatalogEntry[] = [];
    const unknown: string[] = [];
    for (const name of names) {
      const entry = this.catalog.entry(name);
      if (entry === undefined) unknown.push(name);
      else if (!entries.includes(entry)) entries.push(entry);
    }
    this.loaded.add(entries.filter((entry) => entry.deferred).map((entry) => entry.path));
    return { text: wellFormedText(entries.map((entry) => this.catalog.describe(entry)).join('\n')), unknown };
  }

  /**
   * `{ sluice: { searchTools, describeTool, describeNamespace, loadTools } }`, to merge into a run's
   * bindings; for Python each also under its snake_case name (`search_tools`, …).
   */
  get bindings(): Bindings {
    const example = JSON.stringify(this.catalog.entries[0]?.path ?? 'tools.search');
    const namespaceExample = JSON.stringify(this.catalog.entries[0]?.binding.namespace ?? 'tools');
    const bindings: Bindings = {
      [discoveryNamespace]: {
        searchTools: async (input: JsonValue, context?: HostCallContext) => {
          const { text, options } = readArguments(input, context, 'query', 'searchTools', '"open issues"');
          const unknown =
            options.namespace === undefined
              ? undefined
              : this.unknownNamespace(options.namespace, 'sluice.searchTools');
          if (unknown !== undefined) throw new Error(unknown);
          return this.searchAndLoad(text, options) as unknown as JsonValue;
        },
        describeTool: async (input: JsonValue, context?: HostCallContext) => {
          const { text } = readArguments(input, context, 'name', 'describeTool', example);
          const declaration = this.describe(text);
          if (declaration !== undefined) return declaration;
          throw new Error(
            `No tool is named ${JSON.stringify(text)}.${this.#near(text)} Use sluice.searchTools to find tools.`,
          );
        },
        describeNamespace: async (input: JsonValue, context?: HostCallContext) => {
          const { text } = readArguments(input, context, 'name', 'describeNamespace', namespaceExample);
          const described = this.describeNamespace(text);
          if (described !== undefined) return described as unknown as JsonValue;
          const known = [...this.catalog.namespaces.keys()];
          throw new Error(`No namespace is named ${JSON.stringify(text)}. Namespaces: ${known.join(', ')}.`);
        },
        loadTools: async (input: JsonValue, context?: HostCallContext) => {
          const names = readNames(input, context);
          const { text, unknown } = this.load(names);
          if (unknown.length > 0) {
            throw new Error(
              `No tool is named ${unknown.map((name) => JSON.stringify(name)).join(', ')}.${this.#near(unknown[0]!)} Nothing was loaded.`,
            );
          }
          return text;
        },
      },
    };
    return this.catalog.language === 'python' ? withSnakeCaseNames(bindings) : bindings;
  }

  #hit(entry: CatalogEntry): ToolSearchHit {
    const hit = { name: entry.path, summary: wellFormedText(entry.summary) };
    return entry.deferred ? { ...hit, loaded: this.loaded.has(entry.path) } : hit;
  }

  #near(text: string): string {
    const near = this.search(text, 5).map((hit) => hit.name);
    return near.length > 0 ? ` Close matches: ${near.join(', ')}.` : '';
  }
}

/** Each function also under its snake_case name (`searchTools` → `search_tools`), as Python programs write it. */
function withSnakeCaseNames(bindings: Bindings): Bindings {
  return Object.fromEntries(
    Object.entries(bindings).map(([namespace, functions]) => [
      namespace,
      {
        ...functions,
        ...Object.fromEntries(
          Object.entries(functions).map(([name, function_]) => [
            name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
            function_,
          ]),
        ),
      },
    ]),
  );
}

function isRecord(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The text argument and options of a discovery call, however the program passed them: one string,
 * `{ query, namespace, limit }`, or positionally (`searchTools("words", { namespace })`, Python's
 * `searchTools("words", namespace="x")`).
 */
function readArguments(
  input: JsonValue,
  context: HostCallContext | undefined,
  key: string,
  functionName: string,
  example: string,
): { text: string; options: ToolSearchOptions } {
  const positional = context?.positional;
  const first = positional?.[0] ?? input;
  const fields: Record<string, JsonValue> = {
    ...(isRecord(positional?.[1]) ? positional[1] : {}),
    ...(isRecord(input) ? input : {}),
  };
  const text = typeof first === 'string' ? first : isRecord(first) ? first[key] : undefined;
  if (typeof text !== 'string') {
    throw new Error(`sluice.${functionName} takes one string, for example sluice.${functionName}(${example}).`);
  }
  const { namespace, limit } = fields;
  return {
    text,
    options: {
      ...(typeof namespace === 'string' ? { namespace } : {}),
      ...(typeof limit === 'number' ? { limit } : {}),
    },
  };
}

function readNames(input: JsonValue, context: HostCallContext | undefined): string[] {
  const positional = context?.positional;
  const given = positional !== undefined ? (positional.length === 1 ? positional[0] : positional) : input;
  const list = isRecord(given) ? given.names : given;
  const names = typeof list === 'string' ? [list] : list;
  if (!Array.isArray(names) || names.length === 0 || !names.every((name) => typeof name === 'string')) {
    throw new Error(
      'sluice.loadTools takes a list of tool names, for example sluice.loadTools(["github.create_issue"]).',
    );
  }
  return names as string[];
}
