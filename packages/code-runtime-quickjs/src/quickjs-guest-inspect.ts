// What `console` prints: the worker-thread provider's inspector (the kit's `makeInspector`), run
// inside the guest, so both providers print a value alike. Its source (about 11 KB) takes about
// 1.5 ms to compile, so it is compiled while the thread is idle (a spare context waiting for its
// run), or else the first time a run prints something other than text, numbers, booleans, null and
// undefined; runs that print only those are formatted here on the host.
import { captureInspectIntrinsics, makeInspector, makePrintf } from '@sluice/code-runtime-kit/web-globals';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';

/**
 * Guest source whose value is `[inspect, describe]`: `inspect(...args)` is the text of one
 * `console` call; `describe(prototype, describer)` makes instances of a web global's class print as
 * the plain object `describer` returns (the web globals' `describe` hook).
 */
const inspectorSource = `(() => {
'use strict';
const __name = (target) => target;
const described = new Map(), set = Map.prototype.set, apply = Reflect.apply;
const getPrototypeOf = Object.getPrototypeOf, own = Object.getOwnPropertyDescriptor, internal = InternalError.prototype;
// The engine's out of memory, catchable in QuickJS: thrown on, so the run ends as memory.
const fatal = (error) => typeof error === 'object' && error !== null && getPrototypeOf(error) === internal && own(error, 'message')?.value === 'out of memory';
const inspect = (${makeInspector})((${captureInspectIntrinsics})(), ${makePrintf}, described, fatal);
return [(...args) => inspect(args), (prototype, describer) => { apply(set, described, [prototype, describer]); }];
})()`;

/** The guest's inspector, compiled on first use; {@link GuestInspector.dispose} frees what it made. */
export class GuestInspector {
  readonly #context: QuickJSContext;
  readonly #isNull: (handle: QuickJSHandle) => boolean;
  #made: { readonly inspect: QuickJSHandle; readonly describe: QuickJSHandle } | undefined;
  #making = false;
  /** Web globals' describers registered before the inspector was made. */
  #pending: Array<[QuickJSHandle, QuickJSHandle]> = [];

  /** `isNull` tells the guest's `null` from its other objects (without running anything of the program's). */
  constructor(context: QuickJSContext, isNull: (handle: QuickJSHandle) => boolean) {
    this.#context = context;
    this.#isNull = isNull;
  }

  /**
   * The text of one `console` call with `args`. Text, numbers, booleans, null and undefined alone
   * are formatted here as the inspector would; anything else, or a printf template, in the guest.
   * `{ error }` is what the guest threw there, for the caller to throw on: the inspector catches
   * what a value's getters and traps throw, so this is a budget's stop (the deadline, the memory).
   */
  format(args: readonly QuickJSHandle[]): string | { readonly error: QuickJSHandle } {
    const context = this.#context;
    const first = args[0];
    const template = args.length > 1 && first !== undefined && context.typeof(first) === 'string';
    if (!template || !context.getString(first).includes('%')) {
      const pieces: string[] = [];
      for (const handle of args) {
        const piece = plainText(context, handle, this.#isNull);
        if (piece === undefined) return this.#inGuest(args);
        pieces.push(piece);
      }
      return pieces.join(' ');
    }
    return this.#inGuest(args);
  }

  /** Whether the inspector is compiled. */
  get ready(): boolean {
    return this.#made !== undefined;
  }

  /** Compiles the inspector ahead of its first use. Throws when the engine fails. */
  prepare(): void {
    const failed = this.#make();
    if (failed !== undefined) {
      failed.error.dispose();
      throw new Error('the console inspector did not compile');
    }
  }

  /** Compiles the inspector unless it is: `{ error }` is what the guest threw instead (out of memory). */
  compile(): { readonly error: QuickJSHandle } | undefined {
    return this.#make();
  }

  /** The web globals' `describe` hook: kept until the inspector exists. */
  describe(prototype: QuickJSHandle, describer: QuickJSHandle): void {
    if (this.#made === undefined) this.#pending.push([prototype.dup(), describer.dup()]);
    else this.#register(prototype, describer);
  }

  dispose(): void {
    for (const [prototype, describer] of this.#pending) {
      prototype.dispose();
      describer.dispose();
    }
    this.#pending = [];
    this.#made?.inspect.dispose();
    this.#made?.describe.dispose();
    this.#made = undefined;
  }

  /** Compiles the inspector unless it is; `{ error }` is what the guest threw instead. */
  #make(): { readonly error: QuickJSHandle } | undefined {
    if (this.#made !== undefined) return undefined;
    const context = this.#context;
    // Compiling it reads built-ins, and a program may have made one a getter that prints: that
    // print must not compile a second inspector inside the first.
    if (this.#making)
      return {
        error: context.newError(
          'console was called from a getter that console itself read while preparing to print: print after the getter returns',
        ),
      };
    this.#making = true;
    let evaluated: ReturnType<QuickJSContext['evalCode']>;
    try {
      evaluated = context.evalCode(inspectorSource, 'sluice-inspect.js');
    } finally {
      this.#making = false;
    }
    if (evaluated.error !== undefined) return { error: evaluated.error };
    const pair = evaluated.value;
    this.#made = { inspect: context.getProp(pair, 0), describe: context.getProp(pair, 1) };
    pair.dispose();
    const pending = this.#pending;
    this.#pending = [];
    for (const [prototype, describer] of pending) {
      this.#register(prototype, describer);
      prototype.dispose();
      describer.dispose();
    }
    return undefined;
  }

  #inGuest(args: readonly QuickJSHandle[]): string | { readonly error: QuickJSHandle } {
    const context = this.#context;
    const failed = this.#make();
    if (failed !== undefined) return failed;
    const result = context.callFunction(this.#made!.inspect, context.undefined, ...args);
    if (result.error !== undefined) return { error: result.error };
    return result.value.consume((text) => context.getString(text));
  }

  /**
   * Registers one describer. It can fail only when the program broke a built-in the registration
   * uses (`Map.prototype.set`), and then that class prints by its fields: nothing is thrown.
   */
  #register(prototype: QuickJSHandle, describer: QuickJSHandle): void {
    const context = this.#context;
    const result = context.callFunction(this.#made!.describe, context.undefined, prototype, describer);
    (result.error ?? result.value).dispose();
  }
}

/**
 * Whether a guest value is truthy, as `!!value` in the guest, read without running anything of the
 * program's (an object is truthy whatever its getters, `toJSON` or traps would say).
 */
export function isTruthy(
  context: QuickJSContext,
  handle: QuickJSHandle,
  isNull: (handle: QuickJSHandle) => boolean,
): boolean {
  switch (context.typeof(handle)) {
    case 'undefined':
      return false;
    case 'boolean':
      return context.dump(handle) === true;
    case 'number': {
      const value = context.getNumber(handle);
      return value !== 0 && !Number.isNaN(value);
    }
    case 'bigint':
      return context.getBigInt(handle) !== 0n;
    case 'string':
      return context.getString(handle) !== '';
    case 'object':
      return !isNull(handle);
    default:
      return true; // functions and symbols
  }
}

/** A primitive as the inspector prints it at the top level, or `undefined` for anything it must see. */
function plainText(
  context: QuickJSContext,
  handle: QuickJSHandle,
  isNull: (handle: QuickJSHandle) => boolean,
): string | undefined {
  switch (context.typeof(handle)) {
    case 'string':
      return context.getString(handle);
    case 'number': {
      const value = context.getNumber(handle);
      return Object.is(value, -0) ? '-0' : String(value);
    }
    case 'boolean':
    case 'undefined':
      return String(context.dump(handle));
    case 'object':
      return isNull(handle) ? 'null' : undefined;
    default:
      return undefined;
  }
}
