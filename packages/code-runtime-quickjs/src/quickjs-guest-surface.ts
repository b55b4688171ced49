// From the kit's web-globals entry, whose bundle keeps the classes' names (`URL`, not esbuild's `URL2`).
import { webGlobalsSource } from '@sluice/code-runtime-kit/web-globals';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';

/** Names a caller or a library probes on any object: never taken for a call of an ungranted name. */
export const probedNames: ReadonlySet<string> = new Set([
  'then',
  'toJSON',
  'constructor',
  'toString',
  'valueOf',
  'toLocaleString',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  '__proto__',
  'inspect',
  'asymmetricMatch',
  'nodeType',
  '$$typeof',
]);

/**
 * The web globals made in the guest on first use, from the kit's makers (the code the
 * worker-thread provider evaluates in its context). `crypto` and `performance` are left out: this
 * provider builds its own, which follow the deterministic mode.
 */
export const lazyWebGlobals: readonly string[] = [
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'atob',
  'btoa',
  'structuredClone',
  'AbortController',
  'AbortSignal',
  'DOMException',
];

/** Guest source whose value is `(hooks) => globals`: about 43 KB, 15 ms to parse, so only in a run that uses one. */
export const webMakersSource = webGlobalsSource();

/** What the made web globals reach of the run: its timers, its way to fail, its clock and randomness. */
export interface WebGlobalHooks {
  readonly setTimeout: (callback: QuickJSHandle, delay?: QuickJSHandle) => QuickJSHandle;
  readonly clearTimeout: (id?: QuickJSHandle) => void;
  /** Ends the run with `error` as its exception (what an abort listener threw). */
  readonly fail: (error: QuickJSHandle | undefined) => void;
  readonly now: () => number;
  readonly random: () => number;
  /** When the run started on its clock, in ms since the epoch. */
  readonly startedAt: () => number;
  /** Makes `console` print instances of `prototype` as the plain object `describer` returns for one. */
  readonly describe: (prototype: QuickJSHandle, describer: QuickJSHandle) => void;
}

/**
 * Defines the web globals on the guest's global object as accessors, built through the QuickJS
 * API (nothing parsed): the first read or write of any of them evaluates the makers inside the
 * guest and replaces every accessor by the value made. Returns what frees the made globals.
 */
export function installLazyWebGlobals(context: QuickJSContext, hooks: WebGlobalHooks): () => void {
  let made: QuickJSHandle | undefined;
  let define: QuickJSHandle | undefined;
  // The API defines only read-only data properties: a made global is writable, as in the worker-thread provider.
  const data = (name: string, value: QuickJSHandle) =>
    context
      .newString(name)
      .consume((key) =>
        context.unwrapResult(context.callFunction(define!, context.undefined, context.global, key, value)).dispose(),
      );
  const make = (): QuickJSHandle => {
    if (made !== undefined) return made;
    const pair = context.unwrapResult(
      context.evalCode(
        `[${webMakersSource}, (target, key, value) => { Object.defineProperty(target, key, { value, writable: true, enumerable: false, configurable: true }); }]`,
        'sluice-web-globals.js',
      ),
    );
    const maker = context.getProp(pair, 0);
    define ??= context.getProp(pair, 1);
    pair.dispose();
    const guestHooks = context.newObject();
    const put = (name: string, value: QuickJSHandle) => {
      context.setProp(guestHooks, name, value);
      value.dispose();
    };
    put(
      'setTimeout',
      context.newFunction('setTimeout', (callback, delay) => hooks.setTimeout(callback, delay)),
    );
    put(
      'clearTimeout',
      context.newFunction('clearTimeout', (id) => hooks.clearTimeout(id)),
    );
    put(
      'fail',
      context.newFunction('fail', (error) => hooks.fail(error)),
    );
    put(
      'now',
      context.newFunction('now', () => context.newNumber(hooks.now())),
    );
    put(
      'random',
      context.newFunction('random', () => context.newNumber(hooks.random())),
    );
    put(
      'startedAt',
      context.newFunction('startedAt', () => context.newNumber(hooks.startedAt())),
    );
    put(
      'describe',
      context.newFunction('describe', (prototype, describer) => {
        if (prototype !== undefined && describer !== undefined) hooks.describe(prototype, describer);
      }),
    );
    const result = context.callFunction(maker, context.undefined, guestHooks);
    maker.dispose();
    guestHooks.dispose();
    // A guest error (the program broke a built-in the makers use): thrown on, inside the guest.
    if (result.error !== undefined) throw result.error;
    made = result.value;
    for (const name of lazyWebGlobals) context.getProp(result.value, name).consume((value) => data(name, value));
    return made;
  };
  for (const name of lazyWebGlobals) {
    context.defineProp(context.global, name, {
      configurable: true,
      enumerable: false,
      get: () => context.getProp(make(), name),
      set: (value) => {
        make();
        data(name, value);
      },
    });
  }
  return () => {
    made?.dispose();
    define?.dispose();
  };
}
