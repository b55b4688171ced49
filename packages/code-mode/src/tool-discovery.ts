import { type Bindings, type CodeRuntimeLanguage, type JsonValue, wellFormedText } from '@sluice/code-runtime';
import type { ToolBindingNameOptions } from '@sluice/permissions';
import { type DeclaredEntry, type DeclaredTool, declareTools } from './declarations-entry.js';
import { pythonDeclarations } from './declarations-python.js';
import { toolContentNote, type UntypedResults } from './declarations-tool-content.js';
import { typescriptDeclarations } from './declarations-typescript.js';

/** The binding namespace of the discovery functions: `sluice.searchTools`, `sluice.describeTool`. No tool may use it. */
export const discoveryNamespace = 'sluice';

/** The most results {@link ToolDiscovery.search} returns. */
export const maxSearchResults = 25;

/** One search hit: the path the program calls, and the tool's one-line summary. */
export interface ToolSearchHit {
  readonly name: string;
  readonly summary: string;
}

interface Indexed {
  readonly entry: DeclaredEntry;
  readonly tool: DeclaredTool;
  readonly nameWords: ReadonlySet<string>;
  readonly textWords: ReadonlySet<string>;
}

/**
 * Tool lookup for programs when the declarations list only names: a lexical search over names and
 * descriptions, and the full declaration of one tool on demand. {@link bindings} exposes both to a
 * run as `sluice.searchTools(query)` and `sluice.describeTool(name)`.
 */
export class ToolDiscovery {
  readonly #indexed: Indexed[];
  readonly #byName = new Map<string, Indexed>();

  constructor(
    tools: readonly DeclaredTool[],
    private readonly language: CodeRuntimeLanguage,
    private readonly naming: ToolBindingNameOptions = {},
    private readonly options: { readonly untypedResults?: UntypedResults } = {},
  ) {
    const byToolName = new Map(tools.map((tool) => [tool.name, tool]));
    this.#indexed = declareTools(tools, naming, options.untypedResults).entries.map((entry) => ({
      entry,
      tool: byToolName.get(entry.toolName)!,
      nameWords: new Set([...words(entry.path), ...words(entry.toolName)]),
      textWords: new Set(words(entry.doc)),
    }));
    for (const indexed of this.#indexed) {
      this.#byName.set(indexed.entry.path, indexed);
      this.#byName.set(indexed.entry.toolName, indexed);
    }
  }

  /**
   * Tools matching the words of `query`, best first: a word in a tool's name counts three, a name
   * word it begins counts two, a word in its description one. Ties go by name; an empty query
   * lists tools by name. At most `limit` (1 to {@link maxSearchResults}) results.
   */
  search(query: string, limit = 10): ToolSearchHit[] {
    const wanted = [...new Set(words(query))];
    const count = Math.max(1, Math.min(maxSearchResults, Math.trunc(limit)));
    const scored = this.#indexed.map((indexed) => ({ indexed, score: score(indexed, wanted) }));
    return scored
      .filter(({ score }) => wanted.length === 0 || score > 0)
      .sort((left, right) => right.score - left.score || (left.indexed.entry.path < right.indexed.entry.path ? -1 : 1))
      .slice(0, count)
      .map(({ indexed }) => ({ name: indexed.entry.path, summary: wellFormedText(indexed.entry.summary) }));
  }

  /**
   * The full declaration of one tool in the runtime's language, by `namespace.name`, by the tool's
   * own name, or by its bare binding name when only one tool has it; `undefined` when none matches.
   */
  describe(name: string): string | undefined {
    const found = this.#byName.get(name) ?? this.#uniqueBareName(name);
    if (found === undefined) return undefined;
    const set = declareTools([found.tool], this.naming, this.options.untypedResults);
    const note = set.toolContent ? toolContentNote(this.language) : undefined;
    return wellFormedText(
      this.language === 'python'
        ? pythonDeclarations(set.entries, set.definitions, { preamble: false, ...(note === undefined ? {} : { note }) })
        : typescriptDeclarations(set.entries, set.definitions, note),
    );
  }

  /** `{ sluice: { searchTools, describeTool } }`, to merge into a run's bindings. */
  get bindings(): Bindings {
    return {
      [discoveryNamespace]: {
        searchTools: async (input: JsonValue) => {
          const { text, limit } = readArgument(input, 'query', 'searchTools', '"open issues"');
          return this.search(text, limit) as unknown as JsonValue;
        },
        describeTool: async (input: JsonValue) => {
          const { text } = readArgument(
            input,
            'name',
            'describeTool',
            JSON.stringify(this.#indexed[0]?.entry.path ?? 'tools.search'),
          );
          const declaration = this.describe(text);
          if (declaration !== undefined) return declaration;
          const near = this.search(text, 5).map((hit) => hit.name);
          throw new Error(
            `No tool is named ${JSON.stringify(text)}.${near.length > 0 ? ` Close matches: ${near.join(', ')}.` : ''} Use sluice.searchTools to find tools.`,
          );
        },
      },
    };
  }

  #uniqueBareName(name: string): Indexed | undefined {
    const matches = this.#indexed.filter((indexed) => indexed.entry.binding.name === name);
    return matches.length === 1 ? matches[0] : undefined;
  }
}

function readArgument(
  input: JsonValue,
  key: string,
  functionName: string,
  example: string,
): { text: string; limit: number | undefined } {
  if (typeof input === 'string') return { text: input, limit: undefined };
  if (typeof input === 'object' && input !== null && !Array.isArray(input) && typeof input[key] === 'string') {
    const limit = input.limit;
    return { text: input[key] as string, limit: typeof limit === 'number' ? limit : undefined };
  }
  throw new Error(`sluice.${functionName} takes one string, for example sluice.${functionName}(${example}).`);
}

function score(indexed: Indexed, wanted: readonly string[]): number {
  let total = 0;
  for (const word of wanted) {
    if (indexed.nameWords.has(word)) total += 3;
    else if (word.length >= 3 && [...indexed.nameWords].some((nameWord) => nameWord.startsWith(word))) total += 2;
    if (indexed.textWords.has(word)) total += 1;
  }
  return total;
}

/** Lower-case words of `text`, split at non-alphanumerics and at camelCase humps. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}
