import { invalidDateProblem, jsonDepthLimit, jsonPathOf, measureJson } from './json-measure.js';
import type { JsonValue } from './json-value.js';
import type { JsonViolation } from './lossless-json.js';

/** Options of {@link toJsonValue}. */
export interface ToJsonValueOptions {
  /**
   * Reading stops once the JSON the value makes is known to be longer than this many bytes (a
   * lower bound: UTF-16 units, one byte a number), so an endless generator or a `Map` of a million
   * entries costs no more than the budget. Default: no limit.
   */
  readonly limitBytes?: number;
  /** Containers nested deeper than this are left as they are (for {@link measureJson} to refuse). Default: {@link jsonDepthLimit}. */
  readonly depthLimit?: number;
}

/** What {@link toJsonValue} made of a value. */
export type ToJsonValueResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly violation: JsonViolation }
  | { readonly ok: false; readonly tooLarge: true; readonly atLeastBytes: number };

/**
 * The JSON boundary's conversions (the table in the `@sluice/code-runtime` README), applied to a
 * value on the host side: what a host function returns before it is checked and sent to the program.
 *
 * - `Map` → object: a string key as it is, a finite number key as its text (`1` → `"1"`); any other
 *   key, or two keys with the same text (`1` and `"1"`), is a violation at the map's path.
 * - `Set` → array, sorted when its items are all numbers (ascending) or all strings (UTF-16 order),
 *   else in insertion order.
 * - a generator or any other iterable object that is not an array, typed array or boxed string
 *   (`map.keys()`, an iterator helper, a class with `[Symbol.iterator]`) → array of what it yields,
 *   read once; one that throws is a violation naming the error; reading stops at `limitBytes`
 *   (the iterator's `return()` is then called).
 * - `Date` → its ISO 8601 string; an invalid `Date` is left as it is, and {@link measureJson} refuses it.
 * - an `Error` (anything with `Error.prototype` on its prototype chain) → `{ "error": "<Name>: <message>" }`
 *   (`"<Name>"` alone when the message is empty), its `name` and `message` read from data
 *   properties only (a getter there counts as absent: `Error`, no message).
 * - an object with a `toJSON` method (a data property, own or inherited) → what it returns, as
 *   `JSON.stringify` does; one that throws is a violation naming the error.
 *
 * Everything else is left in place, unread: a plain object or array is copied only when something
 * inside it was converted (its accessors, holes and extra keys copied as they are, no getter run),
 * so {@link measureJson} then refuses what still cannot cross (functions, BigInt, NaN, class
 * instances, Proxies that throw) with its own words and path. A cycle is a violation here, in
 * {@link measureJson}'s words (`$.self is a cycle back to $`). Never throws: what a Proxy trap, an
 * iterator or a `toJSON` throws is caught (a trap's throw leaves its object in place for
 * {@link measureJson} to name).
 */
export function toJsonValue(value: unknown, options: ToJsonValueOptions = {}): ToJsonValueResult {
  const state: State = {
    limitBytes: options.limitBytes ?? Number.POSITIVE_INFINITY,
    depthLimit: options.depthLimit ?? jsonDepthLimit,
    bytes: 0,
    keys: [],
    done: new Map(),
    open: new Map(),
  };
  try {
    return { ok: true, value: convert(value, state, 0, '') };
  } catch (error) {
    if (error instanceof Stop) {
      return error.violation === undefined
        ? { ok: false, tooLarge: true, atLeastBytes: state.bytes }
        : { ok: false, violation: error.violation };
    }
    // Only a bug of this module reaches here (a stack overflow past the depth limit, say): leave the value to measureJson.
    return { ok: true, value };
  }
}

/** What {@link checkJsonValue} found. */
export type CheckedJsonValue =
  | { readonly ok: true; readonly value: JsonValue; readonly bytes: number }
  | { readonly ok: false; readonly violation: JsonViolation }
  /** Over `limitBytes`: `bytes` exactly when `exact`, else at least that (reading stopped there). */
  | { readonly ok: false; readonly violation?: undefined; readonly bytes: number; readonly exact: boolean };

/**
 * A value crossing to the other side, as the host checks it: converted by {@link toJsonValue},
 * then measured by {@link measureJson} (`depthLimit` default {@link jsonDepthLimit}). Answers the
 * lossless JSON value with its exact UTF-8 size, the first violation, or that it is over
 * `limitBytes`. Never throws.
 */
export function checkJsonValue(value: unknown, options: ToJsonValueOptions = {}): CheckedJsonValue {
  const depthLimit = options.depthLimit ?? jsonDepthLimit;
  const converted = toJsonValue(value, { ...options, depthLimit });
  if (!converted.ok) {
    return 'violation' in converted ? converted : { ok: false, bytes: converted.atLeastBytes, exact: false };
  }
  const measure = measureJson(converted.value, { depthLimit });
  if (!measure.ok) return measure;
  if (measure.bytes > (options.limitBytes ?? Number.POSITIVE_INFINITY)) {
    return { ok: false, bytes: measure.bytes, exact: true };
  }
  return { ok: true, value: converted.value as JsonValue, bytes: measure.bytes };
}

interface State {
  readonly limitBytes: number;
  readonly depthLimit: number;
  /** A lower bound of the bytes of JSON seen so far. */
  bytes: number;
  /** The keys from the value to the one being converted. */
  readonly keys: Array<string | number>;
  /** Objects converted, to what (the object itself when nothing changed). */
  readonly done: Map<object, unknown>;
  /** Objects being converted, with how many keys lead to each: met again, they are a cycle. */
  readonly open: Map<object, number>;
}

/** Unwinds the conversion: a violation, or (without one) the budget passed. */
class Stop {
  constructor(readonly violation?: JsonViolation) {}
}

const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size')!.get!;
const setSize = Object.getOwnPropertyDescriptor(Set.prototype, 'size')!.get!;
const mapEntries = Map.prototype.entries;
const setValues = Set.prototype.values;
const dateGetTime = Date.prototype.getTime;
const dateToISOString = Date.prototype.toISOString;
const hopLimit = 1000;

// The count is a lower bound of the JSON written so far, each byte counted once: `convert` counts a
// container's opening bracket, the container its closing one and the separators between members.

function count(state: State, bytes: number): void {
  state.bytes += bytes;
  if (state.bytes > state.limitBytes) throw new Stop();
}

/** Stops when `least` more bytes would pass the budget, counting nothing: a collection too large is not copied. */
function fits(state: State, least: number): void {
  if (state.bytes + least > state.limitBytes) throw new Stop();
}

function refuse(state: State, problem: string): never {
  throw new Stop({ path: jsonPathOf(state.keys), problem });
}

function convert(value: unknown, state: State, depth: number, key: string | number): unknown {
  if (typeof value === 'string') count(state, value.length + 2);
  else count(state, 1);
  if (typeof value !== 'object' || value === null) return value;
  const known = state.done.get(value);
  if (known !== undefined) return known;
  const back = state.open.get(value);
  if (back !== undefined) refuse(state, `a cycle back to ${jsonPathOf(state.keys.slice(0, back))}`);
  if (depth >= state.depthLimit) return value;
  state.open.set(value, state.keys.length);
  let converted: unknown;
  try {
    converted = convertObject(value, state, depth, key);
  } catch (error) {
    if (error instanceof Stop) throw error;
    // A Proxy trap or an exotic object threw while it was looked at: measureJson names it.
    converted = value;
  } finally {
    state.open.delete(value);
  }
  state.done.set(value, converted);
  return converted;
}

function convertObject(value: object, state: State, depth: number, key: string | number): unknown {
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (Array.isArray(value)) return prototype === Array.prototype ? convertMembers(value, state, depth) : value;
  if (prototype === Object.prototype || prototype === null) {
    const toJson = findMethod(value, 'toJSON');
    return toJson === undefined ? convertMembers(value, state, depth) : callToJson(value, toJson, state, depth, key);
  }
  if (isDate(value)) {
    const time = Reflect.apply(dateGetTime, value, []) as number;
    // An invalid Date stays a Date: measureJson refuses it by name.
    return Number.isNaN(time) ? value : (Reflect.apply(dateToISOString, value, []) as string);
  }
  if (has(mapSize, value)) return convertMap(value as Map<unknown, unknown>, state, depth);
  if (has(setSize, value)) return convertSet(value as Set<unknown>, state, depth);
  if (hasPrototype(value, Error.prototype)) return { error: errorText(value) };
  const toJson = findMethod(value, 'toJSON');
  if (toJson !== undefined) return callToJson(value, toJson, state, depth, key);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer || hasPrototype(value, String.prototype)) return value;
  const iterate = findMethod(value, Symbol.iterator);
  return iterate === undefined ? value : readIterator(value, iterate, state, depth);
}

/** A plain object or array with its members converted: `value` itself when none changed, else a copy. */
function convertMembers(value: object, state: State, depth: number): unknown {
  if (Object.getOwnPropertySymbols(value).length > 0) return value;
  const names = Object.keys(value);
  const array = Array.isArray(value);
  // The closing bracket, and a comma between members (an object's colons make up for its last one):
  // a lower bound, so a value of exactly the budget is not stopped.
  count(state, array ? Math.max(1, names.length) : 1 + names.length);
  const descriptors: PropertyDescriptor[] = [];
  let changed = false;
  for (const name of names) {
    const descriptor = Object.getOwnPropertyDescriptor(value, name);
    if (descriptor === undefined) return value;
    if ('value' in descriptor) {
      const memberKey = array ? Number(name) : name;
      if (!array) count(state, name.length + 2);
      state.keys.push(memberKey);
      const member = convert(descriptor.value, state, depth + 1, memberKey);
      state.keys.pop();
      if (member !== descriptor.value) {
        descriptor.value = member;
        changed = true;
      }
    }
    descriptors.push(descriptor);
  }
  if (!changed) return value;
  const copy: object = array ? new Array<unknown>((value as unknown[]).length) : {};
  names.forEach((name, index) => {
    Object.defineProperty(copy, name, { ...descriptors[index]!, configurable: true });
  });
  return copy;
}

function callToJson(
  value: object,
  toJson: (this: unknown, key: string) => unknown,
  state: State,
  depth: number,
  key: string | number,
): unknown {
  let result: unknown;
  try {
    result = Reflect.apply(toJson, value, [`${key}`]);
  } catch (error) {
    refuse(state, conversionProblem({ kind: 'to-json-threw', error: thrownText(error) }));
  }
  // As JSON.stringify: the result is written as it is, its members converted, its own toJSON not called again.
  if (typeof result !== 'object' || result === null || result === value) return result;
  if (Array.isArray(result) || isPlainPrototype(result)) return convertMembers(result, state, depth);
  return convert(result, state, depth, key);
}

function convertMap(map: Map<unknown, unknown>, state: State, depth: number): object {
  const size = Reflect.apply(mapSize, map, []) as number;
  // `"":0` and a comma an entry at least, and the closing brace.
  fits(state, Math.max(1, 5 * size));
  count(state, Math.max(1, size));
  const object: Record<string, unknown> = {};
  const kinds: Record<string, string> = {};
  for (const [entryKey, entryValue] of Reflect.apply(mapEntries, map, []) as IterableIterator<[unknown, unknown]>) {
    let name: string;
    if (typeof entryKey === 'string') name = entryKey;
    else if (typeof entryKey === 'number' && Number.isFinite(entryKey)) name = `${entryKey}`;
    else refuse(state, conversionProblem({ kind: 'map-key', key: keyType(entryKey) }));
    if (Object.hasOwn(kinds, name)) {
      refuse(
        state,
        conversionProblem({ kind: 'map-same-key', first: kinds[name]!, second: typeof entryKey, text: name }),
      );
    }
    kinds[name] = typeof entryKey;
    count(state, name.length + 3);
    state.keys.push(name);
    Object.defineProperty(object, name, {
      value: convert(entryValue, state, depth + 1, name),
      writable: true,
      enumerable: true,
      configurable: true,
    });
    state.keys.pop();
  }
  return object;
}

function convertSet(set: Set<unknown>, state: State, depth: number): unknown[] {
  const size = Reflect.apply(setSize, set, []) as number;
  // A byte and a comma an item at least, and the closing bracket.
  fits(state, Math.max(1, 2 * size));
  count(state, Math.max(1, size));
  const items = [...(Reflect.apply(setValues, set, []) as IterableIterator<unknown>)];
  sortWhenSortable(items);
  return items.map((item, index) => {
    state.keys.push(index);
    const converted = convert(item, state, depth + 1, index);
    state.keys.pop();
    return converted;
  });
}

/** Sorts `items` in place when they are all numbers (ascending) or all strings (UTF-16 order). */
function sortWhenSortable(items: unknown[]): void {
  if (items.every((item) => typeof item === 'number')) (items as number[]).sort((a, b) => a - b);
  else if (items.every((item) => typeof item === 'string')) items.sort();
}

function readIterator(value: object, iterate: (this: unknown) => unknown, state: State, depth: number): unknown[] {
  const items: unknown[] = [];
  let iterator: { next?: unknown; return?: unknown } | undefined;
  let finished = false;
  count(state, 1);
  try {
    try {
      iterator = Reflect.apply(iterate, value, []) as typeof iterator;
      for (;;) {
        const step = Reflect.apply(iterator!.next as () => unknown, iterator, []) as {
          done?: unknown;
          value?: unknown;
        };
        if (step.done) {
          finished = true;
          break;
        }
        const item = step.value;
        state.keys.push(items.length);
        if (items.length > 0) count(state, 1);
        items.push(convert(item, state, depth + 1, items.length));
        state.keys.pop();
      }
    } catch (error) {
      if (error instanceof Stop) throw error;
      finished = true;
      refuse(state, conversionProblem({ kind: 'iterator-threw', error: thrownText(error) }));
    }
  } finally {
    if (!finished) closeIterator(iterator);
  }
  return items;
}

/** Tells an iterator left unfinished (at the budget) to stop, as `for...of` does; what it throws is ignored. */
function closeIterator(iterator: { return?: unknown } | undefined): void {
  try {
    const close = iterator?.return;
    if (typeof close === 'function') Reflect.apply(close, iterator, []);
  } catch {
    // The iterator's own cleanup failed: the value is refused for its size anyway.
  }
}

/** `Name: message` (or `Name`) of an error, from data properties only, each cut to 10,000 characters. */
function errorText(error: object): string {
  const name = dataProperty(error, 'name');
  const message = dataProperty(error, 'message');
  const shownName = typeof name === 'string' && name !== '' ? cut(name) : 'Error';
  return typeof message === 'string' && message !== '' ? `${shownName}: ${cut(message)}` : shownName;
}

function cut(text: string): string {
  return text.length <= 10_000 ? text : `${text.slice(0, 10_000)}…`;
}

/** What a thrown value says, in a few words, for a violation's problem (never throws). */
function thrownText(error: unknown): string {
  try {
    if (typeof error === 'object' && error !== null && hasPrototype(error, Error.prototype)) return errorText(error);
    return typeof error === 'string' ? cut(error) : typeof error;
  } catch {
    return 'a value that could not be read';
  }
}

/** A Map key's type as {@link ConversionProblem} names it: `typeof`, `null`, or a non-finite number's text. */
function keyType(key: unknown): string {
  if (key === null) return 'null';
  return typeof key === 'number' ? `${key}` : typeof key;
}

/**
 * Why the boundary's table could not convert a value, as a provider's guest finds it: `map-key`, a
 * Map key that is neither a string nor a finite number (`key`: its `typeof`, `null`, or `NaN`,
 * `Infinity`, `-Infinity`); `map-same-key`, two keys of a Map with the same text (their types
 * and the text); `iterator-threw` and `to-json-threw`, what reading an iterator or a `toJSON` threw
 * (`Name: message`, a thrown string, or the thrown value's `typeof`); `invalid-date`, a `Date`
 * whose time is NaN.
 */
export type ConversionProblem =
  | { readonly kind: 'map-key'; readonly key: string }
  | { readonly kind: 'map-same-key'; readonly first: string; readonly second: string; readonly text: string }
  | { readonly kind: 'iterator-threw' | 'to-json-threw'; readonly error: string }
  | { readonly kind: 'invalid-date' };

/**
 * The words for a {@link ConversionProblem}, as a {@link JsonViolation}'s `problem`: what
 * {@link toJsonValue} says, so a provider that converts inside its guest reports the same text.
 *
 * @example conversionProblem({ kind: 'map-key', key: 'object' }) // 'a Map with an object as a key (only string and finite number keys become JSON object keys)'
 */
export function conversionProblem(problem: ConversionProblem): string {
  switch (problem.kind) {
    case 'map-key': {
      const { key } = problem;
      const shown =
        key === 'null'
          ? 'null'
          : /^-?(?:NaN|Infinity)$/.test(key)
            ? `the number ${key}`
            : `${/^[aeiou]/.test(key) ? 'an' : 'a'} ${key}`;
      return `a Map with ${shown} as a key (only string and finite number keys become JSON object keys)`;
    }
    case 'map-same-key':
      return `a Map with two keys that are both ${JSON.stringify(problem.text)} as JSON (${problem.first} and ${problem.second})`;
    case 'iterator-threw':
      return `an iterator that threw ${problem.error} while it was read`;
    case 'to-json-threw':
      return `an object whose toJSON method threw ${problem.error}`;
    case 'invalid-date':
      return invalidDateProblem;
  }
}

/** A data property along the prototype chain, never running a getter (an accessor counts as absent). */
function dataProperty(object: object, name: PropertyKey): unknown {
  let current: object | null = object;
  for (let hops = 0; current !== null && hops < hopLimit; hops += 1) {
    const descriptor = Object.getOwnPropertyDescriptor(current, name);
    if (descriptor !== undefined) return 'value' in descriptor ? descriptor.value : undefined;
    current = Object.getPrototypeOf(current) as object | null;
  }
  return undefined;
}

function findMethod(object: object, name: PropertyKey): ((this: unknown, ...args: unknown[]) => unknown) | undefined {
  const method = dataProperty(object, name);
  return typeof method === 'function' ? (method as (this: unknown, ...args: unknown[]) => unknown) : undefined;
}

function hasPrototype(object: object, prototype: object): boolean {
  let current = Object.getPrototypeOf(object) as object | null;
  for (let hops = 0; current !== null && hops < hopLimit; hops += 1) {
    if (current === prototype) return true;
    current = Object.getPrototypeOf(current) as object | null;
  }
  return false;
}

function isPlainPrototype(object: object): boolean {
  const prototype = Object.getPrototypeOf(object) as object | null;
  return prototype === Object.prototype || prototype === null;
}

function isDate(value: object): boolean {
  return has(dateGetTime, value);
}

/** Whether `value` has the internal slot the built-in `method` (a getter or method taking no argument) reads. */
function has(method: (this: never) => unknown, value: object): boolean {
  try {
    Reflect.apply(method, value, []);
    return true;
  } catch {
    return false;
  }
}
