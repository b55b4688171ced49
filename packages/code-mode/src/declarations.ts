import { type CodeRuntimeLanguage, InvalidRequestError, wellFormedText } from '@sluice/code-runtime';
import type { ToolBindingNameOptions } from '@sluice/permissions';
import { DeclaredCatalog } from './declarations-catalog.js';
import type { DeclaredTool, NamespaceGuide } from './declarations-entry.js';
import { layoutDeclarations } from './declarations-layout.js';
import { countTokens, estimateTokens } from './declarations-tokens.js';
import type { UntypedResults } from './declarations-tool-content.js';
import type { LoadedTools } from './loaded-tools.js';
import { ToolDiscovery } from './tool-discovery.js';

export { countTokens, estimateTokens };

/** The default {@link DeclarationsOptions.tokenBudget}, in tokens. */
export const defaultDeclarationsTokenBudget = 3_000;

/** Options for {@link generateDeclarations}. */
export interface DeclarationsOptions {
  /** The language the program is written in; use the runtime's `language`. */
  readonly language: CodeRuntimeLanguage;
  /**
   * Tokens (see {@link countTokens}) the declarations may take. Filled by priority: pinned tools
   * in full, then by `priority` (and `usage`), the rest as one-line summaries or counted under their
   * namespace; programs look those up with `sluice.describeTool`. Default {@link defaultDeclarationsTokenBudget}.
   */
  readonly tokenBudget?: number;
  /** How tool names become binding names; pass what you pass to `@sluice/permissions`, so both agree. */
  readonly naming?: ToolBindingNameOptions;
  /**
   * What a tool without an output schema resolves with: `unknown` (default), or `tool-content` for
   * MCP tools, declared as `ToolContent` (one text as a string, one image, `""`, or the content list).
   */
  readonly untypedResults?: UntypedResults;
  /** Descriptions, instructions and placement of namespaces. */
  readonly namespaces?: readonly NamespaceGuide[];
  /** The conversation's loaded deferred tools: declared like the others. Default: none loaded. */
  readonly loaded?: LoadedTools;
  /** Calls per tool path in this conversation; orders tools of equal priority. Changing it changes the text. */
  readonly usage?: ReadonlyMap<string, number>;
}

/** What the model reads about the tools, and what a run needs to back it up. */
export interface ToolDeclarations {
  readonly language: CodeRuntimeLanguage;
  /** `full`: every offered tool with its types. `partial`: some listed by summary or only counted. */
  readonly mode: 'full' | 'partial';
  /** The declarations text. Byte-stable: the same tools and options give the same text, in any order. */
  readonly text: string;
  /** {@link countTokens} of `text`. */
  readonly estimatedTokens: number;
  /** Every tool's path (`namespace.name`), sorted, whether or not the text shows it. */
  readonly paths: readonly string[];
  /** Paths declared in full, listed by summary, counted under their namespace, and deferred (not shown). */
  readonly inlined: readonly string[];
  readonly summarized: readonly string[];
  readonly counted: readonly string[];
  readonly deferred: readonly string[];
  /** The in-program discovery functions; give its `bindings` to each run. */
  readonly discovery: ToolDiscovery;
}

/**
 * What the model reads about `tools`: TypeScript `declare const` blocks or typed Python stubs,
 * grouped by namespace with their guides, repeated shapes named once, within the token budget.
 * Throws {@link InvalidRequestError} when a tool's name cannot be bound, two tools bind to the same
 * name, or a tool uses the reserved `sluice` namespace.
 */
export function generateDeclarations(tools: readonly DeclaredTool[], options: DeclarationsOptions): ToolDeclarations {
  const { language } = options;
  const budget = options.tokenBudget ?? defaultDeclarationsTokenBudget;
  if (!Number.isInteger(budget) || budget < 0) {
    throw new InvalidRequestError({
      message: `tokenBudget must be a non-negative integer, got ${String(budget)}.`,
      field: 'tokenBudget',
    });
  }
  const catalog = new DeclaredCatalog(tools, {
    language,
    ...(options.naming === undefined ? {} : { naming: options.naming }),
    ...(options.untypedResults === undefined ? {} : { untypedResults: options.untypedResults }),
    ...(options.namespaces === undefined ? {} : { namespaces: options.namespaces }),
  });
  const discovery = new ToolDiscovery(
    catalog,
    language,
    {},
    options.loaded === undefined ? {} : { loaded: options.loaded },
  );
  const layout = layoutDeclarations(catalog, {
    budget,
    loaded: new Set(discovery.loaded.values()),
    ...(options.usage === undefined ? {} : { usage: options.usage }),
  });
  // Descriptions are foreign text (an MCP server's may hold half of a surrogate pair); model APIs refuse that.
  return {
    language,
    mode: layout.mode,
    text: wellFormedText(layout.text),
    // Read from the layout when asked: counting loads the tokenizer, which building a tool does not need.
    get estimatedTokens() {
      return layout.tokens;
    },
    paths: catalog.entries.map((entry) => entry.path),
    inlined: layout.inlined,
    summarized: layout.summarized,
    counted: layout.counted,
    deferred: layout.deferred,
    discovery,
  };
}
