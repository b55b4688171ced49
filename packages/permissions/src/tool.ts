import type { JsonValue } from '@sluice/code-runtime';

/** What a tool's `execute` learns about the call it serves: the same as a host function's context. */
export interface ToolExecuteContext {
  /** Aborted when the run ends for any reason; thread it into whatever `execute` starts. */
  readonly signal: AbortSignal;
  /** The run that made the call. */
  readonly runId: string;
  /** Unique within the run; the same id as in the run's host-call events and the audit log. */
  readonly callId: string;
  /**
   * The same on every execution of this call of a durable run (`<runId>/<seq>`), absent otherwise:
   * pass it on (an `Idempotency-Key` header, a unique key) so the effect happens once even when a
   * crash makes the call run again. See `HostCallContext.idempotencyKey`.
   */
  readonly idempotencyKey?: string;
}

/** A JSON Schema object, as plain JSON: `{ type: 'object', properties: {...}, required: [...] }`. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * Something a program may be allowed to call. `name` is what policies match and what the audit log
 * records; the program calls it under its binding name (see {@link toolBindingName}).
 */
export interface Tool {
  /** Unique among the tools given to one derive. Any text: `search`, `fs.read-file`, `github__create_issue`. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** A JSON Schema (2020-12 unless `$schema` says draft-07 or 2019-09) every input must satisfy before `execute` runs. */
  readonly inputSchema: JsonSchema;
  /** When present, a JSON Schema every result must satisfy; a result that does not is an error in the program. */
  readonly outputSchema?: JsonSchema;
  /**
   * Who decides whether an input is valid. `'schema'` (default): it must satisfy `inputSchema`, then
   * `parseInput` when present. `'parse-input'`: `inputSchema` only describes the input (for the
   * declarations, positional calls and left-out `null`s) and `parseInput` alone decides; without
   * `parseInput` every input is taken as given. For adapters whose framework does it that way: the AI
   * SDK validates with the tool's own schema only, so a zod object strips a key its JSON Schema forbids.
   */
  readonly inputValidation?: 'schema' | 'parse-input';
  /**
   * When present, the tool's own parse of an input that passed `inputSchema` (or of any input, with
   * `inputValidation: 'parse-input'`): refinements, defaults
   * and transforms the JSON Schema cannot express (a zod schema's, say). Runs after the policy
   * allowed the call and before approval is asked or the decision is logged, so an input it refuses
   * is a `validation` denial. `execute` then gets `value`, which need not be JSON. Must not throw;
   * a throw is taken as a refusal with its message.
   */
  parseInput?(input: JsonValue): Promise<ParsedInput> | ParsedInput;
  /**
   * For durable runs: `'safe'` when running the tool again with the same input does no harm (a
   * read, or an idempotent write), so a call that was in flight when its host died runs again on
   * resume. Absent: such a call is not run again, and the program gets an `interrupted` error.
   */
  readonly replay?: 'safe';
  /** Does the work. Called only for an allowed (and, when asked, approved) call with valid input: the `parseInput` value when the tool has one. */
  execute(input: JsonValue, context: ToolExecuteContext): Promise<JsonValue> | JsonValue;
}

/** What {@link Tool.parseInput} gives: the parsed input, or problems each naming its path (`$.path: must be absolute`). */
export type ParsedInput =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problems: readonly string[] };
