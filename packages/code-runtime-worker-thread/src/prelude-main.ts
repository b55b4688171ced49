import type { PreludeIntrinsics } from './prelude-intrinsics.js';
import type { installMeter } from './prelude-meter.js';

/** The one function the worker calls into a run's context with. Arguments and results are primitives, except a program value passed straight through. */
export type Pump = (operation: string, first?: unknown, second?: unknown, third?: unknown) => unknown;

/**
 * The prelude: the first script evaluated in every run's fresh context. Serialised with
 * `Function.prototype.toString`, so it must stay self-contained, strict and import-free.
 *
 * It captures the built-ins it relies on, removes `SharedArrayBuffer`, `Atomics` and
 * `WebAssembly`, installs `console`, `setTimeout`/`clearTimeout`, the metered buffers and (per run)
 * the binding namespaces, all as functions created here, in the context. Its completion value is
 * the {@link Pump}: the worker never hands the context anything but primitives, and reads back only
 * strings. Log lines go straight into a shared buffer the host can read even if the worker is
 * killed mid-loop; everything else waits in an outbox the worker takes after each turn.
 */
export function preludeMain(
  capture: () => PreludeIntrinsics,
  makeJsonWriter: (intrinsics: PreludeIntrinsics) => (value: unknown, limitChars: number) => string,
  makeInspector: (intrinsics: PreludeIntrinsics) => (args: readonly unknown[]) => string,
  meter: typeof installMeter,
): Pump {
  const global = globalThis as unknown as Record<string, unknown>;
  const intrinsics = capture();
  const { apply, create, defineProperty, freeze, parse, stringify, charCodeAt, indexOf, stringSlice, getPrototypeOf } =
    intrinsics;
  const {
    Promise: PromiseConstructor,
    promiseThen,
    Error: ErrorConstructor,
    TypeError: TypeErrorConstructor,
  } = intrinsics;
  const RangeErrorConstructor = intrinsics.RangeError;
  const writeJson = makeJsonWriter(intrinsics);
  const inspect = makeInspector(intrinsics);
  const CoreInt32Array = Int32Array;
  const CoreUint16Array = Uint16Array;
  const atomicsStore = Atomics.store;
  delete global.SharedArrayBuffer;
  delete global.Atomics;
  delete global.WebAssembly;

  let config = { logBytes: 0, valueBytes: 0, hostCalls: 0, timers: 0, maxDelayMs: 0 };
  let logHeader: Int32Array | undefined;
  let logData: Uint16Array | undefined;
  let logPosition = 0;
  let logSentBytes = 0;
  let logsCut = false;
  let outbox = '';
  let timerOperations = '';
  let finished = false;
  let callCount = 0;
  let timerCount = 0;
  let timerSequence = 0;
  let memoryReported = false;
  const pending = create(null) as Record<
    number,
    { resolve: (value: unknown) => void; reject: (error: unknown) => void }
  >;
  const timers = create(null) as Record<number, { callback: (...args: unknown[]) => unknown; args: unknown[] }>;

  function post(entry: string): void {
    outbox = outbox === '' ? entry : `${outbox},${entry}`;
  }

  function writeLine(level: number, line: string): void {
    if (logsCut || logData === undefined || logHeader === undefined) return;
    const remaining = config.logBytes - logSentBytes;
    let bytes = 1;
    let length = line.length;
    for (let index = 0; index < length; index += 1) {
      const code = apply(charCodeAt, line, [index]);
      if (code < 0x80) bytes += 1;
      else if (code < 0x800) bytes += 2;
      else if (code >= 0xd800 && code <= 0xdbff) {
        const next = apply(charCodeAt, line, [index + 1]);
        if (next >= 0xdc00 && next <= 0xdfff) {
          bytes += 4;
          index += 1;
        } else bytes += 3;
      } else bytes += 3;
    }
    // The line that crosses the budget goes out cut (but still crossing), so the host's own
    // budget cuts it exactly and adds the notice; nothing is sent after it.
    if (bytes > remaining) {
      logsCut = true;
      if (length > remaining + 1) length = remaining + 1;
    }
    if (logPosition + length + 2 > logData.length) {
      logsCut = true;
      return;
    }
    logData[logPosition] = level;
    for (let index = 0; index < length; index += 1) logData[logPosition + 1 + index] = apply(charCodeAt, line, [index]);
    logData[logPosition + 1 + length] = 10;
    logPosition += length + 2;
    logSentBytes += bytes;
    atomicsStore(logHeader, 0, logPosition);
  }

  // A call leaves a marker in the log stream, so the host, reading lines while the program is
  // still running, never shows a line before the call that came first.
  function writeMarker(id: number): void {
    if (logData === undefined || logHeader === undefined) return;
    const digits = `${id}`;
    if (logPosition + digits.length + 2 > logData.length) return;
    logData[logPosition] = 6;
    for (let index = 0; index < digits.length; index += 1) {
      logData[logPosition + 1 + index] = apply(charCodeAt, digits, [index]);
    }
    logData[logPosition + 1 + digits.length] = 10;
    logPosition += digits.length + 2;
    atomicsStore(logHeader, 0, logPosition);
  }

  function writeLog(level: number, text: string): void {
    let start = 0;
    for (;;) {
      const end = apply(indexOf, text, ['\n', start]);
      if (end === -1) {
        writeLine(level, start === 0 ? text : apply(stringSlice, text, [start]));
        return;
      }
      writeLine(level, apply(stringSlice, text, [start, end]));
      start = end + 1;
    }
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
    post(`["done",${logPosition},${entry}]`);
  }

  function fail(error: unknown): void {
    finish(`"error",${errorEntry(error)}`);
  }

  function exceededMemory(usedBytes: number): void {
    if (memoryReported) return;
    memoryReported = true;
    post(`["memory",${logPosition},${usedBytes}]`);
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

  function setTimeout(callback: unknown, delay?: unknown, ...args: unknown[]): number {
    if (typeof callback !== 'function') {
      throw new TypeErrorConstructor('setTimeout(callback, ms) needs a function; strings are not evaluated.');
    }
    if (timerCount >= config.timers) {
      throw new RangeErrorConstructor(`A run may call setTimeout at most ${config.timers} times.`);
    }
    timerCount += 1;
    timerSequence += 1;
    let ms = intrinsics.trunc(intrinsics.Number(delay));
    if (!(ms > 0)) ms = 0;
    if (ms > config.maxDelayMs) ms = config.maxDelayMs;
    timers[timerSequence] = { callback: callback as (...args: unknown[]) => unknown, args };
    timerOperations += `s${timerSequence}:${ms};`;
    return timerSequence;
  }

  function clearTimeout(id?: unknown): void {
    if (typeof id === 'number' && timers[id] !== undefined) {
      delete timers[id];
      timerOperations += `c${id};`;
    }
  }

  function hostFunction(namespace: string, name: string): (...args: unknown[]) => Promise<unknown> {
    const label = `${namespace}.${name}`;
    return {
      [name](...args: unknown[]): Promise<unknown> {
        if (args.length > 1) {
          throw new TypeErrorConstructor(`${label} takes one argument (a JSON value) or none; it got ${args.length}.`);
        }
        callCount += 1;
        if (callCount > config.hostCalls + 1) {
          return apply(PromiseConstructor.reject, PromiseConstructor, [
            new ErrorConstructor(
              `The host-call budget of ${config.hostCalls} calls per run is used up; this call was refused. Make fewer calls, or batch them.`,
            ),
          ]) as Promise<unknown>;
        }
        const input = args.length === 0 || args[0] === undefined ? null : args[0];
        const id = callCount;
        const encoded = writeJson(input, 1 / 0);
        writeMarker(id);
        post(`["call",${logPosition},${id},${stringify(namespace)},${stringify(name)},${stringify(encoded)}]`);
        return new PromiseConstructor((resolve, reject) => {
          pending[id] = { resolve, reject };
        });
      },
    }[name]!;
  }

  function bind(list: string): void {
    const namespaces = create(null) as Record<string, Record<string, unknown>>;
    let start = 0;
    while (start < list.length) {
      let end = apply(indexOf, list, [',', start]);
      if (end === -1) end = list.length;
      const entry = apply(stringSlice, list, [start, end]);
      start = end + 1;
      const dot = apply(indexOf, entry, ['.']);
      const namespace = apply(stringSlice, entry, [0, dot]);
      const name = apply(stringSlice, entry, [dot + 1]);
      namespaces[namespace] ??= create(null) as Record<string, unknown>;
      namespaces[namespace][name] = freeze(hostFunction(namespace, name));
    }
    const names = intrinsics.keys(namespaces);
    for (let index = 0; index < names.length; index += 1) {
      const namespace = names[index]!;
      defineProperty(global, namespace, {
        value: freeze(namespaces[namespace]!),
        writable: true,
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
      apply(promiseThen, completion, [
        (value: unknown) => {
          if (value === undefined) finish('"none"');
          else finish(`"value",${stringify(writeJson(value, config.valueBytes))}`);
        },
        fail,
      ]);
    } catch (error) {
      fail(error);
    }
  }

  return function pump(operation: string, first?: unknown, second?: unknown, third?: unknown): unknown {
    switch (operation) {
      case 'init': {
        config = parse(second as string);
        logHeader = new CoreInt32Array(first as SharedArrayBuffer, 0, 4);
        logData = new CoreUint16Array(first as SharedArrayBuffer, 16);
        meter(intrinsics, global, (config as { memoryBytes?: number }).memoryBytes ?? 0, exceededMemory);
        defineProperty(global, 'console', {
          value: makeConsole(),
          writable: true,
          enumerable: false,
          configurable: true,
        });
        for (const [key, value] of [
          ['setTimeout', setTimeout],
          ['clearTimeout', clearTimeout],
        ] as const) {
          defineProperty(global, key, { value: freeze(value), writable: true, enumerable: false, configurable: true });
        }
        return undefined;
      }
      case 'begin':
        logPosition = 0;
        atomicsStore(logHeader!, 0, 0);
        bind(first as string);
        return undefined;
      case 'start':
        observe(first);
        return undefined;
      case 'fail':
        fail(first);
        return undefined;
      case 'reply': {
        const call = pending[first as number];
        if (call === undefined) return undefined;
        delete pending[first as number];
        if (second === 1) {
          let value: unknown;
          try {
            value = parse(third as string);
          } catch {
            call.reject(new ErrorConstructor('The host sent a reply that is not JSON.'));
            return undefined;
          }
          call.resolve(value);
        } else call.reject(new ErrorConstructor(third as string));
        return undefined;
      }
      case 'timer': {
        const timer = timers[first as number];
        if (timer === undefined) return undefined;
        delete timers[first as number];
        try {
          apply(timer.callback, undefined, timer.args);
        } catch (error) {
          fail(error);
        }
        return undefined;
      }
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
      case 'timers': {
        const taken = timerOperations;
        timerOperations = '';
        return taken;
      }
      default:
        return undefined;
    }
  };
}
