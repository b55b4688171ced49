import { type CatalogEntry, type DeclaredCatalog, discoveryName } from './declarations-catalog.js';
import { countTokens as estimateTokens, surelyFits } from './declarations-tokens.js';
import { compare } from './declarations-typescript.js';

/** What {@link layoutDeclarations} fills the budget with. */
export interface LayoutOptions {
  /** Tokens the declarations may take; pinned tools are declared in full even past it. */
  readonly budget: number;
  /** Paths of deferred tools loaded in this conversation: they are declared like the others. */
  readonly loaded: ReadonlySet<string>;
  /** Calls per path in this conversation, when the host lets usage order the tools after priority. */
  readonly usage?: ReadonlyMap<string, number>;
}

/** The declarations text and how each tool ended up in it. */
export interface Layout {
  readonly text: string;
  readonly tokens: number;
  /** `full`: every offered tool declared in full; `partial`: some only listed or counted. */
  readonly mode: 'full' | 'partial';
  /** Paths declared in full, listed by summary, only counted under their namespace, and deferred (left out). */
  readonly inlined: readonly string[];
  readonly summarized: readonly string[];
  readonly counted: readonly string[];
  readonly deferred: readonly string[];
}

type Level = 'full' | 'summary' | 'counted';

/**
 * Fills the budget by priority: pinned tools (and pinned namespaces' tools) in full first, then
 * tools by `priority`, the namespaces taking turns among tools of equal priority (each namespace's
 * likeliest tool by `usage` and name, then each one's second, …, so one large server's long tail
 * comes after every server's first tools), in full while the summaries of the rest still fit or the
 * full declarations take at most half the room; then one-line summaries in the same order; the rest
 * counted under their namespace. See docs/decisions/2026-12-02-declarations-fair-share.md. A namespace's instructions are shown with its first tool declared in full.
 * The text is in path order whatever the priorities, and the same inputs give the same bytes.
 */
export function layoutDeclarations(catalog: DeclaredCatalog, options: LayoutOptions): Layout {
  const offered = catalog.entries.filter((entry) => !entry.deferred || options.loaded.has(entry.path));
  const deferred = catalog.entries.filter((entry) => entry.deferred && !options.loaded.has(entry.path));
  const usage = options.usage ?? new Map<string, number>();
  const likelier = (a: CatalogEntry, b: CatalogEntry) =>
    Number(b.pinned) - Number(a.pinned) ||
    b.priority - a.priority ||
    (usage.get(b.path) ?? 0) - (usage.get(a.path) ?? 0) ||
    compare(a.path, b.path);
  // Each tool's rank in its namespace, likeliest first: the namespaces take turns (see fairOrder).
  const rank = new Map<CatalogEntry, number>();
  const byNamespace = new Map<string, CatalogEntry[]>();
  for (const entry of offered) {
    const members = byNamespace.get(entry.binding.namespace) ?? [];
    members.push(entry);
    byNamespace.set(entry.binding.namespace, members);
  }
  for (const members of byNamespace.values()) {
    members.sort(likelier);
    for (const [index, entry] of members.entries()) rank.set(entry, index);
  }
  const ordered = [...offered].sort(
    (a, b) =>
      Number(b.pinned) - Number(a.pinned) || b.priority - a.priority || rank.get(a)! - rank.get(b)! || likelier(a, b),
  );
  const levels = new Map<CatalogEntry, Level>(offered.map((entry) => [entry, 'counted']));

  // First try everything in full: small catalogues need no header and no discovery stub.
  const everything = new Map<CatalogEntry, Level>(offered.map((entry) => [entry, 'full']));
  const cheapEnough = offered.length <= 2_000;
  if (cheapEnough) {
    const text = render(catalog, everything, deferred, offered.length);
    // Counted only when read: a small catalogue fits without loading the tokenizer at all.
    if (surelyFits(text, options.budget)) return result(text, () => estimateTokens(text), everything, deferred);
    const tokens = estimateTokens(text);
    if (tokens <= options.budget) return result(text, tokens, everything, deferred);
  }

  const summaryTokens = new Map(offered.map((entry) => [entry, estimateTokens(catalog.summaryText(entry))]));
  const definitionTokens = new Map<string, number>();
  const included = new Set<string>();
  const guided = new Set<string>();
  const fullCost = (entry: CatalogEntry): { tokens: number; definitions: string[] } => {
    const definitions = catalog.definitionClosure(entry.references).filter((name) => !included.has(name));
    let tokens = estimateTokens(catalog.memberText(entry));
    for (const name of definitions) {
      let cost = definitionTokens.get(name);
      if (cost === undefined) {
        cost = estimateTokens(catalog.definitionText(name)) + 1;
        definitionTokens.set(name, cost);
      }
      tokens += cost;
    }
    const namespace = catalog.namespaces.get(entry.binding.namespace)!;
    if (!guided.has(namespace.name) && namespace.instructions !== '') tokens += estimateTokens(namespace.instructions);
    return { tokens, definitions };
  };
  const take = (entry: CatalogEntry, definitions: readonly string[]) => {
    levels.set(entry, 'full');
    for (const name of definitions) included.add(name);
    guided.add(entry.binding.namespace);
  };

  // The header, the discovery stub, every namespace with its description and a line counting its tools.
  const fixed = estimateTokens(render(catalog, new Map(), deferred, offered.length));
  const room = options.budget - fixed;
  let fullUsed = 0;
  let summariesLeft = 0;
  for (const entry of offered) summariesLeft += summaryTokens.get(entry)!;
  for (const entry of ordered) {
    const halfLeft = room / 2 - fullUsed;
    if (!entry.pinned && halfLeft < 20 && summariesLeft > room - fullUsed) break;
    const cost = fullCost(entry);
    const rest = summariesLeft - summaryTokens.get(entry)!;
    if (entry.pinned || fullUsed + cost.tokens + rest <= room || cost.tokens <= halfLeft) {
      take(entry, cost.definitions);
      fullUsed += cost.tokens;
      summariesLeft = rest;
    }
  }
  let summaryUsed = 0;
  const summarizedOrder: CatalogEntry[] = [];
  for (const entry of ordered) {
    if (levels.get(entry) === 'full') continue;
    const cost = summaryTokens.get(entry)!;
    if (fullUsed + summaryUsed + cost > room) continue;
    levels.set(entry, 'summary');
    summaryUsed += cost;
    summarizedOrder.push(entry);
  }
  // Token counts of the parts differ a little from the whole: take summaries back until it fits.
  for (;;) {
    const text = render(catalog, levels, deferred, offered.length);
    const tokens = estimateTokens(text);
    if (tokens <= options.budget || summarizedOrder.length === 0) return result(text, tokens, levels, deferred);
    for (let over = tokens - options.budget; over > 0 && summarizedOrder.length > 0; ) {
      const last = summarizedOrder.pop()!;
      levels.set(last, 'counted');
      over -= summaryTokens.get(last)!;
    }
  }
}

function result(
  text: string,
  tokens: number | (() => number),
  levels: ReadonlyMap<CatalogEntry, Level>,
  deferred: readonly CatalogEntry[],
): Layout {
  const paths = (level: Level) =>
    [...levels]
      .filter(([, value]) => value === level)
      .map(([entry]) => entry.path)
      .sort(compare);
  const inlined = paths('full');
  let tokenCount = typeof tokens === 'number' ? tokens : undefined;
  return {
    text,
    get tokens() {
      tokenCount ??= (tokens as () => number)();
      return tokenCount;
    },
    mode: inlined.length === levels.size ? 'full' : 'partial',
    inlined,
    summarized: paths('summary'),
    counted: paths('counted'),
    deferred: deferred.map((entry) => entry.path),
  };
}

/** The declarations with each offered tool at its level; tools missing from `levels` are counted. */
function render(
  catalog: DeclaredCatalog,
  levels: ReadonlyMap<CatalogEntry, Level>,
  deferred: readonly CatalogEntry[],
  offeredCount: number,
): string {
  const python = catalog.language === 'python';
  const full = [...levels].filter(([, level]) => level === 'full').map(([entry]) => entry);
  const partial = full.length < offeredCount;
  const definitions = catalog.definitionClosure(full.flatMap((entry) => entry.references));
  const parts: string[] = [];
  if (python) parts.push(catalog.preamble);
  if (partial || deferred.length > 0) parts.push(discoveryHeader(catalog, levels, deferred, offeredCount));
  if (catalog.note !== undefined && definitions.includes('ToolContent')) parts.push(`${catalog.note}\n`);
  for (const name of definitions) parts.push(catalog.definitionText(name));
  const guided = new Set(full.map((entry) => entry.binding.namespace));
  // A set, not `deferred.includes`: looking each entry up in the list is quadratic in deferred tools.
  const leftOut = new Set(deferred);
  for (const namespace of catalog.namespaces.values()) {
    const shown = namespace.entries.filter((entry) => levels.has(entry) || !leftOut.has(entry));
    if (shown.length === 0) continue;
    const members: string[] = [];
    const summaries: string[] = [];
    let more = 0;
    for (const entry of shown) {
      const level = levels.get(entry) ?? 'counted';
      if (level === 'full') members.push(catalog.memberText(entry));
      else if (level === 'summary') summaries.push(catalog.summaryText(entry));
      else more += 1;
    }
    if (more > 0) {
      const search = python
        ? `await sluice.search_tools("words", namespace=${JSON.stringify(namespace.name)})`
        : `await sluice.searchTools("words", { namespace: ${JSON.stringify(namespace.name)} })`;
      summaries.push(
        `${python ? '    #' : '  //'} ${summaries.length + members.length > 0 ? '…and ' : ''}${more} more: ${search}\n`,
      );
    }
    const instructions = guided.has(namespace.name);
    const open = catalog.namespaceOpen(namespace.name, instructions);
    const body = `${members.join(python ? '\n' : '')}${summaries.join('')}`;
    parts.push(`${open}${body}${catalog.namespaceClose(namespace.name, members.length === 0, instructions)}`);
  }
  return parts.join('\n');
}

function discoveryHeader(
  catalog: DeclaredCatalog,
  levels: ReadonlyMap<CatalogEntry, Level>,
  deferred: readonly CatalogEntry[],
  offeredCount: number,
): string {
  const python = catalog.language === 'python';
  const comment = python ? '#' : '//';
  const named = (camel: string) => `sluice.${discoveryName(camel, catalog.language)}`;
  let full = 0;
  let summarized = 0;
  for (const level of levels.values()) {
    if (level === 'full') full += 1;
    else if (level === 'summary') summarized += 1;
  }
  const example = [...levels.keys()][0]?.path ?? catalog.entries[0]?.path ?? 'tools.example';
  const lines: string[] = [];
  if (full < offeredCount) {
    const counted = offeredCount - full - summarized;
    lines.push(
      `${offeredCount} tools: ${full} declared in full below, ${summarized} listed as \`name: summary\`${counted > 0 ? `, ${counted} only counted` : ''}.`,
      `Before calling one not declared in full, get its declaration: \`await ${named('describeTool')}(${JSON.stringify(example)})\`.`,
    );
  }
  if (deferred.length > 0) {
    lines.push(
      `${deferred.length} more tool${deferred.length === 1 ? ' is' : 's are'} loaded on demand: \`${named('searchTools')}\` finds and loads them, \`${named('loadTools')}\` loads them by name.`,
    );
  }
  return `${lines.map((line) => `${comment} ${line}`).join('\n')}\n${python ? pythonDiscoveryStub : typescriptDiscoveryStub}\n`;
}

const typescriptDiscoveryStub = `declare const sluice: {
  /** Up to 10 tools (\`limit\`: at most 25) matching the words in names, descriptions and parameters, best first; loads deferred ones found. */
  searchTools(query: string, options?: { namespace?: string; limit?: number }): Promise<{ name: string; summary: string }[]>;
  /** The full declaration of one tool, with its input and output types, by \`namespace.name\`. */
  describeTool(name: string): Promise<string>;
  /** What a namespace is for, how to use it, and its tools. */
  describeNamespace(name: string): Promise<{ name: string; description: string; instructions: string; tools: { name: string; summary: string }[] }>;
  /** Loads deferred tools by \`namespace.name\` for the rest of the conversation; returns their declarations. */
  loadTools(names: string[]): Promise<string>;
};`;

const pythonDiscoveryStub = `class sluice:
    @staticmethod
    async def search_tools(query: str, *, namespace: str = ..., limit: int = ...) -> list[dict[str, str]]:
        """Up to 10 tools ({"name", "summary"}; limit at most 25) matching the words in names, descriptions and parameters, best first; loads deferred ones found."""
    @staticmethod
    async def describe_tool(name: str) -> str:
        """The full declaration of one tool, with its input and output types, by "namespace.name"."""
    @staticmethod
    async def describe_namespace(name: str) -> dict[str, Any]:
        """What a namespace is for ({"name", "description", "instructions", "tools"}), how to use it, and its tools."""
    @staticmethod
    async def load_tools(names: list[str]) -> str:
        """Loads deferred tools by "namespace.name" for the rest of the conversation; returns their declarations."""`;
