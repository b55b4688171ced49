import type { RunCodeDurableOptions, RunCodeTool } from '@sluice/code-mode';
import { wellFormedText } from '@sluice/code-runtime';
import type { DurablePause } from '@sluice/durable';
import { jsonSchema, type Tool, tool } from 'ai';
import {
  type AiSdkCodeModeTools,
  type AiSdkRunCodeOutput,
  type AiSdkRunCodeToolOptions,
  aiSdkOutput,
  buildAiSdkRunCode,
  modelOutput,
} from './ai-sdk-run-code-tool.js';
import { createSearchToolsTool } from './ai-sdk-search-tools.js';

/** What the model sends to `resume_run`: the id a paused `run_code` result named. */
export interface AiSdkResumeRunInput {
  readonly run_id: string;
}

/** The AI SDK tool that continues a paused durable run once a person approved it through the AI SDK's approval flow. */
export type AiSdkResumeRunTool = Tool<AiSdkResumeRunInput, AiSdkRunCodeOutput>;

/** What {@link createAiSdkDurableCodeMode} returns. */
export interface AiSdkDurableCodeMode {
  /** `run_code`, `search_tools` and `resume_run`, by the names the model sees: spread into `generateText({ tools })`. */
  readonly tools: AiSdkCodeModeTools & { readonly resume_run: AiSdkResumeRunTool };
  /**
   * The call a paused run waits on (tool, binding, arguments, reason, expiry, token), to show the
   * person when the AI SDK asks to approve `resume_run` for that run; `undefined` when none waits.
   */
  pendingApproval(runId: string): Promise<DurablePause | undefined>;
  /**
   * Denies the waiting call of a paused run (the AI SDK's denial of `resume_run` does not reach the
   * program): the run goes on with the denial as an error from that call. Resolves with its output.
   */
  deny(runId: string, reason?: string): Promise<AiSdkRunCodeOutput>;
  /**
   * For a host that stops (a deploy, SIGTERM): lets every durable run in flight go unfinished and
   * resumable — their `run_code` results say `stopped`, and `resume_run` from this or another
   * process continues them — and resolves once they have. Only the generation's own `abortSignal`
   * finishes a run as `abort`. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Code mode with durable runs for the AI SDK. `run_code` journals every call of a program to
 * `durable.store`; a call the policy `ask`s about (by default, a tool with `needsApproval`) pauses
 * the run, and the model reads that it waits for a person, with its run id. `resume_run` — which
 * has `needsApproval: true` — is how the model asks to go on: the AI SDK's own approval flow then asks
 * the person (`tool-approval-request`; show them {@link AiSdkDurableCodeMode.pendingApproval}), and
 * an approved `resume_run` allows the waiting call and continues the run by replay, from this process
 * or another over the same store. A finished run's `resume_run` gives its output again.
 */
export async function createAiSdkDurableCodeMode(
  options: AiSdkRunCodeToolOptions & { readonly durable: RunCodeDurableOptions },
): Promise<AiSdkDurableCodeMode> {
  const { definition, runCode } = await buildAiSdkRunCode(options);
  const { store } = options.durable;
  const waiting = async (runId: string) =>
    (await store.listPauses(runId)).find((pause) => pause.decision === undefined);
  const pendingApproval = async (runId: string): Promise<DurablePause | undefined> => {
    const pause = await waiting(runId);
    if (pause === undefined) return undefined;
    const { token, tool: name, input, reason, expiresAt } = pause;
    return { token, tool: name, binding: name, input, reason, expiresAt };
  };
  const resumeRun: AiSdkResumeRunTool = tool<AiSdkResumeRunInput, AiSdkRunCodeOutput>({
    description:
      "Continue a durable run_code run that paused for a person's approval, by the run id its result named. The person is asked to approve first; once they do, the run goes on from where it stopped and its result comes back. Never run the program again instead.",
    inputSchema: jsonSchema<AiSdkResumeRunInput>({
      type: 'object',
      properties: { run_id: { type: 'string', description: 'The run id the paused run_code result named.' } },
      required: ['run_id'],
      additionalProperties: false,
    }),
    needsApproval: true,
    execute: async (input, execution) => {
      const signal = execution.abortSignal === undefined ? {} : { signal: execution.abortSignal };
      try {
        const pause = await waiting(String(input?.run_id));
        const outcome =
          pause === undefined
            ? await runCode.resume(String(input?.run_id), signal)
            : await runCode.decide(pause.token, { decision: 'allow' }, signal);
        return aiSdkOutput(outcome);
      } catch (error) {
        return notResumed(error);
      }
    },
    toModelOutput: ({ output }) => modelOutput(output),
  });
  return {
    tools: { run_code: definition, search_tools: createSearchToolsTool(runCode), resume_run: resumeRun },
    pendingApproval,
    deny: async (runId, reason) => deny(runCode, await waiting(runId), runId, reason),
    close: () => runCode.close(),
  };
}

async function deny(
  runCode: RunCodeTool,
  pause: { readonly token: string } | undefined,
  runId: string,
  reason: string | undefined,
): Promise<AiSdkRunCodeOutput> {
  if (pause === undefined) return notResumed(`Run ${runId} waits for no decision.`);
  try {
    const decision = { decision: 'deny' as const, ...(reason === undefined ? {} : { reason }) };
    return aiSdkOutput(await runCode.decide(pause.token, decision));
  } catch (error) {
    return notResumed(error);
  }
}

function notResumed(error: unknown): AiSdkRunCodeOutput {
  const message = error instanceof Error ? error.message : String(error);
  return { text: wellFormedText(`[resume_run] not run: ${message}\n`), ok: false, logs: [], calls: [] };
}
