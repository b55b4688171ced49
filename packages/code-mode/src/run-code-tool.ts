import {
  type Bindings,
  type CodeRunEvent,
  type CodeRunResult,
  type CodeRuntime,
  type HostFunction,
  type JsonObject,
  type JsonValue,
  wellFormedText,
} from '@sluice/code-runtime';
import {
  createPolicy,
  type DeriveBindingsOptions,
  deriveBindings,
  isPolicy,
  mayBeAllowed,
  type PolicySource,
  type Tool,
  type ToolBindingNameOptions,
} from '@sluice/permissions';
import { generateDeclarations, type ToolDeclarations } from './declarations.js';
import { declareTools, type NamespaceGuide, type ToolPlacement } from './declarations-entry.js';
import type { UntypedResults } from './declarations-tool-content.js';
import { LoadedTools } from './loaded-tools.js';
import { createReadOutputTool, type ReadOutputTool, readOutputToolName } from './read-output-tool.js';
import {
  defaultResultTokenBudget,
  type RenderedResult,
  type RenderResultOptions,
  renderResult,
} from './result-budget.js';
import { type ImageContent, takeImages } from './result-images.js';
import { ResultSpill } from './result-spill.js';
import { type RunCodeStructuredResult, runCodeOutputSchema, structuredResult } from './result-structured.js';
import { runCodeDescription } from './run-code-description.js';
import { readRuntimeLimits } from './runtime-limits.js';

/** Options for {@link createRunCodeTool}. */
export interface RunCodeToolOptions {
  /** Where programs run: anything with a `codeRuntime`, such as a `@sluice/context` context. Read at each run. */
  readonly context: { readonly codeRuntime: CodeRuntime };
  /** The tools programs may call, subject to `policy`; each may carry `pinned`, `priority` or `deferred`. */
  readonly tools: readonly (Tool & ToolPlacement)[];
  /** Decides each call when it is made (see `@sluice/permissions`). Tools it can never allow are left out of the declarations. */
  readonly policy: PolicySource;
  /** Permission options: `approve`, `approvalTimeoutMs`, `onDecision`, and the naming options, used for the declarations too. */
  readonly permissions?: DeriveBindingsOptions;
  /** Tokens the declarations may take (see `generateDeclarations`); default 3 000. */
  readonly declarationsTokenBudget?: number;
  /** Descriptions, instructions and placement (`pinned`, `priority`, `deferred`) of namespaces. */
  readonly namespaces?: readonly NamespaceGuide[];
  /**
   * The conversation's loaded deferred tools, kept by the host for the conversation: loading through
   * `sluice.searchTools`/`sluice.loadTools` adds to it, and {@link RunCodeTool.description} then declares them.
   */
  readonly loadedTools?: LoadedTools;
  /** How results are rendered: token budget, where cut output is kept and for how long, paging, images. */
  readonly result?: RunCodeResultOptions;
  /**
   * What tools without an output schema are declared to resolve with: `unknown` (default), or
   * `tool-content` when they are MCP tools whose results arrive as `ToolContent`.
   */
  readonly untypedResults?: UntypedResults;
}

/** Result options for {@link createRunCodeTool}. */
export interface RunCodeResultOptions extends Omit<RenderResultOptions, 'readOutputTool'> {
  /**
   * Whether the model has the `read_output` tool ({@link RunCodeTool.readOutput}): a cut result
   * then names its output id and the offset of the cut. Default `false`: register the tool first.
   */
  readonly paging?: boolean;
  /**
   * Whether the host sends images found in the returned value along with the text (as MCP image
   * content): the text then says `sent with this result` rather than `not shown`. Default `false`.
   */
  readonly attachImages?: boolean;
}

/** What the model sends: the program, and optionally a few words saying what it does. */
export interface RunCodeInput {
  readonly code: string;
  readonly description?: string;
}

/** Per-run options for {@link RunCodeTool.run}. */
export interface RunCodeRunOptions {
  /** Aborting it cancels the run; the result is then an `abort` failure. */
  readonly signal?: AbortSignal;
  /** Streams logs and host calls as they happen. */
  readonly onEvent?: (event: CodeRunEvent) => void;
}

/** The outcome of one `run_code` call: the raw result and the text the model reads. */
export interface RunCodeOutcome {
  /** `undefined` when the input was rejected before anything ran; `rendered.text` says why. */
  readonly result: CodeRunResult | undefined;
  readonly rendered: RenderedResult;
  /** The result as data, matching {@link RunCodeTool.outputSchema}; `undefined` when nothing ran. */
  readonly structured?: RunCodeStructuredResult | undefined;
  /** Images in the returned value, to send along with the text when `result.attachImages` is set; otherwise empty. */
  readonly images?: readonly ImageContent[];
}

/** The `run_code` tool: a definition to hand the model, and the function that serves its calls. */
export interface RunCodeTool {
  readonly name: 'run_code';
  /** How to write a program, the runtime's published limits, and the declarations. Follows the runtime's language. */
  readonly description: string;
  /** `{ code, description? }` as JSON Schema. */
  readonly inputSchema: JsonObject;
  /** The JSON Schema of {@link RunCodeOutcome.structured}. */
  readonly outputSchema: JsonObject;
  /** The `read_output` paging tool over this tool's cut results; offer it to the model when `result.paging` is set. */
  readonly readOutput: ReadOutputTool;
  /** Removes the kept output of cut results and stops their timers (not a `result.spill` handed in). Idempotent. */
  dispose(): void;
  /** The declarations inside {@link description}, for the runtime's current language. */
  readonly declarations: ToolDeclarations;
  /** The conversation's loaded deferred tools (`loadedTools`, or a set of the tool's own). */
  readonly loadedTools: LoadedTools;
  /** Serves a model's call: runs the program and resolves with the rendered text. Never rejects for what the program did. */
  execute(input: JsonValue, context?: RunCodeRunOptions): Promise<string>;
  /** Like {@link execute}, but also returns the raw result. */
  run(input: RunCodeInput | JsonValue, options?: RunCodeRunOptions): Promise<RunCodeOutcome>;
}

const inputSchema: JsonObject = {
  type: 'object',
  properties: {
    code: {
      type: 'string',
      description: 'The program, in the language and shapes described above.',
    },
    description: { type: 'string', description: 'What the program does, in a few words, for people watching.' },
  },
  required: ['code'],
  additionalProperties: false,
};

/**
 * Builds the `run_code` tool. Bindings come from `@sluice/permissions` (each call decided when it is
 * made); the declarations and limits in the description come from the tools and from the runtime
 * in `context`. Throws for misuse only: malformed tools, colliding names, bad options.
 */
export function createRunCodeTool(options: RunCodeToolOptions): RunCodeTool {
  const { context, tools } = options;
  const naming: ToolBindingNameOptions = {
    ...(options.permissions?.defaultNamespace === undefined
      ? {}
      : { defaultNamespace: options.permissions.defaultNamespace }),
    ...(options.permissions?.splitNamespaces === undefined
      ? {}
      : { splitNamespaces: options.permissions.splitNamespaces }),
  };
  const toolBindings = withEmptyInputs(deriveBindings(tools, options.policy, options.permissions), tools, naming);
  // A spill handed in is shared (several tools, one paging tool) and stays its owner's to dispose.
  const ownSpill =
    options.result?.spill === undefined
      ? new ResultSpill({
          ...(options.result?.spillDirectory === undefined ? {} : { directory: options.result.spillDirectory }),
          ...(options.result?.spillRetentionMs === undefined ? {} : { retentionMs: options.result.spillRetentionMs }),
        })
      : undefined;
  const spill = options.result?.spill ?? (ownSpill as ResultSpill);
  const tokenBudget = options.result?.tokenBudget ?? defaultResultTokenBudget;
  const renderOptions: RenderResultOptions = {
    tokenBudget,
    spill,
    ...(options.result?.paging === true ? { readOutputTool: readOutputToolName } : {}),
  };
  const attachImages = options.result?.attachImages === true;
  const source = options.policy;
  const policy = typeof source === 'function' ? source() : isPolicy(source) ? source : createPolicy(source);
  // Tools the policy can never allow are not declared: the model should not plan around them.
  const declared = tools.filter((tool) => mayBeAllowed(policy, tool.name, naming));
  // Keyed by the runtime itself: a runtime provided in its place may differ in language or limits,
  // and the description must state the limits of the runtime that will really run the program.
  // Keyed also by the loaded set's version: a tool loaded in this conversation joins the next description.
  const loaded = options.loadedTools ?? new LoadedTools();
  const cache = new WeakMap<
    CodeRuntime,
    { version: number; declarations: ToolDeclarations; description: string; bindings: Bindings }
  >();
  const forRuntime = (runtime: CodeRuntime) => {
    let entry = cache.get(runtime);
    if (entry === undefined || entry.version !== loaded.version) {
      const { language } = runtime;
      const version = loaded.version;
      const declarations = generateDeclarations(declared, {
        language,
        naming,
        loaded,
        ...(options.namespaces === undefined ? {} : { namespaces: options.namespaces }),
        ...(options.untypedResults === undefined ? {} : { untypedResults: options.untypedResults }),
        ...(options.declarationsTokenBudget === undefined ? {} : { tokenBudget: options.declarationsTokenBudget }),
      });
      const limits = readRuntimeLimits(runtime);
      const description = runCodeDescription({ language, declarations, limits });
      const bindings = { ...toolBindings, ...declarations.discovery.bindings };
      entry = { version, declarations, description, bindings };
      cache.set(runtime, entry);
    }
    return entry;
  };
  forRuntime(context.codeRuntime);

  const run = async (input: RunCodeInput | JsonValue, runOptions: RunCodeRunOptions = {}): Promise<RunCodeOutcome> => {
    const problem = inputProblem(input);
    if (problem !== undefined) {
      // The problem can quote the model's own field names, which may hold half of a surrogate pair.
      const text = wellFormedText(`[run_code] not run: ${problem}\n`);
      return {
        result: undefined,
        rendered: { text, estimatedTokens: Math.ceil(text.length / 4), cut: false, spillPath: undefined },
        structured: undefined,
        images: [],
      };
    }
    const runtime = context.codeRuntime;
    const { bindings } = forRuntime(runtime);
    const result = await runtime.run({
      program: (input as RunCodeInput).code,
      bindings,
      ...(runOptions.signal === undefined ? {} : { signal: runOptions.signal }),
      ...(runOptions.onEvent === undefined ? {} : { onEvent: runOptions.onEvent }),
    });
    const taken = result.ok ? takeImages(result.value, attachImages) : { value: undefined, images: [] };
    const shown: CodeRunResult = result.ok && taken.value !== undefined ? { ...result, value: taken.value } : result;
    const rendered = renderResult(shown, renderOptions);
    const structured = structuredResult(shown, {
      value: taken.value,
      maxBytes: tokenBudget * 4,
      outputId: rendered.outputId,
    });
    return { result, rendered, structured, images: taken.images };
  };

  return {
    name: 'run_code',
    get description() {
      return forRuntime(context.codeRuntime).description;
    },
    inputSchema,
    outputSchema: runCodeOutputSchema,
    // A page fits the same budget as a result, with room for its header and footer.
    readOutput: createReadOutputTool(spill, Math.max(512, tokenBudget * 4 - 256)),
    dispose: () => ownSpill?.dispose(),
    get declarations() {
      return forRuntime(context.codeRuntime).declarations;
    },
    loadedTools: loaded,
    execute: async (input, runOptions) => (await run(input, runOptions)).rendered.text,
    run,
  };
}

/**
 * A program that calls a tool with nothing sends `null`. When every property of the tool's input
 * is optional, the declarations say the argument may be left out, so `null` is passed on as `{}`
 * (before the policy and the schema see it) rather than failing validation as "not an object".
 */
function withEmptyInputs(bindings: Bindings, tools: readonly Tool[], naming: ToolBindingNameOptions): Bindings {
  const optional = new Set(
    declareTools(tools, naming)
      .entries.filter(({ input }) => input.kind === 'object' && input.properties.every((property) => property.optional))
      .map((entry) => entry.path),
  );
  const wrapped: Record<string, Record<string, HostFunction>> = {};
  for (const [namespace, functions] of Object.entries(bindings)) {
    wrapped[namespace] = {};
    for (const [name, fn] of Object.entries(functions)) {
      wrapped[namespace][name] = optional.has(`${namespace}.${name}`)
        ? (input, context) => fn(input === null ? {} : input, context)
        : fn;
    }
  }
  return wrapped;
}

function inputProblem(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return 'the input must be an object like {"code": "..."}.';
  }
  const { code, description } = input as Record<string, unknown>;
  if (typeof code !== 'string' || code.trim() === '') return '`code` must be a non-empty string holding the program.';
  if (description !== undefined && typeof description !== 'string') return '`description` must be a string when given.';
  const extra = Object.keys(input).filter((key) => key !== 'code' && key !== 'description');
  if (extra.length > 0)
    return `unknown input field${extra.length === 1 ? '' : 's'} ${extra.join(', ')}; send only code and description.`;
  return undefined;
}
