import MiniSearch from 'minisearch';
import type { CatalogEntry } from './declarations-catalog.js';

/** The most results one search returns. */
export const maxSearchResults = 25;

/** What a search may be narrowed to. */
export interface ToolSearchOptions {
  /** Only tools of this namespace. */
  readonly namespace?: string;
  /** How many results, 1 to {@link maxSearchResults}. Default 10. */
  readonly limit?: number;
}

interface Document {
  readonly id: number;
  readonly name: string;
  readonly namespace: string;
  readonly description: string;
  readonly parameters: string;
}

/**
 * Full-text search over a catalogue with MiniSearch: BM25 ranking over tool names (weighted most),
 * namespaces, descriptions and parameter names and docs; words match by prefix (3 letters or more)
 * and with one typo in 5 letters or more; plurals and common English endings are folded.
 */
export class ToolSearchIndex {
  readonly #entries: readonly CatalogEntry[];
  readonly #index: MiniSearch<Document>;

  constructor(entries: readonly CatalogEntry[]) {
    this.#entries = entries;
    this.#index = new MiniSearch<Document>({
      fields: ['name', 'namespace', 'description', 'parameters'],
      tokenize: words,
      processTerm: term,
      searchOptions: {
        boost: { name: 2, namespace: 1.5, description: 1, parameters: 1 },
        prefix: (word) => word.length >= 3,
        fuzzy: (word) => (word.length >= 5 ? 0.2 : false),
        combineWith: 'OR',
      },
    });
    this.#index.addAll(
      entries.map((entry, id) => ({
        id,
        name: `${entry.binding.name} ${entry.toolName}`,
        namespace: entry.binding.namespace,
        description: entry.doc,
        parameters:
          entry.input.kind === 'object'
            ? entry.input.properties.map((property) => `${property.name} ${property.doc ?? ''}`).join(' ')
            : '',
      })),
    );
  }

  /** Entries matching `query`, best first (ties by path); an empty query lists the entries by path. */
  search(query: string, options: ToolSearchOptions = {}): CatalogEntry[] {
    const limit = Math.max(1, Math.min(maxSearchResults, Math.trunc(options.limit ?? 10) || 10));
    const inNamespace = (entry: CatalogEntry) =>
      options.namespace === undefined || entry.binding.namespace === options.namespace;
    if (
      words(query)
        .map(term)
        .every((word) => word === null)
    ) {
      return this.#entries.filter(inNamespace).slice(0, limit);
    }
    const hits = this.#index.search(query, {
      filter: (hit) => inNamespace(this.#entries[hit.id as number]!),
    });
    return hits
      .map((hit) => ({ entry: this.#entries[hit.id as number]!, score: hit.score }))
      .sort((left, right) => right.score - left.score || (left.entry.path < right.entry.path ? -1 : 1))
      .slice(0, limit)
      .map(({ entry }) => entry);
  }
}

/** Words of `text`, split at non-alphanumerics and at camelCase humps. */
function words(text: string): string[] {
  const split = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
  // Hyphenated words count joined too: "to-do" is also "todo".
  const joined = text.match(/[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+/g)?.map((word) => word.replaceAll('-', '')) ?? [];
  return joined.length === 0 ? split : [...split, ...joined];
}

const stopWords = new Set(
  'a an and are as at be by for from has have i in into is it its me my of on or our that the their them this to was we with you your all any some'.split(
    ' ',
  ),
);

/** A lower-case word with plurals and a few English endings folded, or `null` for a stop word. */
function term(word: string): string | null {
  const lower = word.toLowerCase();
  if (stopWords.has(lower)) return null;
  if (lower.length <= 3) return lower;
  if (lower.endsWith('ies') && lower.length > 4) return `${lower.slice(0, -3)}y`;
  if (/(?:ss|sh|ch|x)es$/.test(lower)) return lower.slice(0, -2);
  if (lower.endsWith('s') && !lower.endsWith('ss') && !lower.endsWith('us')) return lower.slice(0, -1);
  if (lower.endsWith('ing') && lower.length > 5) return lower.slice(0, -3);
  if (lower.endsWith('ed') && lower.length > 4) return lower.slice(0, -2);
  return lower;
}
