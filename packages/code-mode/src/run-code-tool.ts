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
import { declareTools } from './declarations-entry.js';
import { type RenderedResult, type RenderResultOptions, renderResult } from './result-budget.js';
import { runCodeDescription } from './run-code-description.js';
import { readRuntimeLimits } from './runtime-limits.js';

/** Options for {@link createRunCodeTool}. */
export interface RunCodeToolOptions {
  /** Where programs run: anything with a `codeRuntime`, such as a `@sluice/context` context. Read at each run. */
  readonly context: { readonly codeRuntime: CodeRuntime };
  /** The tools programs may call, subject to `policy`. */
  readonly tools: readonly Tool[];
  /** Decides each call when it is made (see `@sluice/permissions`). Tools it can never allow are left out of the declarations. */
  readonly policy: PolicySource;
  /** Permission options: `approve`, `approvalTimeoutMs`, `onDecision`, and the naming options, used for the declarations too. */
  readonly permissions?: DeriveBindingsOptions;
  /** Estimated tokens the declarations may take before they list only names (see `generateDeclarations`). */
  readonly declarationsTokenBudget?: number;
  /** How results are rendered: token budget and spill directory. */
  readonly result?: RenderResultOptions;
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
}

/** The `run_code` tool: a definition to hand the model, and the function that serves its calls. */
export interface RunCodeTool {
  readonly name: 'run_code';
  /** How to write a program, the runtime's published limits, and the declarations. Follows the runtime's language. */
  readonly description: string;
  /** `{ code, description? }` as JSON Schema. */
  readonly inputSchema: JsonObject;
  /** The declarations inside {@link description}, for the runtime's current language. */
  readonly declarations: ToolDeclarations;
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
  const source = options.policy;
  const policy = typeof source === 'function' ? source() : isPolicy(source) ? source : createPolicy(source);
  // Tools the policy can never allow are not declared: the model should not plan around them.
  const declared = tools.filter((tool) => mayBeAllowed(policy, tool.name));
  // Keyed by the runtime itself: a runtime provided in its place may differ in language or limits,
  // and the description must state the limits of the runtime that will really run the program.
  const cache = new WeakMap<CodeRuntime, { declarations: ToolDeclarations; description: string; bindings: Bindings }>();
  const forRuntime = (runtime: CodeRuntime) => {
    let entry = cache.get(runtime);
    if (entry === undefined) {
      const { language } = runtime;
      const declarations = generateDeclarations(declared, {
        language,
        naming,
        ...(options.declarationsTokenBudget === undefined ? {} : { tokenBudget: options.declarationsTokenBudget }),
      });
      const limits = readRuntimeLimits(runtime);
      const description = runCodeDescription({ language, declarations, limits });
      const bindings = { ...toolBindings, ...declarations.discovery?.bindings };
      entry = { declarations, description, bindings };
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
    return { result, rendered: renderResult(result, options.result) };
  };

  return {
    name: 'run_code',
    get description() {
      return forRuntime(context.codeRuntime).description;
    },
    inputSchema,
    get declarations() {
      return forRuntime(context.codeRuntime).declarations;
    },
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
