import type { WebHooks, WebMade } from './web-globals-hooks.js';

/**
 * Makes `DOMException`, `AbortController`, `AbortSignal`, `structuredClone`, `crypto`
 * (`randomUUID`, `getRandomValues`) and a coarse `performance` in the run's context. Serialised with
 * `Function.prototype.toString`: self-contained, strict, no imports.
 *
 * `crypto` draws from the context's own `Math.random` (xorshift128+, seeded by V8 per isolate):
 * good for ids and sampling, not cryptographically strong. `performance.now()` counts whole
 * milliseconds from the start of the run, never going back: no finer than `Date.now()`, so it adds
 * no timer a timing side channel could use.
 */
export function makeWebBasics(hooks: WebHooks, made: WebMade): void {
  const { setTimeout, fail, random, now, startedAt, describe } = hooks;
  const codes: Record<string, number> = {
    IndexSizeError: 1,
    NotFoundError: 8,
    NotSupportedError: 9,
    InvalidStateError: 11,
    SyntaxError: 12,
    InvalidCharacterError: 5,
    TypeMismatchError: 17,
    AbortError: 20,
    TimeoutError: 23,
    DataCloneError: 25,
    QuotaExceededError: 22,
  };

  class DOMException extends Error {
    constructor(message: unknown = '', name: unknown = 'Error') {
      super(`${message}`);
      Object.defineProperty(this, 'name', { value: `${name}`, writable: true, enumerable: false, configurable: true });
    }
    get code(): number {
      return codes[this.name] ?? 0;
    }
  }

  const internal = Symbol('internal');
  const abortReason = (reason: unknown) =>
    reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;

  interface Listener {
    readonly callback: unknown;
    readonly once: boolean;
  }

  let abortSignal: (signal: AbortSignal, reason: unknown) => void = () => {};
  class AbortSignal {
    #aborted = false;
    #reason: unknown;
    #listeners: Listener[] = [];
    #handler: ((this: AbortSignal, event: object) => unknown) | null = null;
    constructor(token: unknown) {
      if (token !== internal) throw new TypeError('Illegal constructor: use new AbortController().signal.');
    }
    get aborted(): boolean {
      return this.#aborted;
    }
    get reason(): unknown {
      return this.#reason;
    }
    get onabort(): unknown {
      return this.#handler;
    }
    set onabort(handler: unknown) {
      this.#handler = typeof handler === 'function' ? (handler as (event: object) => unknown) : null;
    }
    throwIfAborted(): void {
      if (this.#aborted) throw this.#reason;
    }
    addEventListener(type: unknown, callback: unknown, options?: unknown): void {
      if (`${type}` !== 'abort' || callback === null || callback === undefined || this.#aborted) return;
      if (this.#listeners.some((listener) => listener.callback === callback)) return;
      const once = typeof options === 'object' && options !== null && Boolean((options as { once?: unknown }).once);
      this.#listeners.push({ callback, once });
    }
    removeEventListener(type: unknown, callback: unknown): void {
      if (`${type}` !== 'abort') return;
      this.#listeners = this.#listeners.filter((listener) => listener.callback !== callback);
    }
    static abort(reason?: unknown): AbortSignal {
      const signal = new AbortSignal(internal);
      signal.#abort(abortReason(reason));
      return signal;
    }
    static timeout(ms: unknown): AbortSignal {
      const signal = new AbortSignal(internal);
      setTimeout(
        () => signal.#abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
        Number(ms),
      );
      return signal;
    }
    static any(signals: Iterable<AbortSignal>): AbortSignal {
      const combined = new AbortSignal(internal);
      const list = [...signals];
      for (const signal of list) {
        if (!(#aborted in signal)) throw new TypeError('AbortSignal.any needs AbortSignal objects.');
        if (signal.#aborted) {
          combined.#abort(signal.#reason);
          return combined;
        }
      }
      for (const signal of list) signal.addEventListener('abort', () => combined.#abort(signal.#reason));
      return combined;
    }
    static {
      abortSignal = (signal, reason) => signal.#abort(reason);
    }
    #abort(reason: unknown): void {
      if (this.#aborted) return;
      this.#aborted = true;
      this.#reason = reason;
      const event = Object.freeze({ type: 'abort', target: this, currentTarget: this, isTrusted: false });
      const listeners = this.#listeners;
      this.#listeners = [];
      const call = (callback: unknown) => {
        try {
          if (typeof callback === 'function') Reflect.apply(callback, this, [event]);
          else (callback as { handleEvent(event: object): unknown }).handleEvent(event);
        } catch (error) {
          // As an uncaught error in a listener would end a Node process: it ends the run.
          fail(error);
        }
      };
      if (this.#handler !== null) call(this.#handler);
      for (const listener of listeners) call(listener.callback);
    }
  }

  class AbortController {
    readonly #signal = new AbortSignal(internal);
    get signal(): AbortSignal {
      return this.#signal;
    }
    abort(reason?: unknown): void {
      abortSignal(this.#signal, abortReason(reason));
    }
  }

  const getTime = Date.prototype.getTime;
  const regExpSource = Object.getOwnPropertyDescriptor(RegExp.prototype, 'source')!.get!;
  const regExpFlags = Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags')!.get!;
  const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size')!.get!;
  const setSize = Object.getOwnPropertyDescriptor(Set.prototype, 'size')!.get!;
  const bufferLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')!.get!;
  const bufferSlice = ArrayBuffer.prototype.slice;
  const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
  const typedArrayName = Object.getOwnPropertyDescriptor(typedArrayPrototype, Symbol.toStringTag)!.get!;
  const viewLength = Object.getOwnPropertyDescriptor(DataView.prototype, 'byteLength')!.get!;
  const global = globalThis as unknown as Record<string, new (...args: unknown[]) => object>;
  const Bytes = global.Uint8Array as unknown as Uint8ArrayConstructor;
  const weakHas = [WeakMap.prototype.has, WeakSet.prototype.has, WeakRef.prototype.deref];
  const boxed = [
    Number.prototype.valueOf,
    String.prototype.valueOf,
    Boolean.prototype.valueOf,
    BigInt.prototype.valueOf,
  ];
  const errorNames = ['Error', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError', 'URIError'];

  const branded = (method: (...args: never[]) => unknown, value: unknown, args: unknown[] = []): boolean => {
    try {
      Reflect.apply(method, value, args);
      return true;
    } catch {
      return false;
    }
  };
  const cloneError = (what: string) => new DOMException(`${what} could not be cloned.`, 'DataCloneError');

  /** The structured clone of `value`: walked with an explicit stack, shared and cyclic references kept. */
  function structuredClone(...args: unknown[]): unknown {
    if (args.length === 0) throw new TypeError('structuredClone needs a value.');
    const value = args[0];
    const options = args[1] as { transfer?: unknown } | undefined;
    const transfer = options?.transfer;
    if (transfer !== undefined && [...(transfer as Iterable<unknown>)].length > 0) {
      throw new DOMException(
        'Transferring is not supported here; clone without the transfer option.',
        'DataCloneError',
      );
    }
    const clones = new Map<object, unknown>();
    const work: Array<() => void> = [];
    const copy = (source: unknown): unknown => {
      if (typeof source === 'symbol') throw cloneError(`${String(source)}`);
      if (typeof source === 'function') throw cloneError(`function ${(source as { name?: unknown }).name ?? ''}`);
      if (typeof source !== 'object' || source === null) return source;
      if (clones.has(source)) return clones.get(source);
      let target: object;
      if (branded(getTime, source)) target = new Date(Reflect.apply(getTime, source, []) as number);
      else if (branded(regExpSource, source) && source !== RegExp.prototype) {
        target = new RegExp(
          Reflect.apply(regExpSource, source, []) as string,
          Reflect.apply(regExpFlags, source, []) as string,
        );
      } else if (branded(bufferLength, source)) target = Reflect.apply(bufferSlice, source, []) as ArrayBuffer;
      else if (Reflect.apply(typedArrayName, source, []) !== undefined || branded(viewLength, source)) {
        const view = source as ArrayBufferView;
        const name = (Reflect.apply(typedArrayName, source, []) as string | undefined) ?? 'DataView';
        const buffer = copy(view.buffer) as ArrayBuffer;
        const length = name === 'DataView' ? view.byteLength : (view as Uint8Array).length;
        target = new global[name]!(buffer, view.byteOffset, length);
      } else if (branded(mapSize, source)) {
        const map = new Map<unknown, unknown>();
        target = map;
        const entries = [...(source as Map<unknown, unknown>)];
        work.push(() => {
          for (const [key, item] of entries) map.set(copy(key), copy(item));
        });
      } else if (branded(setSize, source)) {
        const set = new Set<unknown>();
        target = set;
        const items = [...(source as Set<unknown>)];
        work.push(() => {
          for (const item of items) set.add(copy(item));
        });
      } else if (boxed.some((method) => branded(method, source))) {
        const unbox = boxed.find((method) => branded(method, source))!;
        target = Object(Reflect.apply(unbox, source, [])) as object;
      } else if (weakHas.some((method) => branded(method, source, [{}])) || source instanceof Promise) {
        throw cloneError(`${Object.prototype.toString.call(source)}`);
      } else if (source instanceof Error) {
        const name = errorNames.includes(source.name) ? source.name : 'Error';
        const error = new (global[name] as unknown as ErrorConstructor)(source.message);
        if (typeof source.stack === 'string') error.stack = source.stack;
        target = error;
        if ('cause' in source) work.push(() => Object.assign(error, { cause: copy(source.cause) }));
      } else {
        const array = Array.isArray(source);
        target = array ? new Array((source as unknown[]).length) : {};
        const keys = Object.keys(source);
        work.push(() => {
          for (const key of keys) {
            Object.defineProperty(target, key, {
              value: copy((source as Record<string, unknown>)[key]),
              writable: true,
              enumerable: true,
              configurable: true,
            });
          }
        });
      }
      clones.set(source, target);
      return target;
    };
    const root = copy(value);
    while (work.length > 0) work.pop()!();
    return root;
  }

  const integerArrays = [
    'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
    'BigInt64Array', 'BigUint64Array',
  ]; // biome-ignore format: one name list

  const crypto = Object.freeze({
    getRandomValues<Target>(array: Target): Target {
      const name = (() => {
        try {
          return Reflect.apply(typedArrayName, array, []) as string | undefined;
        } catch {
          return undefined;
        }
      })();
      if (name === undefined || !integerArrays.includes(name)) {
        throw new DOMException('The data argument must be an integer-type TypedArray.', 'TypeMismatchError');
      }
      const view = array as unknown as Uint8Array;
      if (view.byteLength > 65_536) {
        throw new DOMException(
          `The ArrayBufferView's byte length (${view.byteLength}) exceeds 65536.`,
          'QuotaExceededError',
        );
      }
      const bytes = new Bytes(view.buffer, view.byteOffset, view.byteLength);
      for (let index = 0; index < bytes.length; index += 1) bytes[index] = Math.floor(random() * 256);
      return array;
    },
    randomUUID(): string {
      let text = '';
      for (let index = 0; index < 16; index += 1) {
        let byte = Math.floor(random() * 256);
        if (index === 6) byte = (byte & 0x0f) | 0x40;
        if (index === 8) byte = (byte & 0x3f) | 0x80;
        if (index === 4 || index === 6 || index === 8 || index === 10) text += '-';
        text += (byte < 16 ? '0' : '') + byte.toString(16);
      }
      return text;
    },
  });

  let last = 0;
  const performance = Object.freeze({
    now(): number {
      const elapsed = Math.max(last, Math.floor(now() - startedAt()));
      last = elapsed;
      return elapsed;
    },
    get timeOrigin(): number {
      return startedAt();
    },
    toJSON(): object {
      return { timeOrigin: startedAt() };
    },
  });

  describe(AbortSignal.prototype, (value) => {
    const signal = value as AbortSignal;
    return signal.aborted ? { aborted: true, reason: signal.reason } : { aborted: false };
  });
  describe(AbortController.prototype, (value) => ({ signal: (value as AbortController).signal }));
  made.globals.DOMException = DOMException;
  made.globals.AbortController = AbortController;
  made.globals.AbortSignal = AbortSignal;
  made.globals.structuredClone = structuredClone;
  made.globals.crypto = crypto;
  made.globals.performance = performance;
}
