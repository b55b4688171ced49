import type { JsonSchema } from './schema-model.js';

/** A JSON Schema object, keyword by keyword. */
export type SchemaObject = { readonly [keyword: string]: unknown };

/** Whether `value` is a schema object (not `true`/`false`, not an array). */
export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value a local `$ref` (`#`, `#/$defs/Name`, JSON Pointer escapes and percent-encoding) points at in `root`, if any. */
export function resolvePointer(root: JsonSchema, reference: string): unknown {
  if (!reference.startsWith('#')) return undefined;
  const pointer = reference.slice(1);
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** Pushes onto `into` every local `$ref` found anywhere inside `value`. */
export function collectReferences(value: unknown, into: string[]): void {
  if (Array.isArray(value)) for (const item of value) collectReferences(item, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#')) into.push(child);
      else collectReferences(child, into);
    }
  }
}
