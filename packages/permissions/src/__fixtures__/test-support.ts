import type { Bindings, JsonValue } from '@sluice/code-runtime';
import type { Tool } from '../tool.js';

let nextCall = 0;

/** Calls a derived host function the way a provider does, with a fresh call id. */
export async function callBinding(
  bindings: Bindings,
  binding: string,
  input: JsonValue,
  options: { runId?: string; signal?: AbortSignal } = {},
): Promise<JsonValue> {
  const [namespace, name] = binding.split('.') as [string, string];
  const fn = bindings[namespace]?.[name];
  if (fn === undefined) throw new Error(`no binding ${binding}`);
  nextCall += 1;
  return fn(input, {
    runId: options.runId ?? 'run-1',
    callId: `call-${nextCall}`,
    signal: options.signal ?? new AbortController().signal,
  });
}

/** A tool that records its calls and echoes its input. */
export function recordingTool(name: string, inputSchema: Tool['inputSchema'] = { type: 'object' }) {
  const calls: JsonValue[] = [];
  const tool: Tool = {
    name,
    description: `test tool ${name}`,
    inputSchema,
    execute: (input) => {
      calls.push(input);
      return { echoed: input };
    },
  };
  return { tool, calls };
}
