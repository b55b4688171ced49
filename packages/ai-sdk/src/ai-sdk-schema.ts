import { foreignText, InvalidRequestError } from '@sluice/code-runtime';
import type { JsonSchema } from '@sluice/permissions';
import { asSchema, type Schema } from 'ai';

/** Which schema of a tool: what the model sends, or what `execute` returns. */
export type SchemaRole = 'inputSchema' | 'outputSchema';

/** A tool's own schema, as the AI SDK reads it, and its JSON Schema form. */
export interface ResolvedSchema {
  readonly schema: Schema<unknown>;
  readonly jsonSchema: JsonSchema;
}

const fixes: Readonly<Record<SchemaRole, string>> = {
  inputSchema:
    'Describe the input as the JSON a program sends: a date as z.iso.datetime(), or z.string().transform(...) to hand execute a Date',
  outputSchema:
    'Describe the result as it reaches the program, after JSON: a date as z.iso.datetime() (a Date becomes its ISO string), or leave outputSchema out',
};

/**
 * Reads a tool's schema with the AI SDK's own `asSchema` (zod, Standard Schema, `jsonSchema()`)
 * and resolves its JSON Schema. Throws `InvalidRequestError` naming the tool, the schema and the
 * fix when the AI SDK cannot read or convert it (a `z.date()`, a custom type); `field` is
 * `tools.<name>.<role>`.
 */
export async function resolveSchema(toolName: string, role: SchemaRole, source: unknown): Promise<ResolvedSchema> {
  try {
    const schema = asSchema(source as Parameters<typeof asSchema>[0]) as Schema<unknown>;
    const jsonSchema = (await schema.jsonSchema) as JsonSchema;
    if (typeof jsonSchema !== 'object' || jsonSchema === null) throw new TypeError('it resolved to no JSON Schema');
    return { schema, jsonSchema };
  } catch (error) {
    throw new InvalidRequestError({
      message: `Tool ${JSON.stringify(toolName)}: its ${role} cannot be converted to JSON Schema (${foreignText(error, 512)}). ${fixes[role]}.`,
      field: `tools.${toolName}.${role}`,
      cause: error,
    });
  }
}

/** What {@link parseWithSchema} gives: the parsed value (defaults filled, transforms applied), or the problems. */
export type ParseOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problems: readonly string[] };

const maxProblems = 5;
const maxProblemBytes = 512;

/**
 * Runs the schema's own `validate` (zod's `safeParseAsync`, a Standard Schema's `validate`, the
 * `validate` given to `jsonSchema()`), so refinements, transforms and defaults behave as when the AI
 * SDK calls the tool. A schema without `validate` passes the value through. A validator that throws
 * is a problem, not a crash. Problems are `$.path: message`, at most five.
 */
export async function parseWithSchema(schema: Schema<unknown>, value: unknown): Promise<ParseOutcome> {
  if (typeof schema.validate !== 'function') return { ok: true, value };
  let result: Awaited<ReturnType<NonNullable<Schema<unknown>['validate']>>>;
  try {
    result = await schema.validate(value);
  } catch (error) {
    return { ok: false, problems: readProblems(error) };
  }
  if (result.success) return { ok: true, value: result.value };
  return { ok: false, problems: readProblems(result.error) };
}

/**
 * The issues inside a validation error, each as `$.path: message`: a ZodError's `issues`, or a
 * Standard Schema issue list in `cause` (as the AI SDK wraps it). Anything else is its text. Never
 * throws: every read of the foreign error is guarded.
 */
export function readProblems(error: unknown): string[] {
  const issues = findIssues(error);
  if (issues === undefined) return [foreignText(error, maxProblemBytes)];
  const problems: string[] = [];
  for (const issue of issues.slice(0, maxProblems)) {
    const message = attempt(() => (issue as { message?: unknown }).message);
    const path = attempt(() => (issue as { path?: unknown }).path);
    const text = typeof message === 'string' && message !== '' ? message : 'is invalid';
    problems.push(foreignText(`${issuePath(path)}: ${text}`, maxProblemBytes));
  }
  if (issues.length > maxProblems) problems.push(`and ${issues.length - maxProblems} more`);
  return problems.length === 0 ? [foreignText(error, maxProblemBytes)] : problems;
}

function findIssues(error: unknown): readonly unknown[] | undefined {
  // The issues are on the error (ZodError), in its cause (Standard Schema through the AI SDK), or one
  // level further when the AI SDK wrapped the error again; never deeper.
  let current: unknown = error;
  for (let depth = 0; depth < 3; depth += 1) {
    if (Array.isArray(current)) return current;
    if (typeof current !== 'object' || current === null) return undefined;
    const issues = attempt(() => (current as { issues?: unknown }).issues);
    if (Array.isArray(issues)) return issues;
    current = attempt(() => (current as { cause?: unknown }).cause);
  }
  return undefined;
}

/** `['items', 0, 'name']` (or Standard Schema's `{ key }` segments) as `$.items[0].name`. */
function issuePath(path: unknown): string {
  let text = '$';
  if (!Array.isArray(path)) return text;
  for (const raw of path.slice(0, 32)) {
    const segment = typeof raw === 'object' && raw !== null ? attempt(() => (raw as { key?: unknown }).key) : raw;
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string')
      text += /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
    else text += '[?]';
  }
  return text;
}

function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
