import { measureJson, shortPath } from './json-measure.js';

/** Where a value stops being lossless JSON, and why. */
export interface JsonViolation {
  /** A JSONPath-like path to the offending part, such as `$.items[3].price` or `$["a b"]`. */
  readonly path: string;
  /** What is wrong there, in a few words: `NaN`, `a cycle back to $.parent`, `a Date`. */
  readonly problem: string;
  /** Set when the value is refused only for nesting deeper than this many levels (see {@link measureJson}). */
  readonly depthLimit?: number;
}

/**
 * The first place where `value` would not survive `JSON.stringify` then `JSON.parse` unchanged, or
 * `undefined` when it would. Refused: `NaN`, `±Infinity`, `-0`, BigInt, `undefined`, functions,
 * symbols (as values or keys), cycles, sparse arrays, arrays with non-index keys, accessor
 * properties, and exotic objects (anything whose prototype is not `Object.prototype`,
 * `Array.prototype` or `null`: `Date`, `Map`, class instances, typed arrays, boxed primitives).
 * No getter is ever invoked, on the value or on a prototype. A value shared by two branches is
 * fine and is walked once. Iterative, so deep input cannot overflow the stack.
 */
export function findJsonViolation(value: unknown): JsonViolation | undefined {
  const measure = measureJson(value);
  return measure.ok ? undefined : measure.violation;
}

/** Whether `value` is lossless JSON. See {@link findJsonViolation}. */
export function isLosslessJson(value: unknown): boolean {
  return findJsonViolation(value) === undefined;
}

/** A sentence describing `violation`, for error messages a model will read. A path longer than 200 characters is shortened in the middle. */
export function describeJsonViolation(violation: JsonViolation): string {
  const path = shortPath(violation.path);
  if (violation.depthLimit !== undefined) {
    return `${path} is nested deeper than ${violation.depthLimit} levels, the most a value crossing the host boundary may have`;
  }
  return `${path} is ${violation.problem}, which JSON cannot carry`;
}
