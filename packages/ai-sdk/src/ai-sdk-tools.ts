import type { JsonValue } from '@sluice/code-runtime';
import type { JsonSchema, Tool } from '@sluice/permissions';
import { asSchema, type ToolExecutionOptions, type ToolSet } from 'ai';

/** What a host call needs from the `run_code` call that started the run: the AI SDK's execution options. */
export type ExecutionOptionsLookup = (runId: string) => ToolExecutionOptions | undefined;

/** The AI SDK tools turned into `@sluice/permissions` tools, and the names of those that ask for approval. */
export interface ConvertedTools {
  readonly tools: Tool[];
  /** Tools with `needsApproval` set: the default policy asks before each of their calls. */
  readonly needsApproval: string[];
  /** Tools left out, with why: provider-executed tools and tools without `execute`. */
  readonly leftOut: { readonly name: string; readonly reason: string }[];
}

/**
 * Turns an AI SDK toolset into tools a program may call: each schema is resolved to JSON Schema
 * (zod, Standard Schema and `jsonSchema()` alike), and each call runs the tool's own `execute`
 * with the `run_code` call's messages and context, a tool call id of `<run_code id>/<call id>`, and
 * an abort signal that fires when the run ends. A result goes through JSON as the AI SDK would send
 * it to the model (`undefined` becomes `null`); a streaming tool's last value is its result.
 */
export async function convertAiSdkTools(toolSet: ToolSet, lookup: ExecutionOptionsLookup): Promise<ConvertedTools> {
  const tools: Tool[] = [];
  const needsApproval: string[] = [];
  const leftOut: { name: string; reason: string }[] = [];
  for (const [name, aiTool] of Object.entries(toolSet)) {
    if (aiTool.type === 'provider') {
      leftOut.push({ name, reason: 'it is executed by the model provider, not by this process' });
      continue;
    }
    const execute = aiTool.execute;
    if (typeof execute !== 'function') {
      leftOut.push({ name, reason: 'it has no execute function' });
      continue;
    }
    const inputSchema = (await asSchema(aiTool.inputSchema).jsonSchema) as JsonSchema;
    const outputSchema =
      'outputSchema' in aiTool && aiTool.outputSchema !== undefined
        ? ((await asSchema(aiTool.outputSchema).jsonSchema) as JsonSchema)
        : undefined;
    if (aiTool.needsApproval !== undefined && aiTool.needsApproval !== false) needsApproval.push(name);
    tools.push({
      name,
      description: aiTool.description ?? '',
      inputSchema,
      ...(outputSchema === undefined ? {} : { outputSchema }),
      execute: async (input, context) => {
        const parent = lookup(context.runId);
        const output: unknown = await lastValue(
          execute(input as never, {
            toolCallId: `${parent?.toolCallId ?? 'run_code'}/${context.callId}`,
            messages: parent?.messages ?? [],
            abortSignal: context.signal,
            ...(parent?.experimental_context === undefined
              ? {}
              : { experimental_context: parent.experimental_context }),
          }),
        );
        return asJson(output);
      },
    });
  }
  return { tools, needsApproval, leftOut };
}

async function lastValue(output: unknown): Promise<unknown> {
  const value = await output;
  if (typeof value === 'object' && value !== null && Symbol.asyncIterator in value) {
    let last: unknown;
    for await (const item of value as AsyncIterable<unknown>) last = item;
    return last;
  }
  return value;
}

function asJson(value: unknown): JsonValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}
