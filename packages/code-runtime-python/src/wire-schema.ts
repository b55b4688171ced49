/**
 * A closed-schema validator for frames decoded from JSON: every field known, typed and bounded; no
 * extra fields; values nested at most a fixed depth. Small on purpose: frames are few and flat.
 */
export type WireSchema =
  | { readonly kind: 'string'; readonly maxLength?: number; readonly pattern?: RegExp }
  | { readonly kind: 'literal'; readonly values: readonly (string | number | boolean)[] }
  | { readonly kind: 'integer'; readonly min: number; readonly max: number }
  | { readonly kind: 'number'; readonly min: number }
  | { readonly kind: 'null' }
  | { readonly kind: 'json' }
  | { readonly kind: 'array'; readonly items: WireSchema; readonly maxItems: number }
  | { readonly kind: 'object'; readonly fields: Readonly<Record<string, WireField>> }
  | { readonly kind: 'union'; readonly options: readonly WireSchema[] };

/** One field of an object schema. */
export interface WireField {
  readonly schema: WireSchema;
  readonly optional?: boolean;
}

/** Shorthands for building schemas. */
export const wire = {
  string: (maxLength?: number, pattern?: RegExp): WireSchema => ({
    kind: 'string',
    ...(maxLength === undefined ? {} : { maxLength }),
    ...(pattern === undefined ? {} : { pattern }),
  }),
  literal: (...values: (string | number | boolean)[]): WireSchema => ({ kind: 'literal', values }),
  integer: (min: number, max = Number.MAX_SAFE_INTEGER): WireSchema => ({ kind: 'integer', min, max }),
  number: (min = 0): WireSchema => ({ kind: 'number', min }),
  null: { kind: 'null' } as WireSchema,
  json: { kind: 'json' } as WireSchema,
  array: (items: WireSchema, maxItems: number): WireSchema => ({ kind: 'array', items, maxItems }),
  object: (fields: Record<string, WireSchema | WireField>): WireSchema => ({
    kind: 'object',
    fields: Object.fromEntries(
      Object.entries(fields).map(([name, field]) => [name, 'schema' in field ? field : { schema: field }]),
    ),
  }),
  optional: (schema: WireSchema): WireField => ({ schema, optional: true }),
  union: (...options: WireSchema[]): WireSchema => ({ kind: 'union', options }),
};

/** Why `value` does not match `schema`, as a short phrase naming the path, or `undefined` when it does. */
export function wireProblem(value: unknown, schema: WireSchema, depthLimit: number, path = '$'): string | undefined {
  const found = mismatch(value, schema, depthLimit);
  if (found === undefined) return undefined;
  return `${path}${found.where.reverse().join('')} ${describe(found, depthLimit)}`;
}

/**
 * Where and why a value first fails its schema. Nothing is formatted until a frame is refused: a
 * well-formed frame (every frame of every run) costs no strings, and a union's failed options cost
 * one small object each.
 */
interface Mismatch {
  readonly schema: WireSchema;
  readonly reason: 'type' | 'too-long' | 'malformed' | 'too-many' | 'unknown-field' | 'missing-field' | 'value';
  readonly key?: string;
  /** Path segments from the failing value up to the root (reversed when formatted). */
  readonly where: string[];
}

function mismatch(value: unknown, schema: WireSchema, depthLimit: number): Mismatch | undefined {
  switch (schema.kind) {
    case 'string':
      if (typeof value !== 'string') return { schema, reason: 'type', where: [] };
      if (schema.maxLength !== undefined && value.length > schema.maxLength)
        return { schema, reason: 'too-long', where: [] };
      if (schema.pattern !== undefined && !schema.pattern.test(value))
        return { schema, reason: 'malformed', where: [] };
      return undefined;
    case 'literal':
      return schema.values.includes(value as string) ? undefined : { schema, reason: 'value', where: [] };
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && value >= schema.min && value <= schema.max
        ? undefined
        : { schema, reason: 'value', where: [] };
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && value >= schema.min
        ? undefined
        : { schema, reason: 'value', where: [] };
    case 'null':
      return value === null ? undefined : { schema, reason: 'value', where: [] };
    case 'json':
      return depthOver(value, depthLimit) ? { schema, reason: 'value', where: [] } : undefined;
    case 'array': {
      if (!Array.isArray(value)) return { schema, reason: 'type', where: [] };
      if (value.length > schema.maxItems) return { schema, reason: 'too-many', where: [] };
      for (let index = 0; index < value.length; index += 1) {
        const found = mismatch(value[index], schema.items, depthLimit);
        if (found !== undefined) {
          found.where.push(`[${index}]`);
          return found;
        }
      }
      return undefined;
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return { schema, reason: 'type', where: [] };
      const record = value as Record<string, unknown>;
      const { fields } = schema;
      for (const key of Object.keys(record)) {
        if (!Object.hasOwn(fields, key)) return { schema, reason: 'unknown-field', key, where: [] };
      }
      for (const name in fields) {
        const field = fields[name]!;
        if (!Object.hasOwn(record, name)) {
          if (field.optional) continue;
          return { schema, reason: 'missing-field', key: name, where: [] };
        }
        const found = mismatch(record[name], field.schema, depthLimit);
        if (found !== undefined) {
          found.where.push(`.${name}`);
          return found;
        }
      }
      return undefined;
    }
    case 'union': {
      let first: Mismatch | undefined;
      for (const option of schema.options) {
        const found = mismatch(value, option, depthLimit);
        if (found === undefined) return undefined;
        first ??= found;
      }
      return first;
    }
  }
}

function describe({ schema, reason, key }: Mismatch, depthLimit: number): string {
  if (reason === 'too-long') return 'is too long';
  if (reason === 'malformed') return 'is malformed';
  if (reason === 'unknown-field') return `has an unknown field ${JSON.stringify(key)}`;
  if (reason === 'missing-field') return `lacks the field ${JSON.stringify(key)}`;
  switch (schema.kind) {
    case 'string':
      return 'is not a string';
    case 'literal':
      return `is not one of ${schema.values.join(', ')}`;
    case 'integer':
      return `is not an integer from ${schema.min} to ${schema.max}`;
    case 'number':
      return `is not a number of at least ${schema.min}`;
    case 'null':
      return 'is not null';
    case 'json':
      return `is nested deeper than ${depthLimit} levels`;
    case 'array':
      return reason === 'too-many' ? `has more than ${schema.maxItems} items` : 'is not an array';
    default:
      return 'is not an object';
  }
}

/** Whether a value decoded by `JSON.parse` nests arrays and objects deeper than `limit`. Iterative. */
export function depthOver(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}
