/**
 * A value that survives `JSON.stringify` followed by `JSON.parse` unchanged. This is the only kind
 * of value that crosses between a host and a program: host-call inputs and results, and the value a
 * program returns. See {@link findJsonViolation} for the exact rules.
 */
export type JsonValue = null | boolean | number | string | JsonArray | JsonObject;

/** An array of {@link JsonValue}s with no holes. */
export type JsonArray = JsonValue[];

/** A plain object (prototype `Object.prototype` or `null`) whose own enumerable string keys hold {@link JsonValue}s. */
export interface JsonObject {
  [key: string]: JsonValue;
}
