import { type JsonSchema, stableStringify } from './schema-model.js';
import { isSchemaObject, resolvePointer, type SchemaObject } from './schema-pointer.js';

/** A property's doc comment: its description (or its `$ref` target's), then format, default and bounds, one sentence each. */
export function propertyDoc(root: JsonSchema, schema: unknown): string | undefined {
  if (!isSchemaObject(schema)) return undefined;
  const target = typeof schema.$ref === 'string' ? resolvePointer(root, schema.$ref) : undefined;
  const text = describedText(schema) ?? (isSchemaObject(target) ? describedText(target) : undefined);
  const notes: string[] = text === undefined ? [] : [/[.!?]$/.test(text) ? text : `${text}.`];
  const fact = (label: string, value: unknown) => {
    if (value !== undefined) notes.push(`${label}: ${typeof value === 'string' ? value : stableStringify(value)}.`);
  };
  fact('Format', schema.format);
  if (schema.default !== undefined) notes.push(`Default: ${stableStringify(schema.default)}.`);
  fact('Minimum', schema.minimum);
  fact('Maximum', schema.maximum);
  fact('Greater than', typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined);
  fact('Less than', typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : undefined);
  fact('Min length', schema.minLength);
  fact('Max length', schema.maxLength);
  fact('Pattern', schema.pattern);
  fact('Min items', schema.minItems);
  fact('Max items', schema.maxItems);
  if (schema.deprecated === true) notes.push('Deprecated.');
  return notes.length > 0 ? notes.join(' ') : undefined;
}

function describedText(schema: SchemaObject): string | undefined {
  for (const key of ['description', 'title']) {
    const value = schema[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim().replace(/\s+/g, ' ');
  }
  return undefined;
}
