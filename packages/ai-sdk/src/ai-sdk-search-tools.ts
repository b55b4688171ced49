import { maxSearchResults, type RunCodeTool, type ToolSearchHit } from '@sluice/code-mode';
import { foreignText, wellFormedText } from '@sluice/code-runtime';
import { jsonSchema, type Tool, tool } from 'ai';

/** What the model sends to `search_tools`: words to look for, and optionally a namespace and a limit. */
export interface AiSdkSearchToolsInput {
  readonly query: string;
  readonly namespace?: string;
  readonly limit?: number;
}

/**
 * What one `search_tools` call produces, as the AI SDK keeps it in `toolResults[i].output`: the
 * `text` the model reads (through `toModelOutput`) next to the hits. Plain JSON.
 */
export interface AiSdkSearchToolsOutput {
  /** What the model reads: one line per hit, or why there is none. */
  readonly text: string;
  /** `false` when the input was refused or names an unknown namespace (then `text` says why); `true` otherwise, hits or none. */
  readonly ok: boolean;
  /** The tools found, best first; a deferred one carries `loaded: true`, as every deferred tool found is loaded. */
  readonly hits: readonly ToolSearchHit[];
  /** Deferred tools this call loaded (found now, not loaded before): `run_code` declares them from the next step. */
  readonly loaded: readonly string[];
}

/** The AI SDK tool {@link createAiSdkCodeModeTools} makes beside `run_code`: a search in, the hits out; the model reads their `text`. */
export type AiSdkSearchToolsTool = Tool<AiSdkSearchToolsInput, AiSdkSearchToolsOutput>;

const defaultLimit = 10;
/** The most namespaces an unknown-namespace answer names. */

const inputSchema = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      description: 'Words to look for, such as "find customer by email"; an empty string lists tools by name.',
    },
    namespace: { type: 'string', description: 'Only tools of this namespace, such as "crm".' },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: maxSearchResults,
      description: `How many results, at most. Default ${defaultLimit}.`,
    },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

/**
 * The `search_tools` AI SDK tool over `runCode`'s catalogue: BM25 search over names, descriptions
 * and parameters (code-mode's `ToolDiscovery`), narrowed to a namespace when asked. Deferred tools
 * it finds join `runCode`'s loaded set, so the `run_code` description declares them from the next
 * step. A refused input or an unknown namespace is an output with `ok: false` whose text says why.
 */
export function createSearchToolsTool(runCode: RunCodeTool): AiSdkSearchToolsTool {
  return tool<AiSdkSearchToolsInput, AiSdkSearchToolsOutput>({
    description:
      'Find tools by words in their names, descriptions and parameters, best match first. Returns the `namespace.name` paths to call from run_code programs, with one-line summaries. Deferred tools it finds are loaded: the run_code description declares them from your next step.',
    inputSchema: jsonSchema<AiSdkSearchToolsInput>(inputSchema),
    execute: async (input) => search(runCode, input),
    toModelOutput: ({ output }) => ({ type: 'text', value: output.text }),
  });
}

function search(runCode: RunCodeTool, input: unknown): AiSdkSearchToolsOutput {
  const read = readInput(input);
  if (typeof read === 'string') return refused(`[search_tools] not run: ${read}`);
  const { discovery } = runCode.declarations;
  const { query, namespace, limit } = read;
  const unknown = namespace === undefined ? undefined : discovery.unknownNamespace(namespace, '[search_tools] not run');
  if (unknown !== undefined) return refused(unknown);
  const found = discovery.search(query, { limit, ...(namespace === undefined ? {} : { namespace }) });
  const loaded = discovery.loaded.add(found.filter((hit) => hit.loaded === false).map((hit) => hit.name));
  const hits = found.map((hit) => (hit.loaded === false ? { ...hit, loaded: true } : hit));
  if (hits.length === 0) {
    const where = namespace === undefined ? '' : ` in namespace ${quote(namespace)}`;
    return {
      text: wellFormedText(
        `[search_tools] No tool matches ${quote(query)}${where}. Try fewer or other words${namespace === undefined ? '' : ', or leave `namespace` out'}.`,
      ),
      ok: true,
      hits,
      loaded,
    };
  }
  const lines = hits.map((hit) => `${hit.name}: ${hit.summary}${loaded.includes(hit.name) ? ' (loaded now)' : ''}`);
  if (loaded.length > 0) {
    lines.push(
      `Loaded ${loaded.length} deferred tool${loaded.length === 1 ? '' : 's'}: the run_code description declares ${loaded.length === 1 ? 'it' : 'them'} from your next step.`,
    );
  }
  return { text: wellFormedText(lines.join('\n')), ok: true, hits, loaded };
}

function refused(text: string): AiSdkSearchToolsOutput {
  return { text: wellFormedText(text), ok: false, hits: [], loaded: [] };
}

/** The model's words, shown back to it: quoted, and cut so a huge input cannot flood the answer. */
function quote(text: string): string {
  return JSON.stringify(foreignText(text, 200));
}

/** The input's fields, or what is wrong with it in a sentence. The AI SDK passes a `jsonSchema()` input unchecked. */
function readInput(input: unknown): { query: string; namespace: string | undefined; limit: number } | string {
  const example = '{"query": "find customer by email"}';
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return `the input must be an object like ${example}.`;
  }
  const { query, namespace, limit } = input as Record<string, unknown>;
  const extra = Object.keys(input).filter((key) => key !== 'query' && key !== 'namespace' && key !== 'limit');
  if (extra.length > 0) {
    const shown = extra.slice(0, 5).map(quote).join(', ');
    return `unknown input field${extra.length === 1 ? '' : 's'} ${shown}${extra.length > 5 ? ', …' : ''}; send query, and optionally namespace and limit.`;
  }
  if (typeof query !== 'string') return `\`query\` must be a string of words to look for, like ${example}.`;
  if (namespace !== undefined && typeof namespace !== 'string') {
    return '`namespace` must be a string naming one namespace, such as "crm", when given.';
  }
  if (
    limit !== undefined &&
    !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= maxSearchResults)
  ) {
    return `\`limit\` must be a whole number from 1 to ${maxSearchResults} when given.`;
  }
  return { query, namespace, limit: (limit as number | undefined) ?? defaultLimit };
}
