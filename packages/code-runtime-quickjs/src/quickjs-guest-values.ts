import { inspect } from 'node:util';
import { conversionProblem, jsonPathOf } from '@sluice/code-runtime';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';

/**
 * The guest's own built-ins and helpers, made before the program runs, so a program that replaces
 * a built-in changes nothing here.
 */
export interface GuestIntrinsics {
  readonly parse: QuickJSHandle;
  readonly isArray: QuickJSHandle;
  readonly getPrototypeOf: QuickJSHandle;
  readonly objectPrototype: QuickJSHandle;
  readonly promisePrototype: QuickJSHandle;
  /** The helpers of {@link helpersSource}. */
  readonly namespace: QuickJSHandle;
  readonly awaitable: QuickJSHandle;
  readonly encode: QuickJSHandle;
  /** `(a, b) => a === b`: this build of QuickJS exposes no identity test of its own. */
  readonly same: QuickJSHandle;
}

/** The JSON nesting limit at the boundary, as the contract's `jsonDepthLimit`. */
const depthLimit = 512;

/**
 * Guest source evaluated once in every fresh context, before the program, with `misread` (a host
 * function answering the message for a field read on an un-awaited call). One evaluation, and
 * short: QuickJS compiles about 0.15 µs a byte in WebAssembly and each evaluation costs about
 * 25 µs more, while a host function costs about 3 µs to make. It removes `SharedArrayBuffer`,
 * `Atomics` and `WebAssembly` and answers:
 *
 * - `namespace(functions, ungranted)`: the namespace as the program sees it — a granted name is
 *   its function; for any other string key, `ungranted(key)` (a host function) answers.
 * - `awaitable(call, label)`: a host call's promise whose fields read before `await` throw a
 *   `TypeError` naming the fix, while `await`, `then` and every other promise method work as on
 *   the promise itself.
 * - `encode(value, maxChars)`: the value written by the guest's own `JSON.stringify` (its `toJSON`
 *   methods and getters run, `undefined` properties are left out) with a replacer that checks each
 *   member before the engine writes, or recurses into, it: the JSON text; `undefined` when there is
 *   none; its length when longer than `maxChars`; `false` past the nesting limit (the engine's C
 *   recursion uses the stack faster than QuickJS's own check sees); `[keys, member]` for the first
 *   member JSON cannot carry, which the host then describes, `keys` being the JSON of the keys from
 *   the member out to the value; `[keys, member, depth]` for a member that is one of its own
 *   containers (a cycle, found from the containers each object member is recorded with, before the
 *   engine meets it), `depth` being that container's (1: the value); `[keys, member, undefined,
 *   problem]` for what the boundary's table could not convert (`['map-key', type]`,
 *   `['map-same-key', first, second, text]`, `['iterator-threw', text]`, `['invalid-date']`).
 *   Before the engine writes a member, the table converts it: a `Map` to an object, a `Set` to an
 *   array (sorted when all numbers or all strings), an `Error` to `{ error: 'Name: message' }`
 *   (data properties only, each cut to 10,000 characters), a generator or other iterable (not a
 *   typed array or boxed string) to an array of what it yields, read once; a Map, Set or iterator
 *   that would pass `maxChars` (counted from what they hold) answers `maxChars + 1` at once, so an
 *   endless generator stops there. What a `toJSON`, a getter or a Proxy trap throws is thrown on.
 * - `same(a, b)`: `a === b`.
 */
const helpersSource = `((misread) => {
'use strict';
delete globalThis.SharedArrayBuffer;
delete globalThis.Atomics;
delete globalThis.WebAssembly;
const hasOwn = Object.hasOwn, getPrototypeOf = Object.getPrototypeOf, plain = Object.prototype;
const isArray = Array.isArray, apply = Reflect.apply, stringify = JSON.stringify, then = Promise.prototype.then;
const Wrap = Proxy, TypeErrorConstructor = TypeError, Depths = WeakMap, get = Depths.prototype.get, set = Depths.prototype.set;
const describe = Object.getOwnPropertyDescriptor, define = Object.defineProperty, create = Object.create, from = Array.from, sort = Array.prototype.sort;
const getTime = Date.prototype.getTime, mapSize = describe(Map.prototype, 'size').get, setSize = describe(Set.prototype, 'size').get;
const mapEntries = Map.prototype.entries, mapNext = getPrototypeOf(new Map().entries()).next, setValues = Set.prototype.values;
const errorPrototype = Error.prototype, stringPrototype = String.prototype, typedPrototype = getPrototypeOf(Uint8Array.prototype), iteratorSymbol = Symbol.iterator;
const isDate = (value) => { try { apply(getTime, value, []); return true; } catch { return false; } };
const data = (object, name) => {
  for (let hops = 0; object !== null && hops < 1000; hops += 1, object = getPrototypeOf(object)) {
    const slot = describe(object, name);
    if (slot !== undefined) return hasOwn(slot, 'value') ? slot.value : undefined;
  }
};
const inherits = (object, prototype) => {
  for (let hops = 0; object !== null && hops < 1000; hops += 1) if ((object = getPrototypeOf(object)) === prototype) return true;
  return false;
};
const slice = String.prototype.slice, cut = (text) => text.length <= 10000 ? text : apply(slice, text, [0, 10000]) + '…';
const errorText = (error) => {
  const name = data(error, 'name'), message = data(error, 'message');
  const shown = typeof name === 'string' && name !== '' ? cut(name) : 'Error';
  return typeof message === 'string' && message !== '' ? shown + ': ' + cut(message) : shown;
};
const thrown = (error) => {
  try { return typeof error === 'object' && error !== null && inherits(error, errorPrototype) ? errorText(error) : typeof error === 'string' ? cut(error) : typeof error; }
  catch { return 'a value that could not be read'; }
};
return [
  (functions, ungranted) => new Wrap(functions, {
    get: (target, key) => typeof key === 'string' && hasOwn(target, key) ? target[key] : ungranted(key),
  }),
  (call, label) => new Wrap(call, { get(target, key) {
    if (key === 'then') return (...args) => apply(then, target, args);
    if (typeof key !== 'string' || key in target) {
      const value = target[key];
      return typeof value === 'function' ? (...args) => apply(value, target, args) : value;
    }
    if (key !== 'toJSON') throw new TypeErrorConstructor(misread(label, key));
  } }),
  (value, maxChars) => {
    const parents = new Depths(), done = new Depths();
    let bad, used = 0;
    const keysTo = (key, holder, up) => {
      const keys = [isArray(holder) ? +key : key];
      for (let level = up; level !== undefined; level = level[1]) keys[keys.length] = level[2];
      return stringify(keys);
    };
    try {
      const text = stringify(value, function (key, member) {
        const type = typeof member;
        const up = apply(get, parents, [this]);
        const refuse = (problem) => { bad = [keysTo(key, this, up), member, undefined, problem]; throw parents; };
        let back;
        if (member === null) {
          // A Date's toJSON gives null for an invalid time: refused, not written as null.
          const slot = describe(this, key);
          if (slot !== undefined && hasOwn(slot, 'value') && isDate(slot.value) && apply(getTime, slot.value, []) !== apply(getTime, slot.value, [])) refuse(['invalid-date']);
        }
        if (type === 'object' && member !== null) {
          const original = member;
          let prototype;
          try { prototype = isArray(member) ? null : getPrototypeOf(member); } catch {}
          // Seen before: a cycle when it is one of the containers on the way here.
          if (apply(get, parents, [member]) !== undefined) for (back = up; back !== undefined && back[3] !== member; back = back[1]);
          if (back === undefined && prototype !== undefined && prototype !== null && prototype !== plain) {
            let made = apply(get, done, [member]);
            if (made === undefined) {
              made = convert(member, refuse);
              if (made === false) { bad = maxChars + 1; throw parents; }
              if (made !== undefined) apply(set, done, [member, made]);
            }
            if (made !== undefined) member = made, prototype = null;
          }
          if (prototype === null || prototype === plain) {
            const depth = (up === undefined ? 0 : up[0]) + 1;
            if (back === undefined && depth <= ${depthLimit}) {
              const entry = [depth, up, isArray(this) ? +key : key, original];
              apply(set, parents, [member, entry]);
              if (original !== member) apply(set, parents, [original, entry]);
              return member;
            }
            if (back === undefined) {
              bad = false;
              throw parents;
            }
          }
        } else if (type === 'number' ? member - member === 0 : type !== 'bigint' && type !== 'function' && type !== 'symbol') {
          return member;
        }
        bad = back === undefined ? [keysTo(key, this, up), member] : [keysTo(key, this, up), member, back[0]];
        throw parents;
      });
      return typeof text !== 'string' ? undefined : text.length > maxChars ? text.length : text;
    } catch (error) {
      if (error === parents) return bad;
      throw error;
    }
    // The boundary's table: a Map, Set, Error or iterable as a plain object or array; undefined for
    // anything else; false past the budget. Problems go to refuse.
    function convert(member, refuse) {
      let size;
      if (isDate(member)) return undefined;
      try { size = apply(mapSize, member, []); } catch {}
      if (size !== undefined) {
        if ((used += 2 + 5 * size) > maxChars) return false;
        const record = create(null), types = create(null);
        for (const entries = apply(mapEntries, member, []);;) {
          const step = apply(mapNext, entries, []);
          if (step.done) return record;
          const key = step.value[0], type = key === null ? 'null' : typeof key;
          const name = type === 'string' ? key : type === 'number' && key - key === 0 ? '' + key : refuse(['map-key', type === 'number' ? '' + key : type]);
          if (hasOwn(types, name)) refuse(['map-same-key', types[name], type, name]);
          types[name] = type;
          record[name] = step.value[1];
        }
      }
      try { size = apply(setSize, member, []); } catch {}
      if (size !== undefined) {
        if ((used += 1 + 2 * size) > maxChars) return false;
        const items = from(apply(setValues, member, []));
        let numbers = true, strings = true;
        for (let index = 0; index < items.length; index += 1) numbers = numbers && typeof items[index] === 'number', strings = strings && typeof items[index] === 'string';
        if (numbers) apply(sort, items, [(a, b) => a - b]); else if (strings) apply(sort, items, []);
        return items;
      }
      if (inherits(member, errorPrototype)) {
        const record = create(null);
        record.error = errorText(member);
        return record;
      }
      const iterate = data(member, iteratorSymbol);
      if (typeof iterate !== 'function' || inherits(member, typedPrototype) || inherits(member, stringPrototype)) return undefined;
      const items = [];
      let iterator;
      try {
        iterator = apply(iterate, member, []);
        for (const next = iterator.next;;) {
          const step = apply(next, iterator, []);
          if (step.done) return items;
          const item = step.value;
          used += 1 + (typeof item === 'string' ? item.length + 2 : 1);
          if (used > maxChars) break;
          define(items, items.length, { value: item, writable: true, enumerable: true, configurable: true });
        }
      } catch (error) {
        if (error === parents) throw error;
        refuse(['iterator-threw', thrown(error)]);
      }
      try { if (typeof iterator.return === 'function') iterator.return(); } catch {}
      return false;
    }
  },
  (a, b) => a === b,
];
})`;

/** The message of a field read on a host call's promise before `await`. */
function misreadMessage(label: string, key: string): string {
  return `${label}(...) returns a Promise, which has no .${key}: write \`(await ${label}(...)).${key}\` to read the result.`;
}

/** Makes {@link GuestIntrinsics} in a fresh context. The caller disposes them. */
export function captureIntrinsics(context: QuickJSContext): GuestIntrinsics {
  const json = context.getProp(context.global, 'JSON');
  const object = context.getProp(context.global, 'Object');
  const array = context.getProp(context.global, 'Array');
  const promise = context.getProp(context.global, 'Promise');
  const misread = context.newFunction('misread', (label, key) =>
    context.newString(misreadMessage(context.getString(label!), context.getString(key!))),
  );
  const helpers = context
    .unwrapResult(context.evalCode(helpersSource, 'sluice-helpers.js'))
    .consume((install) => context.unwrapResult(context.callFunction(install, context.undefined, misread)));
  misread.dispose();
  const intrinsics = {
    parse: context.getProp(json, 'parse'),
    isArray: context.getProp(array, 'isArray'),
    getPrototypeOf: context.getProp(object, 'getPrototypeOf'),
    objectPrototype: context.getProp(object, 'prototype'),
    promisePrototype: context.getProp(promise, 'prototype'),
    namespace: context.getProp(helpers, 0),
    awaitable: context.getProp(helpers, 1),
    encode: context.getProp(helpers, 2),
    same: context.getProp(helpers, 3),
  };
  for (const handle of [json, object, array, promise, helpers]) handle.dispose();
  return intrinsics;
}

/** Whether two guest values are the same value (`===`). */
export function isSame(
  context: QuickJSContext,
  intrinsics: GuestIntrinsics,
  a: QuickJSHandle,
  b: QuickJSHandle,
): boolean {
  const result = context.callFunction(intrinsics.same, context.undefined, a, b);
  if (result.error !== undefined) {
    result.error.dispose();
    return false;
  }
  return result.value.consume((handle) => context.typeof(handle) === 'boolean' && context.dump(handle) === true);
}

/** A guest value written as JSON text, or why it cannot be. */
export type Encoded =
  | { readonly ok: true; readonly json: string | undefined }
  | {
      readonly ok: false;
      readonly kind: 'not-json' | 'too-large' | 'thrown';
      readonly message: string;
      readonly error?: QuickJSHandle;
    };

/**
 * Writes `value` as the guest's own `JSON.stringify` writes it (its `toJSON` methods run inside
 * QuickJS, `undefined` properties are left out), with the boundary's table applied (a `Map`, `Set`,
 * iterator or `Error` converted, an invalid `Date` refused: see `encode` above), refusing what JSON
 * cannot carry: NaN, ±Infinity, BigInt, and objects other than plain objects and arrays. A cycle or nesting past the guest's stack
 * is refused as well. What a `toJSON` or a Proxy trap throws comes back as `thrown`, with the error.
 */
export function encodeGuestValue(
  context: QuickJSContext,
  intrinsics: GuestIntrinsics,
  value: QuickJSHandle,
  maxChars: number,
): Encoded {
  let json: string | undefined;
  switch (context.typeof(value)) {
    case 'undefined':
      return { ok: true, json: undefined };
    case 'function':
    case 'symbol':
      return {
        ok: false,
        kind: 'not-json',
        message: `the value is a ${context.typeof(value)}, which JSON cannot carry`,
      };
    case 'boolean':
      json = context.dump(value) === true ? 'true' : 'false';
      break;
    case 'number': {
      const number = context.getNumber(value);
      if (Number.isFinite(number)) json = JSON.stringify(number);
      break;
    }
  }
  if (json !== undefined) return { ok: true, json };
  const result = context
    .newNumber(maxChars)
    .consume((limit) => context.callFunction(intrinsics.encode, context.undefined, value, limit));
  if (result.error !== undefined) {
    // The engine's own stack error only, by its exact text (cycles are found before the engine
    // meets them): anything else a getter, toJSON or Proxy trap threw is the program's error.
    const described = describeThrown(context, result.error, false);
    if (described.name === 'RangeError' && described.message === 'Maximum call stack size exceeded') {
      result.error.dispose();
      return { ok: false, kind: 'not-json', message: 'the value is nested too deeply to be written as JSON' };
    }
    return { ok: false, kind: 'thrown', message: described.message, error: result.error };
  }
  return result.value.consume((encoded): Encoded => {
    switch (context.typeof(encoded)) {
      case 'string':
        return { ok: true, json: context.getString(encoded) };
      case 'number':
        return { ok: false, kind: 'too-large', message: `${context.getNumber(encoded)} characters` };
      case 'boolean':
        return { ok: false, kind: 'not-json', message: `the value is nested more than ${depthLimit} levels deep` };
      case 'object': {
        const keys = context
          .getProp(encoded, 0)
          .consume((handle) => keysOf(context.typeof(handle) === 'string' ? context.getString(handle) : undefined));
        // A third element is the depth of the container the member cycles back to (1: the value).
        const backTo = context
          .getProp(encoded, 2)
          .consume((handle) => (context.typeof(handle) === 'number' ? context.getNumber(handle) : undefined));
        // A fourth element is what the boundary's table could not convert (a Map key, an iterator that threw).
        const converted = context.getProp(encoded, 3).consume((handle) => conversionOf(context, handle));
        const problem =
          converted !== undefined
            ? `is ${converted}`
            : backTo === undefined
              ? context
                  .getProp(encoded, 1)
                  .consume((member) => violationOf(context, intrinsics, member) ?? 'cannot be written as JSON')
              : `is a cycle back to ${keys === undefined ? 'a container of it' : jsonPathOf(keys.slice(0, Math.max(0, backTo - 1)))}`;
        return { ok: false, kind: 'not-json', message: `${placeOf(keys)} ${problem}, which JSON cannot carry` };
      }
      default:
        return { ok: true, json: undefined };
    }
  });
}

/**
 * The words for what the guest encoder could not convert by the boundary's table, from the list it
 * made (`['map-key', type]`, `['map-same-key', first, second, text]`, `['iterator-threw', text]`,
 * `['invalid-date']`), or `undefined` for none or a list the program tampered with.
 */
function conversionOf(context: QuickJSContext, handle: QuickJSHandle): string | undefined {
  if (context.typeof(handle) !== 'object') return undefined;
  let listed: unknown;
  try {
    listed = context.dump(handle);
  } catch {
    return undefined;
  }
  if (!Array.isArray(listed) || !listed.every((item) => typeof item === 'string')) return undefined;
  const [kind, first = '', second = '', text = ''] = listed as string[];
  switch (kind) {
    case 'map-key':
      return conversionProblem({ kind, key: first });
    case 'map-same-key':
      return conversionProblem({ kind, first, second, text });
    case 'iterator-threw':
      return conversionProblem({ kind, error: first });
    case 'invalid-date':
      return conversionProblem({ kind });
    default:
      return undefined;
  }
}

/**
 * The keys from the value to the member the guest encoder refused (`[]` for the value itself), read
 * from the list it made innermost first as JSON text, or `undefined` for a list the program tampered
 * with: the list is made in its context (a setter on `Array.prototype`, a `toJSON` can change it).
 */
function keysOf(listed: string | undefined): Array<string | number> | undefined {
  let keys: unknown;
  try {
    keys = listed === undefined ? undefined : JSON.parse(listed);
  } catch {
    return undefined;
  }
  if (!Array.isArray(keys) || keys.length === 0 || keys.at(-1) !== '') return undefined;
  const path = keys.slice(0, -1).reverse();
  return path.every((key) => typeof key === 'string' || Number.isSafeInteger(key))
    ? (path as Array<string | number>)
    : undefined;
}

/** Where a member is, for a message: `the value` itself, or its JSON path (`$.items[3]`, the contract's form). */
function placeOf(keys: ReadonlyArray<string | number> | undefined): string {
  if (keys === undefined) return 'a member of the value';
  return keys.length === 0 ? 'the value' : jsonPathOf(keys);
}

function violationOf(context: QuickJSContext, intrinsics: GuestIntrinsics, member: QuickJSHandle): string | undefined {
  const type = context.typeof(member);
  if (type === 'number') {
    const number = context.getNumber(member);
    return Number.isFinite(number) ? undefined : `is ${number}`;
  }
  if (type === 'bigint') return 'is a BigInt';
  if (type === 'function' || type === 'symbol') return `is a ${type}`;
  if (type !== 'object' || isSame(context, intrinsics, member, context.null)) return undefined;
  const isArray = context.callFunction(intrinsics.isArray, context.undefined, member);
  if (isArray.error !== undefined) {
    isArray.error.dispose();
    return 'is a revoked Proxy';
  }
  const array = isArray.value.consume((handle) => context.dump(handle) === true);
  if (array) return undefined;
  const prototype = context.callFunction(intrinsics.getPrototypeOf, context.undefined, member);
  if (prototype.error !== undefined) {
    prototype.error.dispose();
    return 'has a prototype that cannot be read';
  }
  return prototype.value.consume((handle) => {
    if (
      isSame(context, intrinsics, handle, context.null) ||
      isSame(context, intrinsics, handle, intrinsics.objectPrototype)
    ) {
      return undefined;
    }
    if (isSame(context, intrinsics, handle, intrinsics.promisePrototype)) {
      return 'is a Promise (a call or an async function that was not awaited: write `await` before it)';
    }
    const maker = context.getProp(handle, 'constructor');
    const name = context.typeof(maker) === 'function' ? context.getProp(maker, 'name') : undefined;
    maker.dispose();
    const text = name !== undefined && context.typeof(name) === 'string' ? context.getString(name) : '';
    name?.dispose();
    return `is ${text === '' ? 'an object' : `a ${text}`} (not a plain object or array: convert it, for example with Object.fromEntries or Array.from)`;
  });
}

/** A thrown guest value described without trusting it: name, message and stack as strings. */
export interface ThrownText {
  readonly name?: string;
  readonly message: string;
  readonly stack?: string;
}

/** Reads what the guest threw. Never throws; a getter that throws or loops is the interpreter's to stop. */
export function describeThrown(context: QuickJSContext, thrown: QuickJSHandle, isNull: boolean): ThrownText {
  try {
    const type = context.typeof(thrown);
    if (type !== 'object' || isNull) {
      return { message: formatValue(context, thrown) };
    }
    const read = (key: string): string | undefined => {
      const result = context.getProp(thrown, key);
      try {
        return context.typeof(result) === 'string' ? context.getString(result) : undefined;
      } finally {
        result.dispose();
      }
    };
    const name = read('name');
    const message = read('message');
    const stack = read('stack');
    return {
      ...(name === undefined ? {} : { name }),
      message: message ?? formatValue(context, thrown),
      ...(stack === undefined ? {} : { stack: `${name ?? 'Error'}: ${message ?? ''}\n${stack}`.trimEnd() }),
    };
  } catch {
    return { message: '[a thrown value that could not be read]' };
  }
}

/** A thrown value that is not an error, as text in the style of Node's `util.inspect`, for the failure's message. */
export function formatValue(context: QuickJSContext, handle: QuickJSHandle): string {
  try {
    const type = context.typeof(handle);
    switch (type) {
      case 'string':
        return context.getString(handle);
      case 'undefined':
        return 'undefined';
      case 'number':
        return inspect(context.getNumber(handle));
      case 'bigint':
        return `${context.getBigInt(handle)}n`;
      case 'symbol':
        return String(context.getSymbol(handle));
      case 'function': {
        const name = context.getProp(handle, 'name');
        const text = context.typeof(name) === 'string' ? context.getString(name) : '';
        name.dispose();
        return text === '' ? '[Function (anonymous)]' : `[Function: ${text}]`;
      }
      default: {
        const dumped: unknown = context.dump(handle);
        if (isDumpedError(dumped))
          return dumped.stack
            ? `${dumped.name}: ${dumped.message}\n${dumped.stack}`.trimEnd()
            : `${dumped.name}: ${dumped.message}`;
        // One line, two levels deep, 100 items: as the worker-thread provider prints (and Node's depth).
        return inspect(dumped, {
          breakLength: Number.POSITIVE_INFINITY,
          compact: true,
          depth: 2,
          maxArrayLength: 100,
          maxStringLength: 10_000,
        });
      }
    }
  } catch {
    return '[value that could not be printed]';
  }
}

function isDumpedError(value: unknown): value is { name: string; message: string; stack?: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { name, message } = value as Record<string, unknown>;
  return typeof name === 'string' && typeof message === 'string' && /Error$/.test(name);
}
