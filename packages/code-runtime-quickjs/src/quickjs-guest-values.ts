import { inspect } from 'node:util';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';

/** The guest's own built-ins, read before the program runs, so a program that replaces them changes nothing here. */
export interface GuestIntrinsics {
  readonly stringify: QuickJSHandle;
  readonly parse: QuickJSHandle;
  readonly isArray: QuickJSHandle;
  readonly getPrototypeOf: QuickJSHandle;
  readonly objectPrototype: QuickJSHandle;
  readonly promisePrototype: QuickJSHandle;
  /** `(a, b) => a === b`: this build of QuickJS exposes no identity test of its own. */
  readonly same: QuickJSHandle;
  /** `namespaceSource` and `awaitableSource`, evaluated on first need. */
  namespace?: QuickJSHandle;
  awaitable?: QuickJSHandle;
  /** Whether a value nests deeper than a limit: an iterative walk, evaluated on first need. */
  tooDeep?: QuickJSHandle;
}

// Walk, don't recurse: the engine's JSON.stringify recurses in C, whose frames use the thread's
// stack faster than QuickJS's own stack check sees, so depth is checked first, iteratively.
// Getters and Proxy traps run here as they would in JSON.stringify.
const tooDeepSource = `((keys) => (value, limit) => {
  const stack = [value, 0];
  const seen = new Set();
  while (stack.length > 0) {
    const depth = stack.pop();
    const item = stack.pop();
    if (typeof item !== 'object' || item === null || seen.has(item)) continue;
    if (depth >= limit) return true;
    seen.add(item);
    const names = keys(item);
    for (let index = 0; index < names.length; index += 1) stack.push(item[names[index]], depth + 1);
  }
  return false;
})(Object.keys)`;

/** The JSON nesting limit at the boundary, as the contract's `jsonDepthLimit`. */
const depthLimit = 512;

/** Reads {@link GuestIntrinsics} from a fresh context. The caller disposes them. */
export function captureIntrinsics(context: QuickJSContext): GuestIntrinsics {
  const json = context.getProp(context.global, 'JSON');
  const object = context.getProp(context.global, 'Object');
  const array = context.getProp(context.global, 'Array');
  const promise = context.getProp(context.global, 'Promise');
  const intrinsics = {
    stringify: context.getProp(json, 'stringify'),
    parse: context.getProp(json, 'parse'),
    isArray: context.getProp(array, 'isArray'),
    getPrototypeOf: context.getProp(object, 'getPrototypeOf'),
    objectPrototype: context.getProp(object, 'prototype'),
    promisePrototype: context.getProp(promise, 'prototype'),
    same: context.unwrapResult(context.evalCode('(a, b) => a === b', 'sluice-same.js')),
  };
  for (const handle of [json, object, array, promise]) handle.dispose();
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

const violationMarker = 'sluice: not JSON';

/**
 * Writes `value` as the guest's own `JSON.stringify` writes it (its `toJSON` methods run inside
 * QuickJS, `undefined` properties are left out), refusing what JSON cannot carry: NaN, ±Infinity,
 * BigInt, and objects other than plain objects and arrays. A cycle or nesting past the guest's stack
 * is refused as well. What a `toJSON` or a Proxy trap throws comes back as `thrown`, with the error.
 */
export function encodeGuestValue(
  context: QuickJSContext,
  intrinsics: GuestIntrinsics,
  value: QuickJSHandle,
  maxChars: number,
): Encoded {
  const rootType = context.typeof(value);
  if (rootType === 'undefined') return { ok: true, json: undefined };
  if (rootType === 'function' || rootType === 'symbol') {
    return { ok: false, kind: 'not-json', message: `the value is a ${rootType}, which JSON cannot carry` };
  }
  if (rootType === 'object') {
    intrinsics.tooDeep ??= context.unwrapResult(context.evalCode(tooDeepSource, 'sluice-depth.js'));
    const deep = context
      .newNumber(depthLimit)
      .consume((limit) => context.callFunction(intrinsics.tooDeep!, context.undefined, value, limit));
    if (deep.error !== undefined) return { ok: false, kind: 'thrown', message: '', error: deep.error };
    if (deep.value.consume((handle) => context.dump(handle) === true)) {
      return { ok: false, kind: 'not-json', message: `the value is nested more than ${depthLimit} levels deep` };
    }
  }
  let violation: string | undefined;
  const replacer = context.newFunction('', (key, member) => {
    const problem = violationOf(context, intrinsics, member);
    if (problem !== undefined) {
      const keyText = context.typeof(key) === 'string' ? context.getString(key) : '';
      violation = keyText === '' ? `the value ${problem}` : `the property "${keyText}" ${problem}`;
      throw new Error(violationMarker);
    }
    return member.dup();
  });
  const result = context.callFunction(intrinsics.stringify, context.undefined, value, replacer);
  replacer.dispose();
  if (result.error !== undefined) {
    if (violation !== undefined) {
      result.error.dispose();
      return { ok: false, kind: 'not-json', message: `${violation}, which JSON cannot carry` };
    }
    const described = describeThrown(context, result.error, false);
    if (described.name === 'RangeError' || /circular/i.test(described.message)) {
      result.error.dispose();
      return {
        ok: false,
        kind: 'not-json',
        message: /circular/i.test(described.message)
          ? 'the value contains a cycle, which JSON cannot carry'
          : 'the value is nested too deeply to be written as JSON',
      };
    }
    return { ok: false, kind: 'thrown', message: described.message, error: result.error };
  }
  const text = result.value;
  try {
    if (context.typeof(text) !== 'string') return { ok: true, json: undefined };
    const length = context.getProp(text, 'length').consume((handle) => context.getNumber(handle));
    if (length > maxChars) return { ok: false, kind: 'too-large', message: `${length} characters` };
    return { ok: true, json: context.getString(text) };
  } finally {
    text.dispose();
  }
}

function violationOf(context: QuickJSContext, intrinsics: GuestIntrinsics, member: QuickJSHandle): string | undefined {
  const type = context.typeof(member);
  if (type === 'number') {
    const number = context.getNumber(member);
    return Number.isFinite(number) ? undefined : `is ${number}`;
  }
  if (type === 'bigint') return 'is a BigInt';
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
    const text = name !== undefined && context.typeof(name) === 'string' ? context.getString(name) : 'an object';
    name?.dispose();
    return `is a ${text} (not a plain object or array: convert it, for example with Object.fromEntries or Array.from)`;
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

/** One `console` argument as text, in the style of Node's `util.inspect`. */
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
        return inspect(dumped, {
          breakLength: Number.POSITIVE_INFINITY,
          depth: 6,
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
  return (
    typeof name === 'string' && typeof message === 'string' && /Error$/.test(name) && Object.keys(value).length <= 3
  );
}
