import type { JsonViolation } from './lossless-json.js';

/** What {@link measureJson} found: the byte size of the JSON a value produces, or where it stops being JSON. */
export type JsonMeasure =
  | { readonly ok: true; readonly bytes: number }
  | { readonly ok: false; readonly violation: JsonViolation };

/** Options of {@link measureJson}. */
export interface MeasureJsonOptions {
  /** Objects and arrays nested deeper than this are refused. Default: no limit. */
  readonly depthLimit?: number;
}

/**
 * How deep a value crossing the host boundary may nest (objects and arrays, the outermost counts as 1).
 * The run controller refuses deeper host-call arguments, results and program values, so no decoder on
 * either side ever needs a deeper stack.
 */
export const jsonDepthLimit = 512;

interface Level {
  readonly object: object;
  /** The key this object sits under in its parent (`undefined` for the root): paths are built only when needed. */
  readonly key: string | number | undefined;
  /** Own keys in `JSON.stringify` order, or `undefined` for an array. */
  readonly keys: readonly string[] | undefined;
  readonly length: number;
  next: number;
  /** Bytes of this object's JSON counted so far. */
  bytes: number;
}

const safeKey = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const shownPathLength = 200;

/**
 * Walks `value` once, iteratively, and returns the exact number of UTF-8 bytes `JSON.stringify(value)`
 * would produce, or the first place (in document order) where the value stops being lossless JSON:
 * everything {@link findJsonViolation} refuses, an object nested deeper than `depthLimit`, and an
 * object that throws when read (a Proxy with throwing traps). Never throws and never runs a getter; a
 * value shared by several branches is walked once and counted at each place it appears.
 */
export function measureJson(value: unknown, options: MeasureJsonOptions = {}): JsonMeasure {
  const depthLimit = options.depthLimit ?? Number.POSITIVE_INFINITY;
  // One entry per object met: while it is open, -1 - its position in `levels` (a path is built from
  // the levels only when a violation is reported, so a large value costs no string per property);
  // once measured, its byte size, so a value that shares one object along many paths
  // (`v = [v, v]`, repeated) costs time linear in its distinct objects, not exponential.
  const seen = new Map<object, number>();
  const levels: Level[] = [];
  const pathAt = (count: number, key?: string | number) => pathOf(levels, count, key);
  let rootBytes = 0;
  let current: unknown = value;
  let key: string | number | undefined;
  for (;;) {
    // Visit `current`, the child `key` of the innermost level: a primitive is counted, an object becomes a new level.
    const problem = primitiveProblem(current);
    if (problem !== undefined) return refuse(pathAt(levels.length, key), problem);
    let bytes: number | undefined;
    if (typeof current !== 'object' || current === null) bytes = primitiveBytes(current);
    else bytes = seen.get(current);
    if (bytes !== undefined && bytes < 0) {
      return refuse(pathAt(levels.length, key), `a cycle back to ${pathAt(-bytes)}`);
    }
    if (bytes === undefined) {
      const object = current as object;
      if (levels.length >= depthLimit) {
        const path = shortPath(pathAt(levels.length, key));
        return { ok: false, violation: { path, problem: `nested deeper than ${depthLimit} levels`, depthLimit } };
      }
      let level: Level | string;
      try {
        level = openLevel(object, key);
      } catch {
        level = thrownOnRead;
      }
      if (typeof level === 'string') return refuse(pathAt(levels.length, key), level);
      if (level.keys === undefined && level.length === -1) {
        // An array with a key other than its indices: `length` carries no count, `next` the key's position.
        return refuse(
          pathAt(levels.length, key) + keySuffix(Object.keys(object)[level.next]!),
          'a non-index property on an array',
        );
      }
      seen.set(object, -1 - levels.length);
      levels.push(level);
    } else if (levels.length === 0) rootBytes = bytes;
    else levels[levels.length - 1]!.bytes += bytes;

    // Find the next value to visit: the next child of the innermost open level, closing finished levels.
    let found = false;
    while (levels.length > 0 && !found) {
      const level = levels[levels.length - 1]!;
      if (level.next >= level.length) {
        levels.pop();
        seen.set(level.object, level.bytes);
        if (levels.length === 0) rootBytes = level.bytes;
        else levels[levels.length - 1]!.bytes += level.bytes;
        continue;
      }
      const index = level.next;
      level.next += 1;
      key = level.keys === undefined ? index : level.keys[index]!;
      let descriptor: PropertyDescriptor | undefined;
      try {
        descriptor = Object.getOwnPropertyDescriptor(level.object, key);
      } catch {
        return refuse(pathAt(levels.length), thrownOnRead);
      }
      if (descriptor === undefined) {
        // A key that vanished between listing and reading: only an exotic object does that.
        const problem =
          typeof key === 'number' ? 'a hole in a sparse array' : 'a property that disappeared while it was read';
        return refuse(pathAt(levels.length, key), problem);
      }
      if (!('value' in descriptor))
        return refuse(pathAt(levels.length, key), 'an accessor property (getter or setter)');
      if (typeof key === 'string') level.bytes += jsonStringBytes(key) + 1;
      if (index > 0) level.bytes += 1;
      current = descriptor.value;
      found = true;
    }
    if (!found) return { ok: true, bytes: rootBytes };
  }
}

/** How a `Date` whose time is NaN is refused (a valid one crosses as its ISO string). */
export const invalidDateProblem = 'an invalid Date (its time is NaN: check what it was made from)';

const thrownOnRead = 'an object that throws when it is read (a Proxy or another exotic object)';

/** The path of the child `key` of `levels[count - 1]` (or of that level itself without a key). */
function pathOf(levels: readonly Level[], count: number, key?: string | number): string {
  const parts = ['$'];
  for (let index = 1; index < count; index += 1) parts.push(keySuffix(levels[index]!.key!));
  if (key !== undefined && count > 0) parts.push(keySuffix(key));
  return parts.join('');
}

/**
 * The path of a member in the form {@link JsonViolation.path} uses: `$` then `.name` for an
 * identifier-like key, `["a b"]` for any other string key and `[3]` for an array index.
 *
 * @example jsonPathOf(['items', 3, 'unit price']) // '$.items[3]["unit price"]'
 */
export function jsonPathOf(keys: ReadonlyArray<string | number>): string {
  return `$${keys.map(keySuffix).join('')}`;
}

function keySuffix(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return safeKey.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function refuse(path: string, problem: string): JsonMeasure {
  return { ok: false, violation: { path, problem } };
}

/**
 * Checks an object's shape and lists what `JSON.stringify` would write of it, or says what is wrong.
 * An array with an extra key comes back with `length` -1 and the key's position in `next`. May throw (a Proxy).
 */
function openLevel(object: object, key: string | number | undefined): Level | string {
  const objectProblem = exoticProblem(object);
  if (objectProblem !== undefined) return objectProblem;
  if (Array.isArray(object)) {
    // JSON.stringify writes only the indices, so any other own key would be silently lost.
    if (Object.getOwnPropertySymbols(object).length > 0) return 'an array with symbol keys';
    const length = object.length;
    // Index keys come first in own-key order, so the last key tells whether any other key exists.
    const keys = Object.keys(object);
    const last = keys[keys.length - 1];
    if (last !== undefined && !isIndexBelow(last, length)) {
      // A hole before the extra key is reported first, as a walk in document order meets it first.
      if (firstHole(object, length) === undefined) {
        const extra = keys.findIndex((name) => !isIndexBelow(name, length));
        return { object, key, keys: undefined, length: -1, next: extra, bytes: 0 };
      }
    }
    return { object, key, keys: undefined, length, next: 0, bytes: 2 };
  }
  if (Object.getOwnPropertySymbols(object).length > 0) return 'an object with symbol keys';
  const keys = Object.keys(object);
  return { object, key, keys, length: keys.length, next: 0, bytes: 2 };
}

function firstHole(array: readonly unknown[], length: number): number | undefined {
  for (let index = 0; index < length; index += 1) if (!Object.hasOwn(array, index)) return index;
  return undefined;
}

/** `path`, shortened in the middle when it is longer than 200 characters. */
export function shortPath(path: string): string {
  return path.length <= shownPathLength
    ? path
    : `${path.slice(0, shownPathLength / 2)}…${path.slice(-shownPathLength / 2)}`;
}

/** The bytes of a primitive's JSON text. */
function primitiveBytes(value: unknown): number {
  if (typeof value === 'string') return jsonStringBytes(value);
  if (typeof value === 'number') return numberBytes(value);
  if (value === true) return 4;
  if (value === false) return 5;
  return 4; // null
}

/** The length of `String(value)` for a finite number, without making the string for a small integer. */
function numberBytes(value: number): number {
  if (!Number.isSafeInteger(value)) return String(value).length;
  let digits = value < 0 ? 2 : 1;
  for (let rest = Math.abs(value); rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
  return digits;
}

/** The UTF-8 bytes of `text` as a JSON string literal, quotes and escapes included, as `JSON.stringify` writes it. */
function jsonStringBytes(text: string): number {
  let bytes = 2;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20) bytes += code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
    else if (code === 0x22 || code === 0x5c) bytes += 2;
    else if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index += 1;
      } else bytes += 6; // A lone surrogate is written as a \uXXXX escape.
    } else if (code >= 0xdc00 && code <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
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
  // A promise here is almost always a call or an async function the program forgot to await.
  if (name === 'Promise')
    return 'a Promise (a call or an async function that was not awaited: write `await` before it)';
  // A valid Date crosses as its ISO string (toJsonValue), so one met here is usually invalid.
  if (isInvalidDate(value)) return invalidDateProblem;
  return typeof name === 'string' && name !== ''
    ? `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name} (only plain objects and arrays are JSON)`
    : 'an object that is not plain';
}

function isInvalidDate(value: object): boolean {
  try {
    return Number.isNaN(Date.prototype.getTime.call(value));
  } catch {
    return false;
  }
}
