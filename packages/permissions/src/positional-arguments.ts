import type { JsonObject, JsonValue } from '@sluice/code-runtime';
import type { JsonSchema } from './tool.js';

/** @internal A positional call mapped to the tool's input, or the sentence refusing it. */
export type PositionalMapping = { readonly input: JsonValue } | { readonly problem: string };

/**
 * @internal Maps a positional call (`context.positional`) to the object the tool's input schema
 * describes: `n` arguments take the first `n` properties in declared order when `n` is the number of
 * required properties or of all of them, and the required-first order agrees (one reading). Properties
 * given by keyword (Python) are taken out first. A schema without `properties` takes the value as a
 * plain host function does. See docs/decisions/2026-11-30-calling-conventions.md.
 */
export function mapPositional(
  schema: JsonSchema,
  binding: string,
  input: JsonValue,
  positional: readonly JsonValue[],
): PositionalMapping {
  const keywords = isObject(input) ? input : undefined;
  const properties = schema.properties;
  if (!isObject(properties)) {
    if (keywords === undefined) return { input };
    return { problem: `${binding} takes one JSON value or keyword arguments, not both; pass one of them.` };
  }
  const declared = Object.keys(properties).filter((key) => keywords === undefined || !Object.hasOwn(keywords, key));
  const requiredList = Array.isArray(schema.required) ? schema.required : [];
  const required = new Set(declared.filter((key) => requiredList.includes(key)));
  const requiredFirst = [
    ...declared.filter((key) => required.has(key)),
    ...declared.filter((key) => !required.has(key)),
  ];
  const count = positional.length;
  const fix = `pass one object instead, e.g. ${binding}(${sketch(requiredFirst.length > 0 ? requiredFirst : declared)})`;
  if (count !== required.size && count !== declared.length) {
    return { problem: `${binding} got ${plural(count)}; ${takes(declared, required, keywords)}: ${fix}.` };
  }
  const byDeclared = declared.slice(0, count);
  const byRequired = requiredFirst.slice(0, count);
  if (byDeclared.some((key, index) => key !== byRequired[index])) {
    return {
      problem:
        `${binding} with ${plural(count)} has two readings: ${shown(byDeclared, positional, keywords)} ` +
        `(properties in declared order) or ${shown(byRequired, positional, keywords)} (required properties first); ${fix}.`,
    };
  }
  return { input: assign(byDeclared, positional, keywords) };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function assign(keys: readonly string[], values: readonly JsonValue[], keywords: JsonObject | undefined): JsonObject {
  const mapped: Record<string, JsonValue> = { ...keywords };
  keys.forEach((key, index) => {
    mapped[key] = values[index]!;
  });
  return mapped;
}

function shown(keys: readonly string[], values: readonly JsonValue[], keywords: JsonObject | undefined): string {
  const text = JSON.stringify(assign(keys, values, keywords));
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function sketch(keys: readonly string[]): string {
  return keys.length === 0 ? '{}' : `{ ${keys.map((key) => `${key}: ...`).join(', ')} }`;
}

function plural(count: number): string {
  return count === 1 ? '1 positional argument' : `${count} positional arguments`;
}

function takes(declared: readonly string[], required: ReadonlySet<string>, keywords: JsonObject | undefined): string {
  const others = keywords === undefined ? '' : ' besides those given by keyword';
  if (declared.length === 0) return `it takes no more properties${others}`;
  const requiredText = required.size === 0 ? 'none required' : `required: ${[...required].join(', ')}`;
  return `its properties${others} are ${declared.join(', ')} (${requiredText})`;
}
