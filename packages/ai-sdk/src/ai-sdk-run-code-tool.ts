import { createRunCodeTool, type RenderResultOptions, type RunCodeInput, type RunCodeTool } from '@sluice/code-mode';
import type { CodeRuntime } from '@sluice/code-runtime';
import type { DeriveBindingsOptions, PolicyDefinition, PolicySource } from '@sluice/permissions';
import { jsonSchema, type Tool, type ToolExecutionOptions, type ToolSet, tool } from 'ai';
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
  /** Estimated tokens the declarations may take before they list only names (code-mode's default when absent). */
  readonly declarationsTokenBudget?: number;
  /** How results are rendered for the model: token budget and spill directory. */
  readonly result?: RenderResultOptions;
}

/** The AI SDK tool {@link createAiSdkRunCodeTool} returns: a program in, the rendered result out. */
export type AiSdkRunCodeTool = Tool<RunCodeInput, string>;

/**
 * One AI SDK tool, `run_code`, that lets the model call a whole toolset from a program: its
 * description carries the declarations of `tools` in the runtime's language, and each call the
 * program makes runs the tool's own `execute`, decided by the policy when it is made. Cancelling
 * the generation (`abortSignal`) cancels the run. Tools executed by the provider, or without
 * `execute`, are left out. Throws for misuse only: malformed tools, colliding names, bad options.
 */
export async function createAiSdkRunCodeTool(options: AiSdkRunCodeToolOptions): Promise<AiSdkRunCodeTool> {
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
    ...(options.result === undefined ? {} : { result: options.result }),
  });
  return tool<RunCodeInput, string>({
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
        return outcome.rendered.text;
      } finally {
        for (const runId of seen) runs.delete(runId);
      }
    },
    toModelOutput: ({ output }) => ({ type: 'text', value: output }),
  });
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
