import type { PreludeIntrinsics } from './prelude-intrinsics.js';

/** The timer globals of a run and the prelude's side of them. */
export interface PreludeTimers {
  readonly globals: {
    readonly setTimeout: (callback: unknown, delay?: unknown, ...args: unknown[]) => number;
    readonly clearTimeout: (id?: unknown) => void;
    readonly setInterval: (callback: unknown, delay?: unknown, ...args: unknown[]) => number;
    readonly clearInterval: (id?: unknown) => void;
    readonly queueMicrotask: (callback: unknown) => void;
  };
  /** Sets the run's budget (`setTimeout` and `setInterval` calls in all) and the longest delay. */
  readonly configure: (limit: number, maxDelayMs: number) => void;
  /** Runs timer `id`'s callback, scheduling it again first if it is an interval. */
  readonly fire: (id: number) => void;
  /** The schedule operations since the last call, for the worker: `s<id>:<ms>;` and `c<id>;`. */
  readonly take: () => string;
  /**
   * Switches this run's timers to virtual time, read from `elapsed`: nothing is left for the worker
   * to schedule; each timer is due at `elapsed()` plus its delay, and the prelude fires them.
   */
  readonly useVirtualTime: (elapsed: () => number) => void;
  /** In virtual time: the timer due first (the one created first among equals), or 0 when none is set. */
  readonly next: () => number;
  /** In virtual time: when timer `id` is due, in the clock's milliseconds. */
  readonly dueAt: (id: number) => number;
}

/**
 * In-context timers: `setTimeout`/`setInterval` (counted together against the `timers` budget),
 * their `clear` functions and `queueMicrotask`, all created in the run's context. The worker does
 * the waiting: it reads the operations with `take` and calls back with the id. An exception thrown
 * by a callback ends the run through `fail`, as an uncaught exception would end a Node process.
 * Serialised with `Function.prototype.toString`: self-contained, strict, no imports.
 */
export function makeTimers(intrinsics: PreludeIntrinsics, fail: (error: unknown) => void): PreludeTimers {
  const {
    apply,
    create,
    keys,
    trunc,
    max,
    Number: NumberConstructor,
    Promise: PromiseConstructor,
    promiseThen,
  } = intrinsics;
  const TypeErrorConstructor = intrinsics.TypeError;
  const RangeErrorConstructor = intrinsics.RangeError;
  const timers = create(null) as Record<
    number,
    { callback: (...args: unknown[]) => unknown; args: unknown[]; repeatMs: number | undefined; due: number }
  >;
  let virtualElapsed: (() => number) | undefined;
  let limit = 0;
  let longest = 0;
  let count = 0;
  let sequence = 0;
  let operations = '';

  function schedule(kind: string, callback: unknown, delay: unknown, args: unknown[], repeat: boolean): number {
    if (typeof callback !== 'function') {
      throw new TypeErrorConstructor(`${kind}(callback, ms) needs a function; strings are not evaluated.`);
    }
    if (count >= limit) {
      throw new RangeErrorConstructor(`A run may call setTimeout and setInterval at most ${limit} times in all.`);
    }
    count += 1;
    sequence += 1;
    let ms = trunc(NumberConstructor(delay));
    if (!(ms > 0)) ms = 0;
    if (ms > longest) ms = longest;
    const repeatMs = repeat ? max(ms, 1) : undefined;
    const due = virtualElapsed === undefined ? 0 : virtualElapsed() + ms;
    timers[sequence] = { callback: callback as (...args: unknown[]) => unknown, args, repeatMs, due };
    if (virtualElapsed === undefined) operations += `s${sequence}:${ms};`;
    return sequence;
  }

  function clearTimeout(id?: unknown): void {
    if (typeof id === 'number' && timers[id] !== undefined) {
      delete timers[id];
      if (virtualElapsed === undefined) operations += `c${id};`;
    }
  }

  const settled = new PromiseConstructor<undefined>((resolve) => resolve(undefined));

  return {
    globals: {
      setTimeout(callback: unknown, delay?: unknown, ...args: unknown[]): number {
        return schedule('setTimeout', callback, delay, args, false);
      },
      clearTimeout,
      setInterval(callback: unknown, delay?: unknown, ...args: unknown[]): number {
        return schedule('setInterval', callback, delay, args, true);
      },
      clearInterval(id?: unknown): void {
        clearTimeout(id);
      },
      queueMicrotask(callback: unknown): void {
        if (typeof callback !== 'function')
          throw new TypeErrorConstructor('queueMicrotask(callback) needs a function.');
        // check-promises: owned inside the program's context, on a promise that is already fulfilled
        apply(promiseThen, settled, [
          () => {
            try {
              apply(callback as () => unknown, undefined, []);
            } catch (error) {
              fail(error);
            }
          },
        ]);
      },
    },
    configure(budget: number, maxDelayMs: number): void {
      limit = budget;
      longest = maxDelayMs;
    },
    fire(id: number): void {
      const timer = timers[id];
      if (timer === undefined) return;
      // An interval is scheduled again before its callback runs, which may clear it.
      if (timer.repeatMs === undefined) delete timers[id];
      else if (virtualElapsed === undefined) operations += `s${id}:${timer.repeatMs};`;
      else timer.due = virtualElapsed() + timer.repeatMs;
      try {
        apply(timer.callback, undefined, timer.args);
      } catch (error) {
        fail(error);
      }
    },
    take(): string {
      const taken = operations;
      operations = '';
      return taken;
    },
    useVirtualTime(elapsed: () => number): void {
      virtualElapsed = elapsed;
    },
    next(): number {
      // Integer keys enumerate in ascending order: creation order breaks ties.
      const ids = keys(timers);
      let first = 0;
      for (let index = 0; index < ids.length; index += 1) {
        const id = NumberConstructor(ids[index]);
        if (first === 0 || timers[id]!.due < timers[first]!.due) first = id;
      }
      return first;
    },
    dueAt(id: number): number {
      return timers[id]?.due ?? 0;
    },
  };
}
