import MiniSearch from 'minisearch';

/** Up to this many granted functions, an ungranted call's error lists them all; past it, the closest. */
export const maxListedBindings = 12;

/** The most close matches an ungranted call's error names. */
export const maxClosestBindings = 5;

/**
 * The error for a call of `namespace.name`, which the run does not grant, given the granted
 * `namespace.name` paths: all of them when there are at most {@link maxListedBindings}; else the
 * closest few (MiniSearch over the words of each path, with prefixes and small typos, ties by path)
 * and how to search the rest, naming `sluice.search_tools` or `sluice.searchTools` when granted.
 */
export function notGrantedMessage(namespace: string, name: string, granted: readonly string[]): string {
  const wanted = `${namespace}.${name}`;
  const sorted = [...granted].sort();
  const head = `${wanted} is not available to this program.`;
  if (sorted.length <= maxListedBindings) {
    return `${head} Available: ${sorted.length > 0 ? sorted.join(', ') : '(none)'}.`;
  }
  const closest = closestBindings(wanted, sorted);
  const search = sorted.includes('sluice.search_tools')
    ? 'sluice.search_tools'
    : sorted.includes('sluice.searchTools')
      ? 'sluice.searchTools'
      : undefined;
  const how =
    search === undefined
      ? `${sorted.length} functions are granted.`
      : `${sorted.length} functions are granted; find others with \`await ${search}("words")\`.`;
  return `${head} ${closest.length > 0 ? `Closest: ${closest.join(', ')}. ` : ''}${how}`;
}

/** The granted paths closest to `wanted`, best first, never a `sluice.` discovery function; at most {@link maxClosestBindings}. */
export function closestBindings(wanted: string, granted: readonly string[]): string[] {
  const index = new MiniSearch<{ id: number; path: string; name: string }>({
    fields: ['path', 'name'],
    tokenize: words,
    processTerm: (term) => term.toLowerCase(),
    searchOptions: {
      boost: { name: 2, path: 1 },
      prefix: (word) => word.length >= 3,
      fuzzy: (word) => (word.length >= 4 ? 0.34 : false),
      combineWith: 'OR',
    },
  });
  // The discovery functions are no tool's near miss.
  const tools = granted.filter((path) => !path.startsWith('sluice.'));
  index.addAll(tools.map((path, id) => ({ id, path, name: path.slice(path.indexOf('.') + 1) })));
  return index
    .search(wanted)
    .sort((left, right) => right.score - left.score || (left.id as number) - (right.id as number))
    .slice(0, maxClosestBindings)
    .map((hit) => tools[hit.id as number]!);
}

/** Words of a binding path: split at `.`, `_`, digits runs kept, and camelCase humps. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
}
