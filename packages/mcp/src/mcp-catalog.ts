import type { CallToolResult, Tool as McpToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import {
  createRunCodeTool,
  LoadedTools,
  type NamespaceGuide,
  type ResultSpill,
  type RunCodeTool,
  readRuntimeLimits,
  type ToolDiscovery,
} from '@sluice/code-mode';
import type { CodeRuntime } from '@sluice/code-runtime';
import { type ApprovalCallback, type PermissionDecision, toolBindingName } from '@sluice/permissions';
import type { RunStore } from '@sluice/run-store';
import type { SluiceMcpConfig, UpstreamServerConfig } from './mcp-config.js';
import type { UpstreamServer } from './upstream-server.js';
import { upstreamToolName, upstreamTools } from './upstream-tools.js';

/** What the server offers once the upstreams have started: `run_code` over their tools, and discovery. */
export interface McpCatalog {
  readonly runCode: RunCodeTool;
  /** The `run_code` description, with a note on every upstream that cannot be called right now. */
  runCodeDescription(): string;
  /**
   * For a program that failed naming the namespace of an upstream that cannot be called (it never
   * started, so its namespace is missing): why, in a sentence for the model.
   */
  unavailableNote(failureMessage: string): string | undefined;
  readonly discovery: ToolDiscovery;
  /** The runtime's wall-clock budget in milliseconds, when it publishes one. */
  readonly wallTimeMs: number | undefined;
  /**
   * Closes every `runCode` built (see `RunCodeTool.close`): durable runs in flight let go unfinished
   * and resumable. Resolves once they have.
   */
  close(): Promise<void>;
}

/** What {@link buildCatalog} needs. */
export interface McpCatalogInput {
  readonly config: SluiceMcpConfig;
  readonly upstreams: readonly UpstreamServer[];
  readonly context: { readonly codeRuntime: CodeRuntime };
  readonly log: (line: string) => void;
  readonly approve: ApprovalCallback;
  readonly onDecision: (decision: PermissionDecision) => void;
  /** Keeps the full text of cut results for `read_output`; shared by every rebuilt `runCode`. */
  readonly spill?: ResultSpill;
  /** Hears of deferred tools loaded by a search, so the client can be told the tool list changed. */
  readonly onToolsLoaded?: (paths: readonly string[]) => void;
  /** Durable runs (`sluice.durable`): the run store, and the conversation of `sluice.store`/`sluice.load`. */
  readonly durable?: { readonly store: RunStore; readonly conversation?: string; readonly leaseMs?: number };
}

/**
 * Builds the catalog from the upstreams. It follows them: when an upstream's tool list changes (it
 * was restarted, or sent `notifications/tools/list_changed`), `runCode` and `discovery` are rebuilt
 * the next time they are read, so a program started after the change sees the new tools.
 */
export function buildCatalog(input: McpCatalogInput): McpCatalog {
  const { upstreams } = input;
  // One client session is one conversation: tools it loads stay loaded across rebuilds.
  const loaded = new LoadedTools(input.onToolsLoaded === undefined ? {} : { onChange: input.onToolsLoaded });
  const versions = () => upstreams.map((upstream) => upstream.toolsVersion).join(',');
  // Every runCode built, for close(): a run started before a rebuild may still be in flight.
  const everyRunCode = new Set<RunCodeTool>();
  const build = () => {
    const parts = buildParts(input, loaded);
    everyRunCode.add(parts.runCode);
    return parts;
  };
  let built = { versions: versions(), parts: build() };
  const current = () => {
    const now = versions();
    if (now !== built.versions) built = { versions: now, parts: build() };
    return built.parts;
  };
  return {
    get runCode() {
      return current().runCode;
    },
    runCodeDescription() {
      const { runCode } = current();
      const problems = upstreams.flatMap((upstream) => {
        const problem = upstream.problem;
        return problem === undefined ? [] : [`- ${upstream.name}: ${problem.replace(/\n/g, ' ').trim()}`];
      });
      if (problems.length === 0) return runCode.description;
      return `${runCode.description}\n\nUnavailable servers (their namespaces are missing, or their calls fail):\n${problems.join('\n')}`;
    },
    unavailableNote(failureMessage) {
      const notes = upstreams.flatMap((upstream) => {
        const problem = upstream.problem;
        const namespace = toolBindingName(upstreamToolName(upstream.name, 'tool')).namespace;
        return problem !== undefined && new RegExp(`\\b${namespace}\\b`).test(failureMessage) ? [problem.trim()] : [];
      });
      return notes.length === 0 ? undefined : notes.join('\n');
    },
    get discovery() {
      return current().runCode.declarations.discovery;
    },
    wallTimeMs: readRuntimeLimits(input.context.codeRuntime).wallTimeMs,
    async close() {
      await Promise.allSettled([...everyRunCode].map((runCode) => runCode.close()));
    },
  };
}

function buildParts(input: McpCatalogInput, loaded: LoadedTools): { runCode: RunCodeTool } {
  const { config, upstreams, context } = input;
  const tools = upstreamTools(upstreams, input.log);
  const runCode = createRunCodeTool({
    context,
    tools,
    policy: config.policy,
    permissions: { approve: input.approve, onDecision: input.onDecision },
    namespaces: upstreamNamespaces(upstreams, config.upstreams),
    loadedTools: loaded,
    ...(config.declarationsTokenBudget === undefined
      ? {}
      : { declarationsTokenBudget: config.declarationsTokenBudget }),
    // Upstream results arrive as MCP tool content; images and cut output go back to the client (read_output).
    untypedResults: 'tool-content',
    result: {
      ...(config.resultTokenBudget === undefined ? {} : { tokenBudget: config.resultTokenBudget }),
      ...(input.spill === undefined ? {} : { spill: input.spill, paging: true }),
      attachImages: true,
    },
    ...(input.durable === undefined ? {} : { durable: input.durable }),
  });
  return { runCode };
}

/**
 * Each upstream's namespace with the `instructions` it sent when it initialised, and the placement
 * (`pinned`, `deferred`, `priority`) its `mcpServers` entry gives.
 */
function upstreamNamespaces(
  upstreams: readonly UpstreamServer[],
  configs: readonly UpstreamServerConfig[],
): NamespaceGuide[] {
  return upstreams.flatMap((upstream) => {
    const instructions = upstream.instructions.trim();
    const config = configs.find((candidate) => candidate.name === upstream.name);
    const guide: NamespaceGuide = {
      name: toolBindingName(upstreamToolName(upstream.name, 'tool')).namespace,
      ...(instructions === '' ? {} : { instructions }),
      ...(config?.pinned === undefined ? {} : { pinned: config.pinned }),
      ...(config?.deferred === undefined ? {} : { deferred: config.deferred }),
      ...(config?.priority === undefined ? {} : { priority: config.priority }),
    };
    return Object.keys(guide).length === 1 ? [] : [guide];
  });
}

/** `search_tools` and `describe_tool`, as listed by `tools/list`. */
/** The tool that continues a paused durable run: offered only with `sluice.durable`. */
export const resumeRunToolDefinition: McpToolDefinition = {
  name: 'resume_run',
  description:
    "Continue a durable run_code run that paused for a person's approval (its result named the run id): the person is asked again, and once they decide the run goes on from where it stopped and its result comes back. Also gives the result of a run that already finished, without running anything again.",
  inputSchema: {
    type: 'object',
    properties: { run_id: { type: 'string', description: 'The run id the paused result named.' } },
    required: ['run_id'],
    additionalProperties: false,
  },
};

/** The tool that lists the caller's durable runs: offered only with `sluice.durable`. */
export const listRunsToolDefinition: McpToolDefinition = {
  name: 'list_runs',
  description:
    "List your durable run_code runs, newest first: each run's id, whether it is running, paused for a person's approval (and of which call) or finished, and when it started. Continue a paused or stopped one with resume_run.",
  inputSchema: {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['running', 'paused', 'finished'], description: 'Only runs in this state.' },
      limit: { type: 'integer', minimum: 1, maximum: 100, description: 'How many runs, at most. Default 20.' },
    },
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
};

export const discoveryToolDefinitions: readonly McpToolDefinition[] = [
  {
    name: 'search_tools',
    description:
      'Find upstream tools by words in their names, descriptions and parameters, best match first. Returns `namespace.name` paths to call from run_code, with one-line summaries; deferred tools found are loaded into run_code.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to look for, such as "open issues".' },
        namespace: {
          type: 'string',
          description: 'Only tools of this namespace (an upstream server), such as "github".',
        },
        limit: { type: 'integer', minimum: 1, maximum: 25, description: 'How many results, at most. Default 10.' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'describe_tool',
    description:
      'The full declaration of one upstream tool, with its input and output types, in the language run_code programs are written in.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The tool as `namespace.name`, for example "github.create_issue".' },
      },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
];

/** Serves `search_tools` or `describe_tool`; `undefined` for any other name. */
export function serveDiscovery(
  catalog: McpCatalog,
  name: string,
  input: Record<string, unknown>,
): CallToolResult | undefined {
  const text = (value: string, isError = false): CallToolResult => ({
    content: [{ type: 'text', text: value }],
    isError,
  });
  if (name === 'search_tools') {
    const { query, limit, namespace } = input;
    if (typeof query !== 'string') return text('search_tools needs {"query": "words to look for"}.', true);
    const unknown =
      typeof namespace === 'string' ? catalog.discovery.unknownNamespace(namespace, 'search_tools') : undefined;
    if (unknown !== undefined) return text(unknown, true);
    const hits = catalog.discovery.searchAndLoad(query, {
      limit: typeof limit === 'number' ? limit : 10,
      ...(typeof namespace === 'string' ? { namespace } : {}),
    });
    if (hits.length === 0) return text(`No tool matches ${JSON.stringify(query)}.`);
    return text(
      hits
        .map((hit) => `${hit.name}: ${hit.summary}${hit.loaded === true ? ' (loaded into run_code)' : ''}`)
        .join('\n'),
    );
  }
  if (name === 'describe_tool') {
    const toolName = input.name;
    if (typeof toolName !== 'string') return text('describe_tool needs {"name": "namespace.name"}.', true);
    const declaration = catalog.discovery.describe(toolName);
    if (declaration !== undefined) return text(declaration);
    const near = catalog.discovery.search(toolName, 5).map((hit) => hit.name);
    return text(
      `No tool is named ${JSON.stringify(toolName)}.${near.length > 0 ? ` Close matches: ${near.join(', ')}.` : ''} Use search_tools to find tools.`,
      true,
    );
  }
  return undefined;
}
