import type { JsonValue } from '@sluice/code-runtime';
import type { SchemaCheck } from './schema-validator.js';
import type { JsonSchema } from './tool.js';

/**
 * @internal Takes a `null` given for an optional property as that property left out, when the
 * schema refuses the `null` and accepts the input without it: `issues.list(cursor=None)` in Python,
 * `{ cursor: null }` in TypeScript, the way function-calling APIs spell "not given". Only top-level
 * properties the schema does not list in `required` are dropped, and only when the input as given
 * fails and the input without them passes; otherwise the input is returned as given, so the
 * validation error names what is wrong. See docs/decisions/2026-11-30-calling-conventions.md.
 */
export function dropRefusedNulls(schema: JsonSchema, check: SchemaCheck, input: JsonValue): JsonValue {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const nulls = Object.keys(input).filter((key) => input[key] === null && !required.includes(key));
  if (nulls.length === 0 || check(input) === undefined) return input;
  const without: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(input)) if (!nulls.includes(key)) without[key] = value;
  return check(without) === undefined ? without : input;
}
