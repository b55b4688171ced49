import {
  type CodeRunResult,
  type JsonObject,
  type JsonValue,
  utf8ByteLength,
  wellFormedText,
} from '@sluice/code-runtime';

/**
 * A run's result as data, for clients that read structured output (MCP `structuredContent`, an AI
 * SDK tool's output), as {@link runCodeOutputSchema} declares it. `value`, `logs` and `calls` are
 * left out when they would not fit the result's token budget; `cut` then says so, and the text
 * (with `outputId`, when the model can page) holds what there is.
 */
export interface RunCodeStructuredResult {
  readonly ok: boolean;
  readonly runId: string;
  /** What the program returned, images replaced by notes (they are sent as images). Absent when it returned nothing. */
  readonly value?: JsonValue;
  /** Why the run failed: its kind (`exception`, `timeout`, …) and message. */
  readonly failure?: { readonly kind: string; readonly message: string };
  readonly logs?: readonly { readonly level: string; readonly text: string }[];
  readonly logsTruncated: boolean;
  /** Every host call, in order: the tool as `namespace.name`, how it ended, and the error it gave. */
  readonly calls?: readonly {
    readonly callId: string;
    readonly tool: string;
    readonly ok: boolean;
    readonly ms: number;
    readonly error?: string;
  }[];
  readonly usage: { readonly wallMs: number; readonly cpuMs?: number; readonly hostCalls: number };
  /** Present when `value`, `logs` and `calls` were left out to keep under the token budget. */
  readonly cut?: true;
  /** The id to page through the full text with the paging tool, when the result was cut and the model has one. */
  readonly outputId?: string;
}

/** The JSON Schema of {@link RunCodeStructuredResult}: `run_code`'s output schema. */
export const runCodeOutputSchema: JsonObject = {
  type: 'object',
  properties: {
    ok: { type: 'boolean', description: 'Whether the program finished and returned.' },
    runId: { type: 'string' },
    value: { description: 'What the program returned (absent when nothing); images are sent as image content.' },
    failure: {
      type: 'object',
      properties: { kind: { type: 'string' }, message: { type: 'string' } },
      required: ['kind', 'message'],
    },
    logs: {
      type: 'array',
      items: {
        type: 'object',
        properties: { level: { type: 'string' }, text: { type: 'string' } },
        required: ['level', 'text'],
      },
    },
    logsTruncated: { type: 'boolean' },
    calls: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          callId: { type: 'string' },
          tool: { type: 'string' },
          ok: { type: 'boolean' },
          ms: { type: 'number' },
          error: { type: 'string' },
        },
        required: ['callId', 'tool', 'ok', 'ms'],
      },
    },
    usage: {
      type: 'object',
      properties: { wallMs: { type: 'number' }, cpuMs: { type: 'number' }, hostCalls: { type: 'integer' } },
      required: ['wallMs', 'hostCalls'],
    },
    cut: { const: true, description: 'value, logs and calls were left out to fit the token budget; read the text.' },
    outputId: { type: 'string', description: 'The id to read the full text with read_output.' },
  },
  required: ['ok', 'runId', 'logsTruncated', 'usage'],
};

/**
 * {@link RunCodeStructuredResult} of `result`, whose `value` has had its images taken (see
 * `takeImages`). Text is well-formed Unicode. Past `maxBytes` of JSON, `value`, `logs` and `calls`
 * are left out and `cut` is set.
 */
export function structuredResult(
  result: CodeRunResult,
  options: { readonly value: JsonValue | undefined; readonly maxBytes: number; readonly outputId?: string | undefined },
): RunCodeStructuredResult {
  const usage = {
    wallMs: Math.round(result.usage.wallMs),
    ...(result.usage.cpuMs === undefined ? {} : { cpuMs: Math.round(result.usage.cpuMs) }),
    hostCalls: result.usage.hostCalls,
  };
  const base = {
    ok: result.ok,
    runId: result.runId,
    ...(result.ok ? {} : { failure: { kind: result.failure.kind, message: wellFormedText(result.failure.message) } }),
    logsTruncated: result.logsTruncated,
    usage,
    ...(options.outputId === undefined ? {} : { outputId: options.outputId }),
  };
  const full: RunCodeStructuredResult = {
    ...base,
    ...(options.value === undefined ? {} : { value: options.value }),
    logs: result.logs.map((entry) => ({ level: entry.level, text: wellFormedText(entry.text) })),
    calls: result.calls.map((call) => ({
      callId: call.callId,
      tool: `${call.namespace}.${call.name}`,
      ok: call.ok,
      ms: Math.round(call.ms),
      ...(call.error === undefined ? {} : { error: wellFormedText(call.error) }),
    })),
  };
  if (utf8ByteLength(JSON.stringify(full)) <= options.maxBytes) return full;
  return { ...base, cut: true };
}
