import { codemodeAmbiguity, codemodeGlobal, codemodeReadings } from '@sluice/code-runtime-kit/web-globals';
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import type { QuickJsEnding, QuickJsRunConfig, QuickJsStopCause, QuickJsToHost, WasmMemory } from './quickjs-frames.js';
import { installLazyBuiltins } from './quickjs-guest-builtins.js';
import { type GuestRandom, seededRandom, systemRandom, uuidFrom, virtualDateSource } from './quickjs-guest-clock.js';
import { GuestInspector, isTruthy } from './quickjs-guest-inspect.js';
import { installLazyWebGlobals, lazyWebGlobals, probedNames } from './quickjs-guest-surface.js';
import {
  captureIntrinsics,
  describeThrown,
  type Encoded,
  encodeGuestValue,
  type GuestIntrinsics,
  isSame,
} from './quickjs-guest-values.js';
import { installLazyCollation, installLazyIntl } from './quickjs-intl.js';

const levels = { log: 1, info: 2, debug: 3, warn: 4, error: 5 } as const;

interface GuestTimer {
  readonly callback: QuickJSHandle;
  /** Arguments after the delay, passed to the callback (as WHATWG timers do). */
  readonly args: QuickJSHandle[];
  readonly repeat: boolean;
  readonly delayMs: number;
  due: number;
  handle: ReturnType<typeof setTimeout> | undefined;
}

/**
 * One program in one fresh QuickJS runtime and context, inside a worker thread. The runtime, the
 * context and the globals that do not depend on the run are made ahead, while the worker waits for
 * work (the constructor); {@link GuestRun.start} gives them to a run. Every entry into the
 * interpreter is a turn (the program's start, a host reply, a timer), followed by draining the job
 * queue; the interrupt handler stops a turn at the CPU budget or when the host asks. The run frees
 * its runtime at the end; after a trap it leaves it alone and asks for the thread to end.
 */
export class GuestRun {
  /** The host's number for the run; -1 while the context waits for one. */
  seq = -1;
  readonly #runtime: QuickJSRuntime;
  readonly #context: QuickJSContext;
  readonly #intrinsics: GuestIntrinsics;
  readonly #inspector: GuestInspector;
  readonly #memory: WasmMemory;
  readonly #control: Int32Array;
  #config: QuickJsRunConfig;
  readonly #send: (message: QuickJsToHost) => void;
  readonly #onEnd: (retire: boolean) => void;
  #random: GuestRandom = systemRandom();
  readonly #pending = new Map<number, QuickJSDeferredPromise>();
  readonly #replies = new Map<number, { ok: boolean; text: string }>();
  readonly #timers = new Map<number, GuestTimer>();
  #startedAt = 0;
  /** When the run started on its clock (virtual in deterministic mode), in ms since the epoch. */
  #startTime = 0;
  #started = false;
  #trapped = false;
  #disposed = false;
  #completion: QuickJSHandle | undefined;
  #busyMs = 0;
  #turnStart = 0;
  #inTurn = false;
  #calls = 0;
  #nextDelivery = 1;
  #timerCount = 0;
  #logBytes = 0;
  #stopped: QuickJsStopCause | undefined;
  /** What a web global's callback threw (an abort listener): the run ends with it as its exception. */
  #failure: QuickJSHandle | undefined;
  readonly #freeWebGlobals: () => void;
  readonly #freeBuiltins: () => void;
  readonly #freeIntl: () => void;
  readonly #freeCollation: () => void;
  readonly #performance: QuickJSHandle;
  #ended = false;
  #virtualMs = 0;
  #idleCheck: ReturnType<typeof setImmediate> | undefined;

  /**
   * Makes the runtime, the context and the globals every run has. Throws when the engine fails
   * (a trap), after freeing what it made.
   */
  constructor(
    module: QuickJSWASMModule,
    memory: WasmMemory,
    control: Int32Array,
    config: QuickJsRunConfig,
    send: (message: QuickJsToHost) => void,
    onEnd: (retire: boolean) => void,
  ) {
    this.#memory = memory;
    this.#control = control;
    this.#config = config;
    this.#send = send;
    this.#onEnd = onEnd;
    this.#runtime = module.newRuntime({
      memoryLimitBytes: config.memoryBytes,
      maxStackSizeBytes: config.stackBytes,
      interruptHandler: () => this.#interrupt(),
    });
    try {
      this.#context = this.#runtime.newContext();
      this.#intrinsics = captureIntrinsics(this.#context);
      this.#inspector = new GuestInspector(this.#context, this.#isNull);
      const timers = this.#installTimers();
      this.#performance = this.#installClock();
      this.#installConsole();
      this.#freeWebGlobals = installLazyWebGlobals(this.#context, {
        ...timers,
        fail: (error) => {
          // Several listeners may throw in one turn: the first one ends the run.
          this.#failure ??= error === undefined ? this.#context.undefined : error.dup();
        },
        now: () => this.#now(),
        random: () => this.#random.next(),
        startedAt: () => this.#startTime,
        describe: (prototype, describer) => this.#inspector.describe(prototype, describer),
      });
      this.#freeBuiltins = installLazyBuiltins(this.#context);
      this.#freeIntl = installLazyIntl(this.#context);
      this.#freeCollation = installLazyCollation(this.#context);
    } catch (error) {
      this.#runtime.dispose();
      throw error;
    }
  }

  /**
   * Gives the prepared context to run `seq`, with `deterministic` in place of the worker's setting
   * when given: binds its host functions, evaluates the program and runs its first turn.
   */
  start(
    seq: number,
    code: string,
    bindings: readonly string[],
    deterministic?: { readonly seed: number; readonly startTime: number },
  ): void {
    this.seq = seq;
    if (deterministic !== undefined) this.#config = { ...this.#config, deterministic };
    if (this.#config.deterministic !== undefined) this.#random = seededRandom(this.#config.deterministic.seed);
    this.#started = true;
    this.#startedAt = performance.now();
    this.#startTime = this.#now();
    this.#turn(() => {
      const context = this.#context;
      this.#define(this.#performance, 'timeOrigin', context.newNumber(this.#startTime));
      if (this.#config.deterministic !== undefined) {
        this.#installVirtualDate();
        // Compiled before the program, console reads built-ins the program has not replaced, so what
        // a run prints never depends on whether its context was warmed while the thread was idle.
        const failed = this.#inspector.compile();
        if (failed !== undefined) {
          this.#endWithThrown(failed.error);
          return;
        }
      }
      this.#installBindings(bindings);
      const evaluated = context.evalCode(code, 'program.js');
      if (evaluated.error !== undefined) {
        this.#endWithThrown(evaluated.error);
        return;
      }
      this.#completion = evaluated.value;
    });
  }

  #interrupt(): boolean {
    // No program runs while the context waits for a run.
    if (!this.#started) return false;
    if (this.#stopped !== undefined || this.#failure !== undefined) return true;
    if (Atomics.load(this.#control, 0) === this.seq) this.#stopped = 'interrupted';
    else if (this.#cpuMs() > this.#config.cpuTimeMs) this.#stopped = 'cpu-time';
    return this.#stopped !== undefined;
  }

  /** Whether `console`'s inspector is still to be compiled in this waiting context. */
  get consoleCold(): boolean {
    return !this.#started && !this.#inspector.ready;
  }

  /**
   * Compiles `console`'s inspector while the context waits for its run (idle work). Throws when
   * the engine fails; the context is then not to be used.
   */
  warmConsole(): void {
    this.#inspector.prepare();
  }

  /** The host's answer to call `callId`. In deterministic mode answers are delivered in the order the calls were made. */
  reply(callId: number, ok: boolean, text: string): void {
    if (this.#ended || !this.#pending.has(callId)) return;
    if (this.#config.deterministic === undefined) {
      this.#turn(() => this.#deliver(callId, ok, text));
      return;
    }
    this.#replies.set(callId, { ok, text });
    // One result a turn, each followed by every job it causes, so what the program does between two
    // results cannot depend on whether the host's answers arrived together or apart.
    while (!this.#ended) {
      while (!this.#pending.has(this.#nextDelivery) && this.#nextDelivery <= this.#calls) this.#nextDelivery += 1;
      const next = this.#replies.get(this.#nextDelivery);
      if (next === undefined) return;
      const delivered = this.#nextDelivery;
      this.#replies.delete(delivered);
      this.#turn(() => {
        // Each result moves the virtual clock on by one millisecond.
        this.#virtualMs += 1;
        this.#deliver(delivered, next.ok, next.text);
      });
    }
  }

  /** The host ended the run (wall clock, cancel, dispose) while the program was waiting. */
  stop(): void {
    if (this.#ended) return;
    this.#stopped ??= 'interrupted';
    this.#finish({ kind: 'stopped', cause: this.#stopped, detail: '' }, false);
  }

  #deliver(callId: number, ok: boolean, text: string): void {
    const deferred = this.#pending.get(callId);
    if (deferred === undefined) return;
    this.#pending.delete(callId);
    const context = this.#context;
    if (ok) {
      const parsed = context
        .newString(text)
        .consume((json) => context.callFunction(this.#intrinsics.parse, context.undefined, json));
      if (parsed.error !== undefined) {
        parsed.error.dispose();
        context.newError('The host sent a reply that is not JSON.').consume((error) => deferred.reject(error));
      } else parsed.value.consume((value) => deferred.resolve(value));
    } else context.newError(text).consume((error) => deferred.reject(error));
    deferred.dispose();
  }

  #turn(enter: () => void): void {
    if (this.#ended) return;
    this.#turnStart = performance.now();
    this.#inTurn = true;
    try {
      enter();
      if (!this.#ended) this.#drain();
      this.#check();
    } catch (error) {
      // A trap inside the WebAssembly module (or the host's stack exhausted by it): the engine's
      // state is unknown, so nothing of it is touched again.
      this.#trapped = true;
      this.#finish(
        { kind: 'stopped', cause: 'trap', detail: error instanceof Error ? error.message : String(error) },
        true,
      );
    } finally {
      this.#busyMs += performance.now() - this.#turnStart;
      this.#inTurn = false;
    }
  }

  /** CPU time of the run so far, in ms: the turns that ended, and the one in progress (a run can end inside its turn). */
  #cpuMs(): number {
    return this.#busyMs + (this.#inTurn ? performance.now() - this.#turnStart : 0);
  }

  #drain(): void {
    while (this.#runtime.hasPendingJob()) {
      const result = this.#runtime.executePendingJobs(-1);
      if (result.error !== undefined) {
        // An interrupt surfaces here: the stop check below decides.
        if (this.#stopped !== undefined || this.#failure !== undefined) {
          result.error.dispose();
          return;
        }
        // Promise jobs settle promises and never throw out: this is a queueMicrotask callback's
        // uncaught exception (or an allocation that failed), which ends the run as in the
        // worker-thread provider.
        this.#endWithThrown(result.error);
        return;
      }
    }
  }

  #check(): void {
    if (this.#ended) return;
    if (this.#failure !== undefined && this.#stopped === undefined) {
      const failure = this.#failure;
      this.#failure = undefined;
      this.#endWithThrown(failure);
      return;
    }
    if (this.#stopped !== undefined) {
      this.#finish({ kind: 'stopped', cause: this.#stopped, detail: '' }, false);
      return;
    }
    const completion = this.#completion;
    if (completion === undefined) return;
    const state = this.#context.getPromiseState(completion);
    if (state.type === 'pending') {
      if (this.#config.deterministic !== undefined) this.#scheduleIdleCheck();
      return;
    }
    if (state.type === 'fulfilled') {
      const value = state.value;
      let encoded: Encoded;
      try {
        encoded = encodeGuestValue(this.#context, this.#intrinsics, value, this.#config.valueChars);
      } finally {
        value.dispose();
      }
      if (this.#stopped !== undefined) {
        this.#finish({ kind: 'stopped', cause: this.#stopped, detail: '' }, false);
        return;
      }
      if (encoded.ok)
        this.#finish(encoded.json === undefined ? { kind: 'none' } : { kind: 'value', json: encoded.json }, false);
      else if (encoded.kind === 'thrown') this.#endWithThrown(encoded.error!);
      else if (encoded.kind === 'too-large') this.#finish({ kind: 'too-large' }, false);
      else this.#finish({ kind: 'not-json', message: encoded.message }, false);
      return;
    }
    this.#endWithThrown(state.error);
  }

  /** In deterministic mode a timer fires when nothing else can happen: no job, no call in flight. */
  #scheduleIdleCheck(): void {
    if (this.#idleCheck !== undefined || this.#pending.size > 0) return;
    this.#idleCheck = setImmediate(() => {
      this.#idleCheck = undefined;
      if (this.#ended || this.#pending.size > 0) return;
      let next: [number, GuestTimer] | undefined;
      for (const entry of this.#timers) if (next === undefined || entry[1].due < next[1].due) next = entry;
      if (next === undefined) return;
      this.#virtualMs = Math.max(this.#virtualMs, next[1].due);
      this.#fire(next[0]);
    });
  }

  #endWithThrown(error: QuickJSHandle): void {
    let thrown = error;
    if (this.#failure !== undefined) {
      // The interrupt that stopped the program for a failed callback surfaces here: the callback's error wins.
      thrown.dispose();
      thrown = this.#failure;
      this.#failure = undefined;
    }
    const type = this.#context.typeof(thrown);
    const isNull = type === 'object' && isSame(this.#context, this.#intrinsics, thrown, this.#context.null);
    // When the engine runs out of memory where it cannot even throw, the exception it leaves is its
    // internal uninitialized value: typeof says undefined, but it is not the `undefined` a program can throw.
    const isUninitialized =
      type === 'undefined' && !isSame(this.#context, this.#intrinsics, thrown, this.#context.undefined);
    const described = describeThrown(this.#context, thrown, isNull);
    thrown.dispose();
    if (this.#stopped !== undefined) {
      this.#finish({ kind: 'stopped', cause: this.#stopped, detail: '' }, false);
      return;
    }
    // QuickJS throws null, or nothing, when even the error object cannot be allocated; an
    // InternalError whose name or message could not be read back (empty) is the same exhaustion.
    const exhausted =
      (described.name === 'InternalError' && (described.message === '' || /out of memory/.test(described.message))) ||
      (described.name === undefined && /^InternalError:? ?$/.test(described.message));
    if (isNull || isUninitialized || exhausted) {
      this.#finish({ kind: 'stopped', cause: 'memory', detail: described.message }, false);
      return;
    }
    this.#finish({ kind: 'error', ...described }, false);
  }

  #finish(ending: QuickJsEnding, trapped: boolean): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#idleCheck !== undefined) clearImmediate(this.#idleCheck);
    for (const timer of this.#timers.values()) clearTimeout(timer.handle);
    const peakMemoryBytes = this.#memory.buffer.byteLength;
    // A run that grew the linear memory past half its cap leaves a worker that would start the next run crowded.
    const retire = trapped || peakMemoryBytes > this.#config.memoryBytes / 2 + 24 * 1024 * 1024;
    this.#send({ type: 'done', seq: this.seq, ending, cpuMs: Math.round(this.#cpuMs()), peakMemoryBytes, retire });
    this.#onEnd(retire);
  }

  /**
   * Frees the runtime of a run that has ended (the worker calls it once the result is sent).
   * Answers whether it could: a runtime that would not free leaves an engine not to be trusted.
   * A run that ended on a trap is never touched again, and answers `false`.
   */
  dispose(): boolean {
    if (this.#disposed) return !this.#trapped;
    this.#disposed = true;
    if (this.#trapped) return false;
    try {
      for (const timer of this.#timers.values()) for (const handle of [timer.callback, ...timer.args]) handle.dispose();
      this.#failure?.dispose();
      this.#freeWebGlobals();
      this.#freeBuiltins();
      this.#freeIntl();
      this.#freeCollation();
      this.#inspector.dispose();
      this.#performance.dispose();
      for (const deferred of this.#pending.values()) deferred.dispose();
      this.#completion?.dispose();
      for (const handle of Object.values(this.#intrinsics)) (handle as QuickJSHandle | undefined)?.dispose();
      this.#context.dispose();
      this.#runtime.dispose();
      return true;
    } catch {
      return false;
    }
  }

  #now(): number {
    const deterministic = this.#config.deterministic;
    return deterministic === undefined ? Date.now() : deterministic.startTime + this.#virtualMs;
  }

  /** Whether a guest value is `null` (without running anything of the program's). */
  readonly #isNull = (handle: QuickJSHandle): boolean =>
    isSame(this.#context, this.#intrinsics, handle, this.#context.null);

  /** Sends one `console` call's text; `{ error }` (a budget's stop inside the inspector) is thrown on in the guest. */
  #log(level: number, args: QuickJSHandle[]): { error: QuickJSHandle } | undefined {
    const text = this.#inspector.format(args);
    if (typeof text !== 'string') return text;
    this.#write(level, text);
  }

  #write(level: number, text: string): void {
    for (const line of text.split('\n')) {
      // Past the budget nothing more is sent: the host has already cut and marked the logs.
      if (this.#logBytes > this.#config.logBytes) return;
      this.#logBytes += Buffer.byteLength(line) + 1;
      this.#send({ type: 'log', seq: this.seq, level, text: line });
    }
  }

  /** Defines `value` on `target` as a non-enumerable, read-only data property and frees the handle. */
  #define(target: QuickJSHandle, name: string, value: QuickJSHandle): void {
    this.#context.defineProp(target, name, { value, configurable: true, enumerable: false });
    value.dispose();
  }

  #installConsole(): void {
    const context = this.#context;
    const consoleObject = context.newObject();
    for (const [name, level] of Object.entries({ ...levels, dir: 1, table: 1, trace: 5 })) {
      this.#define(
        consoleObject,
        name,
        context.newFunction(name, (...args) => this.#log(level, args)),
      );
    }
    this.#define(
      consoleObject,
      'assert',
      context.newFunction('assert', (condition, ...args) => {
        if (condition !== undefined && isTruthy(context, condition, this.#isNull)) return;
        const text = args.length > 0 ? this.#inspector.format(args) : '';
        if (typeof text !== 'string') return text;
        this.#write(5, `Assertion failed${args.length > 0 ? `: ${text}` : ''}`);
      }),
    );
    this.#define(context.global, 'console', consoleObject);
  }

  #installBindings(bindings: readonly string[]): void {
    const context = this.#context;
    const global = context.global;
    const namespaces = new Map<string, QuickJSHandle>();
    const owners = new Map<string, string[]>();
    for (const entry of bindings) {
      const dot = entry.indexOf('.');
      const namespace = entry.slice(0, dot);
      const name = entry.slice(dot + 1);
      let target = namespaces.get(namespace);
      if (target === undefined) {
        target = context.newObject();
        namespaces.set(namespace, target);
      }
      const hostFunction = context.newFunction(name, (...args) => this.#hostCall(namespace, name, args));
      context.defineProp(target, name, { value: hostFunction, configurable: true, enumerable: true });
      hostFunction.dispose();
      owners.set(name, [...(owners.get(name) ?? []), namespace]);
    }
    for (const [namespace, target] of namespaces) {
      // Any other identifier-like name is a function too: its call reaches the host, which refuses
      // it, records it in `calls` and names what is available.
      const ungranted = context.newFunction('ungranted', (key) => {
        if (context.typeof(key) !== 'string') return;
        const name = context.getString(key);
        if (name.length === 0 || name.length > 64 || probedNames.has(name)) return;
        return context.newFunction(name, (...args) => this.#hostCall(namespace, name, args));
      });
      const wrapped = context.unwrapResult(
        context.callFunction(this.#intrinsics.namespace, context.undefined, target, ungranted),
      );
      ungranted.dispose();
      target.dispose();
      this.#define(global, namespace, wrapped);
    }
    // A name granted in one namespace is also a global, unless a global already has it; one granted
    // in several is a ReferenceError naming each.
    for (const [name, where] of owners) {
      // (A web global is taken without reading it, which would make them all.)
      if (lazyWebGlobals.includes(name)) continue;
      if (context.getProp(global, name).consume((existing) => context.typeof(existing)) !== 'undefined') continue;
      if (where.length !== 1) {
        const message = `${name} is granted in more than one namespace; did you mean ${where.map((namespace) => `${namespace}.${name}`).join(' or ')}?`;
        context.defineProp(global, name, {
          configurable: true,
          enumerable: false,
          get: () => {
            throw Object.assign(new Error(message), { name: 'ReferenceError' });
          },
        });
        continue;
      }
      const namespace = context.getProp(global, where[0]!);
      this.#define(global, name, context.getProp(namespace, name));
      namespace.dispose();
    }
    this.#installCodemode(bindings, [...namespaces.keys()]);
  }

  /**
   * `codemode`, as Cloudflare's code mode calls tools (see `codemodeReadings` in the kit): a tool
   * by its own name or a flat `<namespace>_<name>`, or a namespace; a key with several readings
   * throws a ReferenceError naming each; any other key is a call the host refuses. Not defined
   * when a namespace is called `codemode`, nothing is granted, or a global has the name.
   */
  #installCodemode(bindings: readonly string[], namespaces: readonly string[]): void {
    const context = this.#context;
    const global = context.global;
    if (bindings.length === 0 || namespaces.includes(codemodeGlobal)) return;
    if (context.getProp(global, codemodeGlobal).consume((existing) => context.typeof(existing)) !== 'undefined') return;
    const readings = codemodeReadings(bindings);
    const target = context.newObject();
    const ambiguous = new Map<string, string>();
    for (const [key, reading] of Object.entries(readings)) {
      if (reading.includes(' or ')) {
        ambiguous.set(key, reading);
        continue;
      }
      const dot = reading.indexOf('.');
      const value =
        dot === -1
          ? context.getProp(global, reading)
          : context
              .getProp(global, reading.slice(0, dot))
              .consume((namespace) => context.getProp(namespace, reading.slice(dot + 1)));
      // A tool by its own name is listed (`Object.keys(codemode)`); its other spellings are not.
      context.defineProp(target, key, {
        value,
        configurable: false,
        enumerable: dot !== -1 && reading.slice(dot + 1) === key,
      });
      value.dispose();
    }
    const ungranted = context.newFunction('ungranted', (key) => {
      if (context.typeof(key) !== 'string') return;
      const name = context.getString(key);
      const readingsOf = ambiguous.get(name);
      if (readingsOf !== undefined) {
        throw Object.assign(new Error(codemodeAmbiguity(name, readingsOf)), { name: 'ReferenceError' });
      }
      if (name.length === 0 || name.length > 64 || probedNames.has(name)) return;
      return context.newFunction(name, (...args) => this.#hostCall(codemodeGlobal, name, args));
    });
    const wrapped = context.unwrapResult(
      context.callFunction(this.#intrinsics.namespace, context.undefined, target, ungranted),
    );
    ungranted.dispose();
    target.dispose();
    this.#define(global, codemodeGlobal, wrapped);
  }

  #installTimers(): {
    setTimeout: (callback: QuickJSHandle, delay?: QuickJSHandle) => QuickJSHandle;
    clearTimeout: (id?: QuickJSHandle) => void;
  } {
    const context = this.#context;
    const add =
      (repeat: boolean) =>
      (callback: QuickJSHandle, delay?: QuickJSHandle, ...args: QuickJSHandle[]) => {
        if (context.typeof(callback) !== 'function') throw new TypeError('The callback must be a function.');
        this.#timerCount += 1;
        if (this.#timerCount > this.#config.timers) {
          throw new RangeError(
            `The timer budget of ${this.#config.timers} setTimeout/setInterval calls per run is used up.`,
          );
        }
        const requested = delay === undefined ? 0 : Number(context.dump(delay));
        const delayMs = Math.min(
          Math.max(0, Number.isFinite(requested) ? Math.trunc(requested) : 0),
          this.#config.maxDelayMs,
        );
        const id = this.#timerCount;
        const timer: GuestTimer = {
          callback: callback.dup(),
          args: args.map((handle) => handle.dup()),
          repeat,
          delayMs,
          due: this.#virtualMs + delayMs,
          handle: undefined,
        };
        this.#timers.set(id, timer);
        this.#arm(id, timer);
        return context.newNumber(id);
      };
    const clear = (id?: QuickJSHandle) => {
      if (id === undefined || context.typeof(id) !== 'number') return;
      const key = context.getNumber(id);
      const timer = this.#timers.get(key);
      if (timer === undefined) return;
      clearTimeout(timer.handle);
      // A callback clearing its own interval is running: the call holds its own copy of the handles.
      for (const handle of [timer.callback, ...timer.args]) handle.dispose();
      this.#timers.delete(key);
    };
    const global = context.global;
    this.#define(global, 'setTimeout', context.newFunction('setTimeout', add(false)));
    this.#define(global, 'setInterval', context.newFunction('setInterval', add(true)));
    this.#define(global, 'clearTimeout', context.newFunction('clearTimeout', clear));
    this.#define(global, 'clearInterval', context.newFunction('clearInterval', clear));
    return { setTimeout: add(false), clearTimeout: clear };
  }

  #arm(id: number, timer: GuestTimer): void {
    if (this.#config.deterministic !== undefined) return;
    timer.handle = setTimeout(() => this.#fire(id), timer.delayMs);
  }

  #fire(id: number): void {
    const timer = this.#timers.get(id);
    if (timer === undefined || this.#ended) return;
    if (timer.repeat) {
      timer.due = this.#virtualMs + Math.max(1, timer.delayMs);
      this.#arm(id, timer);
    } else this.#timers.delete(id);
    this.#turn(() => {
      const callback = timer.callback.dup();
      const args = timer.args.map((handle) => handle.dup());
      if (!timer.repeat) for (const handle of [timer.callback, ...timer.args]) handle.dispose();
      const result = this.#context.callFunction(callback, this.#context.undefined, ...args);
      for (const handle of [callback, ...args]) handle.dispose();
      // What a timer callback throws fails the run, as in the worker-thread provider.
      if (result.error !== undefined) this.#endWithThrown(result.error);
      else result.value.dispose();
    });
  }

  /** `Math.random`, `performance` and `crypto`, reading the run's clock and randomness when called. Answers `performance`. */
  #installClock(): QuickJSHandle {
    const context = this.#context;
    const global = context.global;
    const math = context.getProp(global, 'Math');
    this.#define(
      math,
      'random',
      context.newFunction('random', () => context.newNumber(this.#random.next())),
    );
    math.dispose();

    const performanceObject = context.newObject();
    this.#define(
      performanceObject,
      'now',
      context.newFunction('now', () =>
        context.newNumber(
          this.#config.deterministic === undefined ? Math.floor(performance.now() - this.#startedAt) : this.#virtualMs,
        ),
      ),
    );
    context.defineProp(global, 'performance', { value: performanceObject, configurable: true, enumerable: false });

    const crypto = context.newObject();
    this.#define(
      crypto,
      'randomUUID',
      context.newFunction('randomUUID', () => context.newString(uuidFrom(this.#random))),
    );
    this.#define(
      crypto,
      'getRandomValues',
      context.newFunction('getRandomValues', (array) => {
        const width =
          array === undefined ? undefined : context.getProp(array, 'BYTES_PER_ELEMENT').consume((h) => context.dump(h));
        const length =
          array === undefined ? undefined : context.getProp(array, 'length').consume((h) => context.dump(h));
        if ((width !== 1 && width !== 2 && width !== 4) || typeof length !== 'number') {
          throw new TypeError('crypto.getRandomValues takes an integer typed array (8, 16 or 32 bits per element).');
        }
        if (length * width > 65_536)
          throw new RangeError('crypto.getRandomValues fills at most 65536 bytes at a time.');
        for (let index = 0; index < length; index += 1) {
          context.newNumber(this.#random.nextUint32()).consume((value) => context.setProp(array!, index, value));
        }
        return array!.dup();
      }),
    );
    this.#define(global, 'crypto', crypto);
    return performanceObject;
  }

  /** Deterministic mode: `Date` reads the run's virtual clock. */
  #installVirtualDate(): void {
    const context = this.#context;
    const now = context.newFunction('now', () => context.newNumber(this.#now()));
    const installer = context.unwrapResult(context.evalCode(virtualDateSource, 'sluice-clock.js'));
    context.unwrapResult(context.callFunction(installer, context.undefined, now)).dispose();
    installer.dispose();
    now.dispose();
  }

  #hostCall(namespace: string, name: string, args: QuickJSHandle[]): QuickJSHandle {
    const context = this.#context;
    let count = args.length;
    while (count > 0 && context.typeof(args[count - 1]!) === 'undefined') count -= 1;
    const first = args[0];
    const firstIsArray =
      first !== undefined &&
      context
        .unwrapResult(context.callFunction(this.#intrinsics.isArray, context.undefined, first))
        .consume((handle) => context.dump(handle) === true);
    // One plain object (or null) is the input; anything else given is positional, mapped on the host side.
    const positional = count > 1 || (count === 1 && (context.typeof(first!) !== 'object' || firstIsArray));
    let input: QuickJSHandle;
    if (positional) {
      input = context.newArray();
      for (let index = 0; index < count; index += 1) context.setProp(input, index, args[index]!);
    } else input = count === 0 ? context.null : first!.dup();
    let encoded: Encoded;
    try {
      encoded = encodeGuestValue(context, this.#intrinsics, input, this.#config.hostCallBytes);
    } finally {
      input.dispose();
    }
    if (!encoded.ok) {
      if (encoded.kind === 'thrown') throw encoded.error;
      throw new TypeError(
        encoded.kind === 'too-large'
          ? `The argument of ${namespace}.${name} is larger than the ${this.#config.hostCallBytes}-byte budget of one host call.`
          : `The argument of ${namespace}.${name} is not JSON: ${encoded.message}.`,
      );
    }
    this.#calls += 1;
    if (this.#calls > this.#config.hostCalls + 1) {
      throw new Error(
        `The host-call budget of ${this.#config.hostCalls} calls per run is used up; this call was refused. Make fewer calls, or batch them.`,
      );
    }
    const callId = this.#calls;
    const deferred = context.newPromise();
    this.#pending.set(callId, deferred);
    this.#send({
      type: 'call',
      seq: this.seq,
      callId,
      namespace,
      name,
      input: encoded.json ?? 'null',
      positional,
    });
    return context
      .newString(`${namespace}.${name}`)
      .consume((label) =>
        context.unwrapResult(
          context.callFunction(this.#intrinsics.awaitable, context.undefined, deferred.handle, label),
        ),
      );
  }
}
