import { type CodeRuntimeLanguage, InvalidRequestError, utf8ByteLength, wellFormedText } from '@sluice/code-runtime';
import type { ToolBindingNameOptions } from '@sluice/permissions';
import { type DeclaredEntry, type DeclaredSet, type DeclaredTool, declareTools } from './declarations-entry.js';
import { pythonDeclarations, pythonPreamble } from './declarations-python.js';
import { toolContentNote, type UntypedResults } from './declarations-tool-content.js';
import { groupByNamespace, typescriptDeclarations } from './declarations-typescript.js';
import { discoveryNamespace, ToolDiscovery } from './tool-discovery.js';

/** The default {@link DeclarationsOptions.tokenBudget}: about 32 KB of declarations. */
export const defaultDeclarationsTokenBudget = 8_000;

/**
 * A rough token count for text a model reads: UTF-8 bytes divided by 4, rounded up. It is an
 * estimate, not a tokenizer; English prose and code run close to it, dense non-Latin text above it.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(utf8ByteLength(text) / 4);
}

/** Options for {@link generateDeclarations}. */
export interface DeclarationsOptions {
  /** The language the program is written in; use the runtime's `language`. */
  readonly language: CodeRuntimeLanguage;
  /**
   * Estimated tokens (see {@link estimateTokens}) the full declarations may take. Above it, only
   * names and one-line summaries are listed and the program looks tools up itself with
   * `sluice.searchTools` and `sluice.describeTool`. Default {@link defaultDeclarationsTokenBudget}.
   */
  readonly tokenBudget?: number;
  /** How tool names become binding names; pass what you pass to `@sluice/permissions`, so both agree. */
  readonly naming?: ToolBindingNameOptions;
  /**
   * What a tool without an output schema resolves with: `unknown` (default), or `tool-content` for
   * MCP tools, declared as `ToolContent` (one text as a string, one image, `""`, or the content list).
   */
  readonly untypedResults?: UntypedResults;
}

/** What the model reads about the tools, and what a run needs to back it up. */
export interface ToolDeclarations {
  readonly language: CodeRuntimeLanguage;
  /**
   * `full`: every tool with its types. `summary`: names and one-line summaries, plus the discovery
   * functions. `namespaces`: even the summary list was over budget, so only namespaces and counts.
   */
  readonly mode: 'full' | 'summary' | 'namespaces';
  /** The declarations text. Byte-stable: the same tools give the same text, in any order. */
  readonly text: string;
  /** {@link estimateTokens} of `text`. */
  readonly estimatedTokens: number;
  /** {@link estimateTokens} of the full declarations, whether or not they were used. */
  readonly fullTokens: number;
  /** Every declared tool's path (`namespace.name`), sorted, whether or not `mode` lists it. */
  readonly paths: readonly string[];
  /** The in-program discovery functions, present unless `mode` is `full`; give its `bindings` to each run. */
  readonly discovery: ToolDiscovery | undefined;
}

/**
 * What the model reads about `tools`: TypeScript `declare const` blocks or typed Python stubs,
 * grouped by namespace, sorted, with doc comments and input and output types. Above the token
 * budget it degrades to a list of names and summaries with in-program discovery. Throws
 * {@link InvalidRequestError} when a tool's name cannot be bound, two tools bind to the same name,
 * or a tool uses the reserved `sluice` namespace.
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
  const set = declareTools(tools, options.naming, options.untypedResults);
  const reserved = set.entries.find((entry) => entry.binding.namespace === discoveryNamespace);
  if (reserved !== undefined) {
    throw new InvalidRequestError({
      message: `Tool ${JSON.stringify(reserved.toolName)} maps to the namespace "${discoveryNamespace}", which is reserved for tool discovery; rename it.`,
      field: 'tools',
    });
  }
  const full = renderSet(set, language);
  const fullTokens = estimateTokens(full);
  // Descriptions are foreign text (an MCP server's may hold half of a surrogate pair); model APIs refuse that.
  const result = (mode: ToolDeclarations['mode'], text: string): ToolDeclarations => ({
    language,
    mode,
    text: wellFormedText(text),
    estimatedTokens: estimateTokens(text),
    fullTokens,
    paths: set.entries.map((entry) => entry.path),
    discovery:
      mode === 'full'
        ? undefined
        : new ToolDiscovery(tools, language, options.naming, { untypedResults: options.untypedResults ?? 'unknown' }),
  });
  if (fullTokens <= budget) return result('full', full);
  const summary = summaryText(set.entries, language, fullTokens, true);
  if (estimateTokens(summary) <= budget) return result('summary', summary);
  return result('namespaces', summaryText(set.entries, language, fullTokens, false));
}

/** The full declarations of a declared set, in `language`. */
export function renderSet(set: DeclaredSet, language: CodeRuntimeLanguage): string {
  const note = set.toolContent ? toolContentNote(language) : undefined;
  return language === 'python'
    ? pythonDeclarations(set.entries, set.definitions, note === undefined ? {} : { note })
    : typescriptDeclarations(set.entries, set.definitions, note);
}

function summaryText(
  entries: readonly DeclaredEntry[],
  language: CodeRuntimeLanguage,
  fullTokens: number,
  listTools: boolean,
): string {
  const python = language === 'python';
  const comment = python ? '#' : '//';
  const groups = groupByNamespace(entries);
  const example = entries[0]?.path ?? 'tools.example';
  const intro = [
    `${entries.length} tools in ${groups.length} namespace${groups.length === 1 ? '' : 's'}: too many to declare here (about ${fullTokens} tokens in full).`,
    listTools
      ? 'Each is listed below as `namespace.name: summary`.'
      : 'Only the namespaces are listed; find tools with `sluice.searchTools`.',
    `Before calling a tool, get its declaration inside your program: \`await sluice.describeTool(${JSON.stringify(example)})\`.`,
    'Find tools by words in their names and descriptions: `await sluice.searchTools("open issues")`.',
  ];
  const lines = intro.map((line) => `${comment} ${line}`);
  lines.push(python ? pythonDiscoveryStub : typescriptDiscoveryStub);
  for (const [namespace, members] of groups) {
    const count = `${members.length} tool${members.length === 1 ? '' : 's'}`;
    lines.push(
      python
        ? `${namespace}: Any  # ${count}: call as \`await ${namespace}.<name>(...)\``
        : `declare const ${namespace}: Record<string, (input?: unknown) => Promise<unknown>>; // ${count}`,
    );
  }
  if (listTools) {
    for (const entry of entries) lines.push(`${comment} ${entry.path}: ${entry.summary}`);
  }
  const body = `${lines.join('\n')}\n`;
  return python ? `${pythonPreamble}\n${body}` : body;
}

const typescriptDiscoveryStub = `declare const sluice: {
  /** Up to 10 tools whose names or descriptions contain the query's words, best match first. */
  searchTools(query: string): Promise<{ name: string; summary: string }[]>;
  /** The full declaration of one tool, with its input and output types, by \`namespace.name\`. */
  describeTool(name: string): Promise<string>;
};`;

const pythonDiscoveryStub = `class sluice:
    @staticmethod
    async def searchTools(query: str) -> list[dict[str, str]]:
        """Up to 10 tools ({"name", "summary"}) whose names or descriptions contain the query's words, best match first."""
    @staticmethod
    async def describeTool(name: str) -> str:
        """The full declaration of one tool, with its input and output types, by "namespace.name"."""`;
