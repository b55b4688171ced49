import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  type Bindings,
  type CodeRunEvent,
  type CodeRunResult,
  type CodeRuntime,
  InvalidRequestError,
  type JsonObject,
  type JsonValue,
  wellFormedText,
} from '@sluice/code-runtime';
import { createDurableRuns, type DurableDecision, type DurableOutcome, type DurableRuns } from '@sluice/durable';
import {
  createPolicy,
  type DeriveBindingsOptions,
  deriveBindings,
  isPolicy,
  mayBeAllowed,
  type PolicySource,
  type Tool,
  type ToolBindingNameOptions,
  toolBindingNames,
} from '@sluice/permissions';
import { generateDeclarations, type ToolDeclarations } from './declarations.js';
import type { NamespaceGuide, ToolPlacement } from './declarations-entry.js';
import type { UntypedResults } from './declarations-tool-content.js';
import { LoadedTools } from './loaded-tools.js';
import { createReadOutputTool, type ReadOutputTool, readOutputToolName } from './read-output-tool.js';
import {
  defaultResultTokenBudget,
  fitSections,
  type RenderedResult,
  type RenderResultOptions,
  renderResult,
} from './result-budget.js';
import { type ImageContent, takeImages } from './result-images.js';
import { ResultSpill } from './result-spill.js';
import { type RunCodeStructuredResult, runCodeOutputSchema, structuredResult } from './result-structured.js';
import { runCodeDescription } from './run-code-description.js';
import { checkDurableOptions, durableSections, type RunCodeDurableOptions } from './run-code-durable.js';
import { inputProblem } from './run-code-inputs.js';
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
  /**
   * Makes runs durable (`@sluice/durable`): each host call journaled to `store`, a policy `ask`
   * pausing the run until {@link RunCodeTool.decide}, a stopped run continued by
   * {@link RunCodeTool.resume}, and `sluice.store`/`sluice.load` per `conversation`. Needs a
   * runtime that publishes `determinism` (the QuickJS provider); `permissions.approve` is then unused.
   * A store that fails rejects `run`, `decide` and `resume`: nothing is final, and the run can be resumed.
   */
  readonly durable?: RunCodeDurableOptions;
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
  /**
   * Durable runs only: aborting it lets the run go unfinished and resumable (`DurableRunOptions.detach`),
   * for a caller that went away rather than cancelled; `durable.status` is then `stopped`.
   */
  readonly detach?: AbortSignal;
  /** Streams logs and host calls as they happen. */
  readonly onEvent?: (event: CodeRunEvent) => void;
  /**
   * Durable runs only: the run's id in the store (default `durable_<UUID>`), such as the model's
   * tool-call id, so the host can resume the run after a crash without having seen an outcome.
   */
  readonly runId?: string;
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
  /**
   * With `durable`: how the run stands. `paused` carries the pause token, for the host to show a
   * person and pass to {@link RunCodeTool.decide}; the model is never shown it; `decision` is there
   * for an outcome of {@link RunCodeTool.decide}. `undefined` when the tool is not durable or nothing ran.
   */
  readonly durable?: DurableOutcome & { readonly decision?: DurableDecision['decision'] };
}

/** A person's answer to a paused call: allow it, or deny it with a reason the program reads. */
export type RunCodeDecision = { readonly decision: 'allow' } | { readonly decision: 'deny'; readonly reason?: string };

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
  /**
   * Removes the kept output of cut results and stops their timers (not a `result.spill` handed in),
   * and lets every durable run in flight go unfinished and resumable (`DurableRuns.close`: their
   * outcomes resolve with status `stopped`). Idempotent; {@link close} also waits for the runs.
   */
  dispose(): void;
  /** {@link dispose}, resolving once every durable run in flight has let go of the store. Idempotent. */
  close(): Promise<void>;
  /** The declarations inside {@link description}, for the runtime's current language. */
  readonly declarations: ToolDeclarations;
  /** The conversation's loaded deferred tools (`loadedTools`, or a set of the tool's own). */
  readonly loadedTools: LoadedTools;
  /** Serves a model's call: runs the program and resolves with the rendered text. Never rejects for what the program did. */
  execute(input: JsonValue, context?: RunCodeRunOptions): Promise<string>;
  /** Like {@link execute}, but also returns the raw result. */
  run(input: RunCodeInput | JsonValue, options?: RunCodeRunOptions): Promise<RunCodeOutcome>;
  /**
   * With `durable`: gives a person's decision on a paused call and continues its run by replay,
   * resolving with the outcome rendered as {@link run} renders it (the text to give the model).
   * Deciding a token again resolves with the same outcome. Rejects with `DurableRunError` for an
   * unknown or expired token, and with `InvalidRequestError` when the tool is not durable.
   */
  decide(token: string, decision: RunCodeDecision, options?: RunCodeRunOptions): Promise<RunCodeOutcome>;
  /**
   * With `durable`: continues a run whose host stopped (a crash, a deploy) by replaying its journal,
   * rendered as {@link run} renders it; a finished run resolves with its stored outcome. Rejects with
   * `DurableRunError` for an unknown run, one another host holds, or one waiting for a decision.
   */
  resume(runId: string, options?: RunCodeRunOptions): Promise<RunCodeOutcome>;
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
  const { context, tools, durable } = options;
  if (durable !== undefined) checkDurableOptions(durable, context.codeRuntime);
  // One owner for every durable run this tool starts, whichever runtime or declarations it used.
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  /** Every DurableRuns made, for close(): a new runtime or a newly loaded tool makes another. */
  const allDurableRuns = new Set<DurableRuns>();
  let closing: Promise<void> | undefined;
  const naming: ToolBindingNameOptions = {
    ...(options.permissions?.defaultNamespace === undefined
      ? {}
      : { defaultNamespace: options.permissions.defaultNamespace }),
    ...(options.permissions?.splitNamespaces === undefined
      ? {}
      : { splitNamespaces: options.permissions.splitNamespaces }),
  };
  const toolBindings = deriveBindings(tools, options.policy, options.permissions);
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
  const bound = toolBindingNames(
    tools.map((tool) => tool.name),
    naming,
  );
  const declared = tools.filter((tool) => {
    const binding = bound.get(tool.name);
    return mayBeAllowed(policy, tool.name, typeof binding === 'object' ? { ...naming, binding } : naming);
  });
  // Keyed by the runtime itself: a runtime provided in its place may differ in language or limits,
  // and the description must state the limits of the runtime that will really run the program.
  // Keyed also by the loaded set's version: a tool loaded in this conversation joins the next description.
  const loaded = options.loadedTools ?? new LoadedTools();
  const cache = new WeakMap<
    CodeRuntime,
    {
      version: number;
      declarations: ToolDeclarations;
      description: string;
      bindings: Bindings;
      durableRuns: () => DurableRuns;
    }
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
      const storedValues = durable?.conversation !== undefined;
      const description = runCodeDescription({ language, declarations, limits, storedValues });
      const bindings = { ...toolBindings, ...declarations.discovery.bindings };
      let durableRuns: DurableRuns | undefined;
      const made = () => {
        durableRuns ??= createDurableRuns({
          runtime,
          store: (durable as RunCodeDurableOptions).store,
          tools,
          policy: options.policy,
          ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
          bindings: declarations.discovery.bindings,
          owner,
          ...(durable?.pauseTtlMs === undefined ? {} : { pauseTtlMs: durable.pauseTtlMs }),
          ...(durable?.leaseMs === undefined ? {} : { leaseMs: durable.leaseMs }),
        });
        allDurableRuns.add(durableRuns);
        return durableRuns;
      };
      entry = { version, declarations, description, bindings, durableRuns: made };
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
    const { bindings, durableRuns } = forRuntime(runtime);
    const program = (input as RunCodeInput).code;
    if (durable !== undefined) {
      const outcome = await durableRuns().start({
        program,
        ...(durable.conversation === undefined ? {} : { conversation: durable.conversation }),
        ...(runOptions.runId === undefined ? {} : { runId: runOptions.runId }),
        ...runOptionsOf(runOptions),
      });
      return outcomeOf(outcome.result, outcome);
    }
    // A run that is not durable has nothing to keep: a caller that went away cancels it.
    const { detach: _unused, ...options } = runOptionsOf(runOptions);
    return outcomeOf(await runtime.run({ program, bindings, ...options }));
  };

  const durableRunsOf = (method: string): DurableRuns => {
    if (durable === undefined) {
      throw new InvalidRequestError({
        message: `run_code.${method} continues durable runs: create the tool with the durable option.`,
        field: method,
      });
    }
    return forRuntime(context.codeRuntime).durableRuns();
  };

  /** What the model and the host get of a run's result, and of how a durable run stands. */
  function outcomeOf(result: CodeRunResult, outcome?: DurableOutcome): RunCodeOutcome {
    const sections = outcome === undefined ? undefined : durableSections(outcome);
    if (sections !== undefined) {
      const text = fitSections(sections, result.runId, renderOptions);
      const structured = structuredResult(result, {
        value: undefined,
        maxBytes: tokenBudget * 4,
        outputId: text.outputId,
      });
      return { result, rendered: text, structured, images: [], durable: outcome };
    }
    const taken = result.ok ? takeImages(result.value, attachImages) : { value: undefined, images: [] };
    const shown: CodeRunResult = result.ok && taken.value !== undefined ? { ...result, value: taken.value } : result;
    const rendered = renderResult(shown, renderOptions);
    const structured = structuredResult(shown, {
      value: taken.value,
      maxBytes: tokenBudget * 4,
      outputId: rendered.outputId,
    });
    return {
      result,
      rendered,
      structured,
      images: taken.images,
      ...(outcome === undefined ? {} : { durable: outcome }),
    };
  }

  function dispose(): void {
    ownSpill?.dispose();
    // Letting go is synchronous (each execution detaches at once); waiting for it is close()'s.
    closing ??= Promise.allSettled([...allDurableRuns].map((runs) => runs.close())).then(() => {});
  }

  return {
    name: 'run_code',
    get description() {
      return forRuntime(context.codeRuntime).description;
    },
    inputSchema,
    outputSchema: runCodeOutputSchema,
    // A page fits the same budget as a result, with room for its header and footer.
    readOutput: createReadOutputTool(spill, Math.max(512, tokenBudget * 4 - 256)),
    dispose,
    close() {
      dispose();
      return closing ?? Promise.resolve();
    },
    get declarations() {
      return forRuntime(context.codeRuntime).declarations;
    },
    loadedTools: loaded,
    execute: async (input, runOptions) => (await run(input, runOptions)).rendered.text,
    run,
    async decide(token, decision, runOptions = {}) {
      const outcome = await durableRunsOf('decide').decide(token, decision, runOptionsOf(runOptions));
      return outcomeOf(outcome.result, outcome);
    },
    async resume(runId, runOptions = {}) {
      const outcome = await durableRunsOf('resume').resume(runId, runOptionsOf(runOptions));
      return outcomeOf(outcome.result, outcome);
    },
  };
}

function runOptionsOf(options: RunCodeRunOptions): Pick<RunCodeRunOptions, 'signal' | 'onEvent' | 'detach'> {
  return {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.detach === undefined ? {} : { detach: options.detach }),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
  };
}
