import { describeJsonViolation, type JsonValue, toJsonValue } from '@sluice/code-runtime';
import type { JsonSchema, Tool } from '@sluice/permissions';
import type { ToolExecutionOptions, ToolSet } from 'ai';
import { parseWithSchema, resolveSchema } from './ai-sdk-schema.js';

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
 * (zod, Standard Schema and `jsonSchema()` alike) for the declarations, and each input is validated
 * only by the tool's own schema, exactly as the AI SDK does before `execute`: zod's defaults,
 * transforms and refinements hold, an unknown key a zod object strips is stripped, a `jsonSchema()`
 * without `validate` takes the input as given, and a refused input is an error in the program naming
 * the path and the problem. `execute` gets the parsed input and the `run_code` call's execution
 * options (messages, and `experimental_context` in ai 6 or `context` in ai 7), with a tool call id
 * of `<run_code id>/<call id>` and an abort signal that fires when the run ends. A result goes
 * through JSON as the AI SDK would send it to the model (`undefined` becomes `null`); a streaming
 * tool's last value is its result. The parse runs as the tool's `parseInput`, so a refused input is
 * a `validation` denial, before approval is asked. Throws `InvalidRequestError` naming the tool for
 * a schema the AI SDK cannot convert.
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
    const input = await resolveSchema(name, 'inputSchema', aiTool.inputSchema);
    const outputSchema: JsonSchema | undefined =
      'outputSchema' in aiTool && aiTool.outputSchema !== undefined
        ? (await resolveSchema(name, 'outputSchema', aiTool.outputSchema)).jsonSchema
        : undefined;
    if (aiTool.needsApproval !== undefined && aiTool.needsApproval !== false) needsApproval.push(name);
    tools.push({
      name,
      description: aiTool.description ?? '',
      inputSchema: input.jsonSchema,
      ...(outputSchema === undefined ? {} : { outputSchema }),
      // As the AI SDK: only the tool's own schema validates (the JSON Schema, which the AI SDK gives
      // `additionalProperties: false` for the model, would refuse a key zod strips), and a schema
      // without `validate` takes the input as given. It parses before approval is asked and the
      // decision logged, so a refinement's refusal is a validation denial; execute gets the parsed value.
      inputValidation: 'parse-input',
      parseInput: (given) => parseWithSchema(input.schema, given),
      execute: async (parsed, context) => {
        const parent = lookup(context.runId);
        // Every execution option of the run_code call is passed on (ai 6's experimental_context, ai 7's
        // context and sandbox), but the call id and the abort signal are this call's own.
        const options: ToolExecutionOptions = {
          messages: [],
          ...parent,
          toolCallId: `${parent?.toolCallId ?? 'run_code'}/${context.callId}`,
          abortSignal: context.signal,
        };
        const output: unknown = await lastValue(execute(parsed as never, options), context.signal);
        return asJson(output);
      },
    });
  }
  return { tools, needsApproval, leftOut };
}

/**
 * The tool's result: its value, or a streaming tool's last value. A stream is read only while
 * `signal` (the run's) is live: when the run ends, the stream is told to stop (`return()`) and
 * reading ends with the run's reason.
 */
async function lastValue(output: unknown, signal: AbortSignal): Promise<unknown> {
  const value = await output;
  if (typeof value !== 'object' || value === null || !(Symbol.asyncIterator in value)) return value;
  const iterator = (value as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  let stop!: (reason: unknown) => void;
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  stopped.catch(() => {});
  const onAbort = () => stop(new Error(`The run ended (${String(signal.reason)}) while the tool was still streaming.`));
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  let last: unknown;
  try {
    for (;;) {
      const step = await Promise.race([iterator.next(), stopped]);
      if (step.done) return last;
      last = step.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // The tool's own code: a `return` that throws, or a getter that does, must not escape the run.
    if (signal.aborted)
      void Promise.resolve()
        .then(() => iterator.return?.())
        .catch(() => {});
  }
}

/** How far an iterator in a tool's result is read (UTF-16 units): the run's per-call budget then applies. */
const resultReadLimit = 8 * 1024 * 1024;

/**
 * The tool's result as JSON: first by the boundary's table (`toJsonValue`: a `Map` an object, a
 * `Set` or generator an array, an `Error` `{ error }`, a `Date` its ISO string), then as the AI
 * SDK sends it (`JSON.stringify`: a class instance as its own enumerable properties). Throws for what
 * the table refuses (a Map key that is an object, an iterator that throws, more than 8 MiB read).
 */
function asJson(value: unknown): JsonValue {
  const converted = toJsonValue(value, { limitBytes: resultReadLimit });
  if (!converted.ok) {
    throw new Error(
      'violation' in converted
        ? `The tool returned a value that is not JSON: ${describeJsonViolation(converted.violation)}.`
        : `The tool returned more than ${resultReadLimit} bytes of JSON; an iterator in its result is read only that far.`,
    );
  }
  const text = JSON.stringify(converted.value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}
