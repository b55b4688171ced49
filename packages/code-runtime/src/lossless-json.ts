/** Where a value stops being lossless JSON, and why. */
export interface JsonViolation {
  /** A JSONPath-like path to the offending part, such as `$.items[3].price` or `$["a b"]`. */
  readonly path: string;
  /** What is wrong there, in a few words: `NaN`, `a cycle back to $.parent`, `a Date`. */
  readonly problem: string;
}

type Frame = { readonly value: unknown; readonly path: string } | { readonly exit: object };

const safeKey = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

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
  const stack: Frame[] = [{ value, path: '$' }];
  const ancestors = new Map<object, string>();
  // Objects already checked in full are not walked again, so a value that shares one object along
  // many paths (`v = [v, v]`, repeated) costs time linear in its distinct objects, not exponential.
  const checked = new Set<object>();
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if ('exit' in frame) {
      ancestors.delete(frame.exit);
      checked.add(frame.exit);
      continue;
    }
    const { value: current, path } = frame;
    const problem = primitiveProblem(current);
    if (problem !== undefined) return { path, problem };
    if (typeof current !== 'object' || current === null || checked.has(current)) continue;

    const cycleTarget = ancestors.get(current);
    if (cycleTarget !== undefined) return { path, problem: `a cycle back to ${cycleTarget}` };
    const objectProblem = exoticProblem(current);
    if (objectProblem !== undefined) return { path, problem: objectProblem };

    ancestors.set(current, path);
    stack.push({ exit: current });
    const children: Frame[] = [];
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index += 1) {
        const descriptor = Object.getOwnPropertyDescriptor(current, index);
        const childPath = `${path}[${index}]`;
        if (descriptor === undefined) return { path: childPath, problem: 'a hole in a sparse array' };
        if (!('value' in descriptor)) return { path: childPath, problem: 'an accessor property (getter or setter)' };
        children.push({ value: descriptor.value, path: childPath });
      }
      // JSON.stringify writes only the indices, so any other own key would be silently lost.
      if (Object.getOwnPropertySymbols(current).length > 0) return { path, problem: 'an array with symbol keys' };
      // Index keys come first in own-key order, so the last key tells whether any other key exists.
      const keys = Object.keys(current);
      const last = keys[keys.length - 1];
      if (last !== undefined && !isIndexBelow(last, current.length)) {
        const extra = keys.find((key) => !isIndexBelow(key, current.length))!;
        return { path: keyPath(path, extra), problem: 'a non-index property on an array' };
      }
    } else {
      if (Object.getOwnPropertySymbols(current).length > 0) return { path, problem: 'an object with symbol keys' };
      for (const key of Object.keys(current)) {
        const descriptor = Object.getOwnPropertyDescriptor(current, key)!;
        const childPath = keyPath(path, key);
        if (!('value' in descriptor)) return { path: childPath, problem: 'an accessor property (getter or setter)' };
        children.push({ value: descriptor.value, path: childPath });
      }
    }
    // Push in reverse so the first violation found is the first in document order.
    for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index]!);
  }
  return undefined;
}

function keyPath(path: string, key: string): string {
  return safeKey.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function isIndexBelow(key: string, length: number): boolean {
  return /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) < length;
}

function primitiveProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'number':
      if (Number.isNaN(value)) return 'NaN';
      if (value === Number.POSITIVE_INFINITY) return 'Infinity';
      if (value === Number.NEGATIVE_INFINITY) return '-Infinity';
      if (Object.is(value, -0)) return '-0 (JSON has no negative zero)';
      return undefined;
    case 'bigint':
      return 'a BigInt';
    case 'undefined':
      return 'undefined';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return undefined;
  }
}

function exoticProblem(value: object): string | undefined {
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (Array.isArray(value)) return prototype === Array.prototype ? undefined : 'an array with a foreign prototype';
  if (prototype === Object.prototype || prototype === null) return undefined;
  // Read through descriptors: a getter on a foreign prototype is code, and it is never run.
  const maker = Object.getOwnPropertyDescriptor(prototype, 'constructor')?.value as unknown;
  const name = typeof maker === 'function' ? Object.getOwnPropertyDescriptor(maker, 'name')?.value : undefined;
  return typeof name === 'string' && name !== ''
    ? `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name} (only plain objects and arrays are JSON)`
    : 'an object that is not plain';
}

/** Whether `value` is lossless JSON. See {@link findJsonViolation}. */
export function isLosslessJson(value: unknown): boolean {
  return findJsonViolation(value) === undefined;
}

/** A sentence describing `violation`, for error messages a model will read. */
export function describeJsonViolation(violation: JsonViolation): string {
  return `${violation.path} is ${violation.problem}, which JSON cannot carry`;
}
