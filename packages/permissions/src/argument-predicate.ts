import type { JsonValue } from '@sluice/code-runtime';
import { createPathGuard, type PathGuard, quote } from './path-guard.js';
import type { ArgumentPredicate } from './policy-definition.js';

/** A compiled condition on one argument: why it does not hold for `input`, or `undefined` when it does. */
export type ArgumentCheck = (input: JsonValue) => string | undefined;

/** The keys an {@link ArgumentPredicate} may have. */
export const argumentPredicateKeys: readonly string[] = ['equals', 'oneOf', 'matches', 'within', 'relativeTo'];

/**
 * Compiles the condition at argument path `where` (`path`, `options.dir`, `$`). Expects a predicate
 * whose shape was already checked; throws `Error` with a short reason for a bad regex or path root.
 */
export function compileArgumentCheck(where: string, predicate: ArgumentPredicate): ArgumentCheck {
  const keys = where === '$' ? [] : where.split('.');
  const label = where === '$' ? 'the input' : `argument ${JSON.stringify(where)}`;
  const checks: ((value: JsonValue) => string | undefined)[] = [];
  if (predicate.equals !== undefined) {
    const expected = predicate.equals;
    checks.push((value) => (jsonEqual(value, expected) ? undefined : `must equal ${JSON.stringify(expected)}`));
  }
  if (predicate.oneOf !== undefined) {
    const allowed = predicate.oneOf;
    const shown = allowed.map((item) => JSON.stringify(item)).join(', ');
    checks.push((value) => (allowed.some((item) => jsonEqual(value, item)) ? undefined : `must be one of ${shown}`));
  }
  if (predicate.matches !== undefined) {
    const regex = new RegExp(predicate.matches, 'u');
    const test = (value: JsonValue): string | undefined => {
      if (typeof value !== 'string') return 'must be a string';
      return regex.test(value) ? undefined : `${quote(value)} must match /${predicate.matches}/`;
    };
    checks.push((value) => everyElement(value, test));
  }
  if (predicate.within !== undefined) {
    const guard: PathGuard = createPathGuard({
      roots: predicate.within,
      ...(predicate.relativeTo === undefined ? {} : { relativeTo: predicate.relativeTo }),
    });
    checks.push((value) => everyElement(value, (element) => guard.problem(element)));
  }
  return (input) => {
    const value = argumentAt(input, keys);
    if (value === undefined) return `${label} is missing`;
    for (const check of checks) {
      const problem = check(value);
      if (problem !== undefined) return `${label}: ${problem}`;
    }
    return undefined;
  };
}

/** The value at `keys` inside `input`, through own properties of plain objects only, or `undefined`. */
function argumentAt(input: JsonValue, keys: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = input;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function everyElement(value: JsonValue, test: (element: JsonValue) => string | undefined): string | undefined {
  if (!Array.isArray(value)) return test(value);
  for (let index = 0; index < value.length; index += 1) {
    const problem = test(value[index]!);
    if (problem !== undefined) return `element ${index}: ${problem}`;
  }
  return undefined;
}

/** Whether two JSON values are equal by content; object key order does not matter. */
export function jsonEqual(left: JsonValue, right: JsonValue): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => jsonEqual(item, right[index]!));
  }
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key]!, right[key]!));
}
