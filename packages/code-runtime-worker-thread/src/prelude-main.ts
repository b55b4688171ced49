import type {
  codemodeReadings as codemodeReadingsFunction,
  makePrintf,
  WebHooks,
  WebMade,
} from '@sluice/code-runtime-kit';
import type { stubBuiltins as stubBuiltinsFunction } from '@sluice/code-runtime-kit/guest-builtins';
import type { makeClock as makeClockFunction, PreludeClock } from './prelude-clock.js';
import type { PreludeIntrinsics } from './prelude-intrinsics.js';
import type { makeLogWriter, PreludeLogWriter } from './prelude-log.js';
import type { installMeter } from './prelude-meter.js';
import type { makeOrder as makeOrderFunction, PreludeOrder } from './prelude-order.js';
import type { makeTimers as makeTimersFunction } from './prelude-timers.js';

/** The one function the worker calls into a run's context with. Arguments and results are primitives, except a program value passed straight through. */
export type Pump = (operation: string, first?: unknown, second?: unknown, third?: unknown) => unknown;

/**
 * The prelude: the first script evaluated in every run's fresh context. Serialised with
 * `Function.prototype.toString`, so it must stay self-contained, strict and import-free.
 *
 * It captures the built-ins it relies on, removes `SharedArrayBuffer`, `Atomics` and
 * `WebAssembly`, installs `console`, the timers, the metered buffers, the web globals (each maker in
 * `webMakers` adds some, in order) and (per run) the binding namespaces, all as functions created
 * here, in the context; a deterministic run also gets its clock and delivery order (`makeClock`,
 * `makeOrder`). Its completion value is
 * the {@link Pump}: the worker never hands the context anything but primitives, and reads back only
 * strings. Log lines go straight into a shared buffer the host can read even if the worker is
 * killed mid-loop; everything else waits in an outbox the worker takes after each turn.
 */
export function preludeMain(
  capture: () => PreludeIntrinsics,
  makeLogs: typeof makeLogWriter,
  makeJsonWriter: (
    intrinsics: PreludeIntrinsics,
  ) => (value: unknown, limitChars: number, depthLimit: number, streamChars?: number) => string,
  makeInspector: (
    intrinsics: PreludeIntrinsics,
    printf: typeof makePrintf,
    described: ReadonlyMap<object, (value: object) => object>,
  ) => (args: readonly unknown[]) => string,
  printf: typeof makePrintf,
  meter: typeof installMeter,
  makeTimers: typeof makeTimersFunction,
  makeClock: typeof makeClockFunction,
  makeOrder: typeof makeOrderFunction,
  codemodeReadings: typeof codemodeReadingsFunction,
  stubBuiltins: typeof stubBuiltinsFunction,
  polyfilledBuiltins: readonly string[],
  installPolyfill: (realMath: Math, global: Record<string, unknown>) => void,
  webMakers: ReadonlyArray<(hooks: WebHooks, made: WebMade) => void>,
): Pump {
  const global = globalThis as unknown as Record<string, unknown>;
  const intrinsics = capture();
  const { apply, create, defineProperty, freeze, parse, stringify, indexOf, stringSlice, getPrototypeOf, isArray } =
    intrinsics;
  const {
    Promise: PromiseConstructor,
    promiseThen,
    Error: ErrorConstructor,
    TypeError: TypeErrorConstructor,
  } = intrinsics;
  const writeJson = makeJsonWriter(intrinsics);
  const ReferenceErrorConstructor = ReferenceError;
  const dateNow = Date.now;
  const mathRandom = Math.random;
  let startedAt = dateNow();
  // Prototype → describer, filled by the web makers, so `console.log(url)` shows the URL.
  const described = new intrinsics.Map<object, (value: object) => object>();
  const inspect = makeInspector(intrinsics, printf, described);
  delete global.SharedArrayBuffer;
  delete global.Atomics;
  delete global.WebAssembly;
  // The ES2023–ES2025 built-ins Node 20 lacks: accessors whose first use evaluates the polyfill here.
  let polyfilled = false;
  const removeBuiltinStubs = stubBuiltins(global, polyfilledBuiltins, () => {
    if (polyfilled) return;
    polyfilled = true;
    removeBuiltinStubs();
    installPolyfill(Math, global);
  });

  let config = {
    logBytes: 0,
    valueBytes: 0,
    hostCallBytes: 0,
    hostCalls: 0,
    timers: 0,
    maxDelayMs: 0,
    depthLimit: 0,
  };
  let logs: PreludeLogWriter | undefined;
  let logBuffer: SharedArrayBuffer | undefined;
  const writeLog = (level: number, text: string) => logs?.write(level, text);
  const logPosition = () => (logs === undefined ? 0 : logs.position());
  let outbox = '';
  let finished = false;
  let callCount = 0;
  let memoryReported = false;
  const timers = makeTimers(intrinsics, (error) => fail(error));
  // Set for a deterministic run only: its virtual clock and seeded randomness, and the order in
  // which its replies and timers reach the program.
  let clock: PreludeClock | undefined;
  let order: PreludeOrder | undefined;
  const pending = create(null) as Record<
    number,
    { resolve: (value: unknown) => void; reject: (error: unknown) => void }
  >;

  function post(entry: string): void {
    outbox = outbox === '' ? entry : `${outbox},${entry}`;
  }

  function safeString(value: unknown): string {
    try {
      return typeof value === 'string' ? value : inspect([value]);
    } catch {
      return '[value that could not be printed]';
    }
  }

  function errorEntry(error: unknown): string {
    let name: unknown;
    let message: unknown;
    let stack: unknown;
    if ((typeof error === 'object' && error !== null) || typeof error === 'function') {
      try {
        name = (error as { name?: unknown }).name;
      } catch {}
      try {
        message = (error as { message?: unknown }).message;
      } catch {}
      try {
        stack = (error as { stack?: unknown }).stack;
      } catch {}
    }
    const nameText = typeof name === 'string' ? `"name":${stringify(name)},` : '';
    const stackText = typeof stack === 'string' ? `,"stack":${stringify(stack)}` : '';
    const messageText = typeof message === 'string' ? message : safeString(error);
    return `{${nameText}"message":${stringify(messageText)}${stackText}}`;
  }

  function finish(entry: string): void {
    if (finished) return;
    finished = true;
    post(`["done",${logPosition()},${entry}]`);
  }

  function fail(error: unknown): void {
    finish(`"error",${errorEntry(error)}`);
  }

  function exceededMemory(usedBytes: number): void {
    if (memoryReported) return;
    memoryReported = true;
    post(`["memory",${logPosition()},${usedBytes}]`);
  }

  function makeConsole(): object {
    const method =
      (level: number) =>
      (...args: unknown[]) => {
        writeLog(level, inspect(args));
      };
    const log = method(1);
    const error = method(5);
    return freeze({
      log,
      info: method(2),
      debug: method(3),
      warn: method(4),
      error,
      dir: log,
      table: log,
      trace: error,
      assert(condition: unknown, ...args: unknown[]) {
        if (!condition) writeLog(5, `Assertion failed${args.length > 0 ? `: ${inspect(args)}` : ''}`);
      },
    });
  }

  function installWebGlobals(): void {
    const hooks: WebHooks = freeze({
      setTimeout: (callback: () => void, ms: number) => timers.globals.setTimeout(callback, ms),
      clearTimeout: timers.globals.clearTimeout,
      fail,
      now: () => (clock === undefined ? apply(dateNow, undefined, []) : clock.now()),
      random: () => (clock === undefined ? apply(mathRandom, undefined, []) : clock.random()),
      startedAt: () => startedAt,
      describe: (prototype: object, describer: (value: object) => object) => {
        apply(intrinsics.mapSet, described, [prototype, describer]);
      },
    });
    const made: WebMade = { globals: create(null), internal: create(null) };
    for (let index = 0; index < webMakers.length; index += 1) webMakers[index]!(hooks, made);
    const names = intrinsics.keys(made.globals);
    for (let index = 0; index < names.length; index += 1) {
      const name = names[index]!;
      defineProperty(global, name, {
        value: made.globals[name],
        writable: true,
        enumerable: false,
        configurable: true,
      });
    }
  }

  function rejected(error: unknown): Promise<never> {
    return new PromiseConstructor((_resolve, reject) => reject(error));
  }

  function hostFunction(namespace: string, name: string): (...args: unknown[]) => Promise<unknown> {
    return {
      [name](...args: unknown[]): Promise<unknown> {
        let count = args.length;
        while (count > 0 && args[count - 1] === undefined) count -= 1;
        const first = args[0];
        // One plain object (or null) is the input; anything else given is positional, mapped on the host side.
        const positional = count > 1 || (count === 1 && (typeof first !== 'object' || isArray(first)));
        args.length = count;
        let encoded: string;
        try {
          // Runs the program's toJSON methods and Proxy traps: what they throw rejects this call.
          // Unbounded (the host measures and refuses, listing the call), but a Map, Set or iterator stops at the budget.
          encoded = writeJson(
            positional ? args : count === 0 ? null : first,
            1 / 0,
            config.depthLimit,
            config.hostCallBytes,
          );
        } catch (error) {
          return rejected(error);
        }
        if (encoded === 'L') {
          return rejected(
            new ErrorConstructor(
              `The call's argument is more than ${config.hostCallBytes} bytes of JSON; the limit is ${config.hostCallBytes} bytes per call. An iterator in it is read only up to that.`,
            ),
          );
        }
        callCount += 1;
        if (callCount > config.hostCalls + 1) {
          return rejected(
            new ErrorConstructor(
              `The host-call budget of ${config.hostCalls} calls per run is used up; this call was refused. Make fewer calls, or batch them.`,
            ),
          );
        }
        const id = callCount;
        logs?.marker(id);
        post(
          `["call",${logPosition()},${id},${stringify(namespace)},${stringify(name)},${stringify(encoded)},${positional ? 1 : 0}]`,
        );
        const call = new PromiseConstructor((resolve, reject) => {
          pending[id] = { resolve, reject };
        });
        return awaitable(call, `${namespace}.${name}`);
      },
    }[name]!;
  }

  /**
   * The promise of a host call, as the program sees it: `await`, `then`, `Promise.all` and every
   * other name a promise has work as on the promise itself; reading any other property (the
   * result's fields, read before awaiting) throws, saying to `await` the call, instead of quietly
   * giving `undefined`.
   */
  function awaitable(call: Promise<unknown>, label: string): Promise<unknown> {
    return new intrinsics.Proxy(call, {
      get(target, key) {
        // `await` reads `then` from a proxy (it is not a promise to the engine): the captured one,
        // so a program that replaced Promise.prototype.then cannot break its own awaits.
        if (key === 'then') return (...args: unknown[]) => apply(promiseThen, target, args);
        if (typeof key !== 'string' || key in target) {
          const value = (target as unknown as Record<PropertyKey, unknown>)[key];
          // A promise's own methods need the promise itself as `this`, not this proxy.
          return typeof value === 'function' ? (...args: unknown[]) => apply(value, target, args) : value;
        }
        throw new TypeErrorConstructor(
          `${label}(...) returns a Promise, which has no .${key}: write \`(await ${label}(...)).${key}\` to read the result.`,
        );
      },
    });
  }

  // Names a caller or a library probes on any object: never taken for a call of an ungranted name.
  const probedNames =
    ',then,toJSON,constructor,toString,valueOf,toLocaleString,hasOwnProperty,isPrototypeOf,propertyIsEnumerable,__proto__,inspect,asymmetricMatch,nodeType,$$typeof,';

  /**
   * The namespace as the program sees it: a granted name is its function; any other identifier is
   * a function whose call goes to the host, which refuses it there, records it in `calls`, and
   * names what is available (as Python's namespaces do, in the program).
   */
  function ungrantedReachesHost(namespace: string, functions: Record<string, unknown>): object {
    return new intrinsics.Proxy(functions, {
      get(target, key) {
        if (typeof key !== 'string') return undefined;
        if (intrinsics.hasOwn(target, key)) return target[key];
        if (key.length === 0 || key.length > 64 || apply(indexOf, probedNames, [`,${key},`]) !== -1) return undefined;
        return hostFunction(namespace, key);
      },
    });
  }

  function bind(list: string): void {
    const namespaces = create(null) as Record<string, Record<string, unknown>>;
    const qualified = create(null) as Record<string, string>;
    const entries: string[] = [];
    let start = 0;
    while (start < list.length) {
      let end = apply(indexOf, list, [',', start]);
      if (end === -1) end = list.length;
      const entry = apply(stringSlice, list, [start, end]);
      entries[entries.length] = entry;
      start = end + 1;
      const dot = apply(indexOf, entry, ['.']);
      const namespace = apply(stringSlice, entry, [0, dot]);
      const name = apply(stringSlice, entry, [dot + 1]);
      namespaces[namespace] ??= create(null) as Record<string, unknown>;
      namespaces[namespace][name] = freeze(hostFunction(namespace, name));
      qualified[name] =
        qualified[name] === undefined ? `${namespace}.${name}` : `${qualified[name]} or ${namespace}.${name}`;
    }
    const names = intrinsics.keys(namespaces);
    for (let index = 0; index < names.length; index += 1) {
      const namespace = names[index]!;
      defineProperty(global, namespace, {
        value: ungrantedReachesHost(namespace, freeze(namespaces[namespace]!)),
        writable: true,
        enumerable: false,
        configurable: true,
      });
    }
    bindBareNames(namespaces, qualified);
    bindCodemode(entries, namespaces);
  }

  /**
   * `codemode`, as Cloudflare's code mode calls tools: `codemode.<key>` is what `codemodeReadings`
   * reads the key as (a tool by its own name or a flat `<namespace>_<name>`, a namespace); a key
   * with several readings throws a ReferenceError naming each; any other key is a call the host
   * refuses, as in a namespace. Not defined when a namespace is called `codemode`, nothing is
   * granted, or a global has the name.
   */
  function bindCodemode(entries: string[], namespaces: Record<string, Record<string, unknown>>): void {
    if (entries.length === 0 || 'codemode' in global) return;
    const readings = codemodeReadings(entries);
    const target = create(null) as Record<string, unknown>;
    const ambiguous = create(null) as Record<string, string>;
    const keys = intrinsics.keys(readings);
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index]!;
      const reading = readings[key]!;
      const dot = apply(indexOf, reading, ['.']);
      if (apply(indexOf, reading, [' or ']) !== -1) ambiguous[key] = reading;
      else if (dot === -1) {
        defineProperty(target, key, { value: global[reading], enumerable: false });
      } else {
        const namespace = apply(stringSlice, reading, [0, dot]);
        const name = apply(stringSlice, reading, [dot + 1]);
        // A tool by its own name is listed (`Object.keys(codemode)`); its other spellings are not.
        defineProperty(target, key, { value: namespaces[namespace]![name], enumerable: key === name });
      }
    }
    defineProperty(global, 'codemode', {
      value: new intrinsics.Proxy(freeze(target), {
        get(held, key) {
          if (typeof key !== 'string') return undefined;
          if (intrinsics.hasOwn(held, key)) return held[key];
          if (intrinsics.hasOwn(ambiguous, key)) {
            throw new ReferenceErrorConstructor(
              `codemode.${key} is granted in more than one namespace; did you mean ${ambiguous[key]}?`,
            );
          }
          if (key.length === 0 || key.length > 64 || apply(indexOf, probedNames, [`,${key},`]) !== -1) return undefined;
          return hostFunction('codemode', key);
        },
      }),
      writable: true,
      enumerable: false,
      configurable: true,
    });
  }

  /**
   * A function name granted in one namespace is also a global (`get_weather(...)`); one granted in
   * several is a global that throws a ReferenceError naming each. Neither replaces an existing global.
   */
  function bindBareNames(namespaces: Record<string, Record<string, unknown>>, qualified: Record<string, string>): void {
    const names = intrinsics.keys(qualified);
    for (let index = 0; index < names.length; index += 1) {
      const name = names[index]!;
      if (name in global) continue;
      const where = qualified[name]!;
      const dot = apply(indexOf, where, ['.']);
      const unique = apply(indexOf, where, [' or ']) === -1;
      const replace = (value: unknown) => {
        defineProperty(global, name, { value, writable: true, enumerable: false, configurable: true });
      };
      if (unique) replace(namespaces[apply(stringSlice, where, [0, dot])]![name]);
      else
        defineProperty(global, name, {
          get() {
            throw new ReferenceErrorConstructor(
              `${name} is granted in more than one namespace; did you mean ${where}?`,
            );
          },
          set: replace,
          enumerable: false,
          configurable: true,
        });
    }
  }

  function observe(completion: unknown): void {
    if (
      typeof completion !== 'object' ||
      completion === null ||
      getPrototypeOf(completion) !== intrinsics.promisePrototype
    ) {
      fail(new TypeErrorConstructor('The program did not compile to one async function body.'));
      return;
    }
    try {
      // check-promises: owned by the program's own realm (inside its context); both callbacks are given
      apply(promiseThen, completion, [
        (value: unknown) => {
          if (value === undefined) {
            finish('"none"');
            return;
          }
          let encoded: string;
          try {
            encoded = writeJson(value, config.valueBytes, config.depthLimit);
          } catch (error) {
            // A toJSON method or a Proxy trap of the program threw: the run ends as that exception.
            fail(error);
            return;
          }
          finish(`"value",${stringify(encoded)}`);
        },
        fail,
      ]);
    } catch (error) {
      fail(error);
    }
  }

  /** Gives host call `id` its result (`ok` 1) or error (`ok` 0). */
  function settle(id: number, ok: number, text: string): void {
    const call = pending[id];
    if (call === undefined) return;
    delete pending[id];
    if (ok === 1) {
      let value: unknown;
      try {
        value = parse(text);
      } catch {
        call.reject(new ErrorConstructor('The host sent a reply that is not JSON.'));
        return;
      }
      call.resolve(value);
    } else call.reject(new ErrorConstructor(text));
  }

  return function pump(operation: string, first?: unknown, second?: unknown, third?: unknown): unknown {
    switch (operation) {
      case 'init': {
        config = parse(second as string);
        logBuffer = first as SharedArrayBuffer;
        meter(intrinsics, global, (config as { memoryBytes?: number }).memoryBytes ?? 0, exceededMemory);
        defineProperty(global, 'console', {
          value: makeConsole(),
          writable: true,
          enumerable: false,
          configurable: true,
        });
        timers.configure(config.timers, config.maxDelayMs);
        const timerGlobals = timers.globals;
        const timerNames = intrinsics.keys(timerGlobals) as Array<keyof typeof timerGlobals>;
        for (let index = 0; index < timerNames.length; index += 1) {
          const key = timerNames[index]!;
          const value = freeze(timerGlobals[key]);
          defineProperty(global, key, { value, writable: true, enumerable: false, configurable: true });
        }
        installWebGlobals();
        return undefined;
      }
      case 'begin':
        if (typeof second === 'number') {
          clock = makeClock(intrinsics);
          clock.start(second, third as number);
          timers.useVirtualTime(clock.elapsed);
          order = makeOrder(create, clock, timers, {
            count: () => callCount,
            unanswered: (id) => pending[id] !== undefined,
            settle,
          });
          startedAt = third as number;
        } else startedAt = apply(dateNow, undefined, []);
        logs = makeLogs(intrinsics, logBuffer!, config.logBytes);
        bind(first as string);
        return undefined;
      case 'start':
        observe(first);
        return undefined;
      case 'fail':
        fail(first);
        return undefined;
      case 'reply':
        if (order === undefined) settle(first as number, second as number, third as string);
        else order.reply(first as number, second as number, third as string);
        return undefined;
      case 'step':
        return order?.step() ?? false;
      case 'waiting':
        return order?.waiting() ?? false;
      case 'timer':
        timers.fire(first as number);
        return undefined;
      case 'unhandled':
        if (!finished) writeLog(4, `[sluice] A promise was rejected and nothing handled it: ${safeString(first)}`);
        return undefined;
      case 'finished':
        return finished;
      case 'take': {
        const taken = outbox;
        outbox = '';
        return taken === '' ? '' : `[${taken}]`;
      }
      case 'timers':
        return timers.take();
      default:
        return undefined;
    }
  };
}
