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
  switch (schema.kind) {
    case 'string':
      if (typeof value !== 'string') return `${path} is not a string`;
      if (schema.maxLength !== undefined && value.length > schema.maxLength) return `${path} is too long`;
      if (schema.pattern !== undefined && !schema.pattern.test(value)) return `${path} is malformed`;
      return undefined;
    case 'literal':
      return schema.values.includes(value as string) ? undefined : `${path} is not one of ${schema.values.join(', ')}`;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && value >= schema.min && value <= schema.max
        ? undefined
        : `${path} is not an integer from ${schema.min} to ${schema.max}`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && value >= schema.min
        ? undefined
        : `${path} is not a number of at least ${schema.min}`;
    case 'null':
      return value === null ? undefined : `${path} is not null`;
    case 'json':
      return depthOver(value, depthLimit) ? `${path} is nested deeper than ${depthLimit} levels` : undefined;
    case 'array': {
      if (!Array.isArray(value)) return `${path} is not an array`;
      if (value.length > schema.maxItems) return `${path} has more than ${schema.maxItems} items`;
      for (let index = 0; index < value.length; index += 1) {
        const problem = wireProblem(value[index], schema.items, depthLimit, `${path}[${index}]`);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${path} is not an object`;
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        if (!Object.hasOwn(schema.fields, key)) return `${path} has an unknown field ${JSON.stringify(key)}`;
      }
      for (const [name, field] of Object.entries(schema.fields)) {
        if (!Object.hasOwn(record, name)) {
          if (field.optional) continue;
          return `${path} lacks the field ${JSON.stringify(name)}`;
        }
        const problem = wireProblem(record[name], field.schema, depthLimit, `${path}.${name}`);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    case 'union': {
      let first: string | undefined;
      for (const option of schema.options) {
        const problem = wireProblem(value, option, depthLimit, path);
        if (problem === undefined) return undefined;
        first ??= problem;
      }
      return first;
    }
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
