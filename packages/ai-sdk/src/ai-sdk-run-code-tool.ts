import {
  createRunCodeTool,
  type LoadedTools,
  type NamespaceGuide,
  type RunCodeDurableOptions,
  type RunCodeInput,
  type RunCodeOutcome,
  type RunCodeResultOptions,
  type RunCodeTool,
} from '@sluice/code-mode';
import type {
  CodeRunFailure,
  CodeRunResult,
  CodeRuntime,
  CodeRunUsage,
  HostCallRecord,
  JsonValue,
  LogEntry,
} from '@sluice/code-runtime';
import type { DeriveBindingsOptions, PolicyDefinition, PolicySource } from '@sluice/permissions';
import { jsonSchema, type Tool, type ToolExecutionOptions, type ToolSet, tool } from 'ai';
import { type AiSdkSearchToolsTool, createSearchToolsTool } from './ai-sdk-search-tools.js';
import { convertAiSdkTools } from './ai-sdk-tools.js';

/** Options for {@link createAiSdkRunCodeTool}. */
export interface AiSdkRunCodeToolOptions {
  /** The AI SDK tools programs may call, as you would pass them to `generateText`. */
  readonly tools: ToolSet;
  /** Where programs run, such as `createWorkerThreadCodeRuntime()`. Its language decides the declarations. */
  readonly runtime: CodeRuntime;
  /**
   * Decides each call a program makes (see `@sluice/permissions`). Default: every tool is allowed,
   * except that a tool with `needsApproval` is asked about, through `permissions.approve`.
   */
  readonly policy?: PolicySource;
  /** `approve` for `ask` rules, `onDecision` for an audit trail, and the naming options. */
  readonly permissions?: DeriveBindingsOptions;
  /** Tokens the declarations may take, filled by priority; the rest are summarised or counted (code-mode's default, 3 000, when absent). */
  readonly declarationsTokenBudget?: number;
  /**
   * Descriptions, instructions and placement (`pinned`, `priority`, `deferred`) of namespaces. A tool
   * named with a prefix (`crm__find`) is in that namespace (`crm`); the others are in `tools`.
   */
  readonly namespaces?: readonly NamespaceGuide[];
  /**
   * The conversation's loaded deferred tools: keep one per conversation and pass it each time you
   * create the tool for that conversation. Programs load with `sluice.searchTools`/`sluice.loadTools`;
   * the tool's `description` declares what is loaded from the next step on. Default: a set of its own.
   */
  readonly loadedTools?: LoadedTools;
  /**
   * How results are rendered for the model: token budget, spill folder and retention. `paging` is
   * for hosts that also offer code-mode's `read_output` tool; this adapter does not make one, so a
   * cut result's full text is kept only for the operator, for the retention.
   */
  readonly result?: RunCodeResultOptions;
  /**
   * Durable runs (see `createAiSdkDurableCodeMode`): each call journaled to `durable.store`, a policy
   * `ask` pausing the run rather than waiting for `permissions.approve`. Needs a runtime that
   * publishes `determinism` (QuickJS or worker-thread).
   */
  readonly durable?: RunCodeDurableOptions;
}

/**
 * What one `run_code` call produces, as the AI SDK keeps it in `toolResults[i].output`: the rendered
 * `text` the model reads (through `toModelOutput`) next to the run's data for the application. Plain
 * JSON, so it survives UI messages and storage.
 */
export interface AiSdkRunCodeOutput {
  /** The rendered result the model reads: outcome, logs, value or failure and host calls, within the token budget. */
  readonly text: string;
  /** `true` when the program finished and returned; `false` when it failed or its input was refused before it ran. */
  readonly ok: boolean;
  /** What the program returned, not cut by the token budget; absent when it returned nothing, failed or did not run. */
  readonly value?: JsonValue;
  /** How the run failed; absent when it succeeded, and when the input was refused (then `text` says why). */
  readonly failure?: CodeRunFailure;
  /** Every line the program logged, up to the runtime's log budget; kept on failure too. */
  readonly logs: readonly LogEntry[];
  /** Every host call the program made, refused ones included, in order. */
  readonly calls: readonly HostCallRecord[];
  /** The run's id, as in its events and the audit log; absent when it did not run. */
  readonly runId?: string;
  /**
   * Images found in the returned value (a chart a Python program drew, a screenshot a tool gave),
   * base64 with their media type, at most code mode's per-result limits: the model gets them as
   * file content after `text`, where `text` and `value` say `(image 1: image/png, …, sent with this
   * result)`. Absent when there are none.
   */
  readonly images?: readonly { readonly data: string; readonly mediaType: string }[];
  /** What the run consumed; absent when it did not run. */
  readonly usage?: CodeRunUsage;
  /**
   * Durable runs only: `paused` (a call waits for a person: `resume_run` asks for the approval),
   * `stopped` (the host stopped before the run ended: `resume_run` continues it), `diverged` or
   * `finished`, and the durable run's id. Never the pause token.
   */
  readonly durable?: { readonly status: 'finished' | 'paused' | 'diverged' | 'stopped'; readonly runId: string };
}

/** The AI SDK tool {@link createAiSdkRunCodeTool} returns: a program in, the run's {@link AiSdkRunCodeOutput} out; the model reads its `text`. */
export type AiSdkRunCodeTool = Tool<RunCodeInput, AiSdkRunCodeOutput>;

/**
 * One AI SDK tool, `run_code`, that lets the model call a whole toolset from a program: its
 * description carries the declarations of `tools` in the runtime's language, and each call the
 * program makes runs the tool's own `execute`, decided by the policy when it is made. Cancelling
 * the generation (`abortSignal`) cancels the run. Deferred tools (see `namespaces`) are declared
 * from the step after a program loads them, and stay loaded in `loadedTools`. Tools executed by the
 * provider, or without `execute`, are left out. Each result is an {@link AiSdkRunCodeOutput}: the model reads its
 * rendered `text`, the application also gets the value, logs and host calls. Throws for misuse only:
 * malformed tools, a schema the AI SDK cannot convert, colliding names, bad options.
 */
export async function createAiSdkRunCodeTool(options: AiSdkRunCodeToolOptions): Promise<AiSdkRunCodeTool> {
  return (await buildAiSdkRunCode(options)).definition;
}

/**
 * Both tools for a large catalogue: `run_code` (as {@link createAiSdkRunCodeTool} makes it) and
 * `search_tools`, which finds tools and loads the deferred ones it finds into `run_code`'s loaded
 * set, so the `run_code` description declares them from the next step. Spread it into `tools`.
 */
export async function createAiSdkCodeModeTools(options: AiSdkRunCodeToolOptions): Promise<AiSdkCodeModeTools> {
  const { definition, runCode } = await buildAiSdkRunCode(options);
  return { run_code: definition, search_tools: createSearchToolsTool(runCode) };
}

/** What {@link createAiSdkCodeModeTools} returns: the AI SDK tools by the names the model sees, a `ToolSet`. */
export type AiSdkCodeModeTools = {
  readonly run_code: AiSdkRunCodeTool;
  readonly search_tools: AiSdkSearchToolsTool;
};

/** The AI SDK output of a rendered outcome: `run_code`'s, and `resume_run`'s. */
export function aiSdkOutput(outcome: RunCodeOutcome): AiSdkRunCodeOutput {
  const output = withImages(structuredOutput(outcome.rendered.text, outcome.result), outcome);
  const durable = outcome.durable;
  if (durable === undefined) return output;
  // The model needs the run's id to ask for it to go on; never the pause token.
  const text =
    durable.status === 'paused'
      ? `${output.text}[sluice] The run id is ${durable.runId}: call resume_run with it to ask the person for their approval; do not run the program again.\n`
      : durable.status === 'stopped'
        ? `${output.text}[sluice] The run id is ${durable.runId}: call resume_run with it to continue the run; do not run the program again.\n`
        : output.text;
  return { ...output, text, durable: { status: durable.status, runId: durable.runId } };
}

export async function buildAiSdkRunCode(
  options: AiSdkRunCodeToolOptions,
): Promise<{ definition: AiSdkRunCodeTool; runCode: RunCodeTool }> {
  const runs = new Map<string, ToolExecutionOptions>();
  const converted = await convertAiSdkTools(options.tools, (runId) => runs.get(runId));
  const runCode: RunCodeTool = createRunCodeTool({
    context: { codeRuntime: options.runtime },
    tools: converted.tools,
    policy: options.policy ?? defaultPolicy(converted.needsApproval),
    ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
    ...(options.declarationsTokenBudget === undefined
      ? {}
      : { declarationsTokenBudget: options.declarationsTokenBudget }),
    ...(options.namespaces === undefined ? {} : { namespaces: options.namespaces }),
    ...(options.loadedTools === undefined ? {} : { loadedTools: options.loadedTools }),
    // Images in a value go to the model as file content (toModelOutput below), as MCP sends them.
    result: { attachImages: true, ...options.result },
    ...(options.durable === undefined ? {} : { durable: options.durable }),
  });
  const definition = tool<RunCodeInput, AiSdkRunCodeOutput>({
    description: runCode.description,
    inputSchema: jsonSchema<RunCodeInput>(runCode.inputSchema as never),
    execute: async (input, execution) => {
      const seen = new Set<string>();
      try {
        const outcome = await runCode.run(input, {
          ...(execution.abortSignal === undefined ? {} : { signal: execution.abortSignal }),
          // The run's id is known from its first event, which comes before its first host call.
          onEvent: (event) => {
            if (seen.has(event.runId)) return;
            seen.add(event.runId);
            runs.set(event.runId, execution);
          },
        });
        return aiSdkOutput(outcome);
      } finally {
        for (const runId of seen) runs.delete(runId);
      }
    },
    toModelOutput: ({ output }) => modelOutput(output),
  });
  // The AI SDK reads a tool's description at every step: a tool loaded by one step's program is declared in the next.
  Object.defineProperty(definition, 'description', {
    get: () => runCode.description,
    enumerable: true,
    configurable: true,
  });
  return { definition, runCode };
}

/**
 * What the model reads of an output: its text, and the images after it as `file-data` content
 * (base64 and a media type: the part both AI SDK 6 and 7 accept).
 */
export function modelOutput(output: AiSdkRunCodeOutput):
  | { type: 'text'; value: string }
  | {
      type: 'content';
      value: Array<{ type: 'text'; text: string } | { type: 'file-data'; data: string; mediaType: string }>;
    } {
  if (output.images === undefined || output.images.length === 0) return { type: 'text', value: output.text };
  return {
    type: 'content',
    value: [
      { type: 'text', text: output.text },
      ...output.images.map((image) => ({ type: 'file-data' as const, data: image.data, mediaType: image.mediaType })),
    ],
  };
}

function withImages(output: AiSdkRunCodeOutput, outcome: RunCodeOutcome): AiSdkRunCodeOutput {
  const images = outcome.images ?? [];
  if (images.length === 0) return output;
  return { ...output, images: images.map((image) => ({ data: image.data, mediaType: image.mimeType })) };
}

function structuredOutput(text: string, result: CodeRunResult | undefined): AiSdkRunCodeOutput {
  if (result === undefined) return { text, ok: false, logs: [], calls: [] };
  const run = { logs: result.logs, calls: result.calls, runId: result.runId, usage: result.usage };
  if (!result.ok) return { text, ok: false, failure: result.failure, ...run };
  return {
    text,
    ok: true,
    ...('value' in result && result.value !== undefined ? { value: result.value } : {}),
    ...run,
  };
}

function defaultPolicy(needsApproval: readonly string[]): PolicyDefinition {
  return {
    default: 'allow',
    rules:
      needsApproval.length === 0
        ? []
        : [
            {
              tool: [...needsApproval],
              effect: 'ask',
              description: 'The tool has needsApproval set in the AI SDK toolset.',
            },
          ],
  };
}
