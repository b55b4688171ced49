import type { PreludeIntrinsics } from './prelude-intrinsics.js';

/** The virtual clock and seeded randomness of a deterministic run, as the prelude drives them. */
export interface PreludeClock {
  /**
   * Seeds the generator, sets the clock to `startTime` and replaces what reads real time or
   * garbage collection in the context's globals. Called once, before the program, only for a
   * deterministic run.
   */
  readonly start: (seed: number, startTime: number) => void;
  /** Milliseconds since the Unix epoch on the virtual clock. */
  readonly now: () => number;
  /** Virtual milliseconds since the run began (what `performance.now()` reads). */
  readonly elapsed: () => number;
  /** Moves the clock to `elapsedMs` since the run began; it never goes back. */
  readonly advanceTo: (elapsedMs: number) => void;
  /** A float in [0, 1) from the seeded generator, 53 random bits. */
  readonly random: () => number;
}

/**
 * The deterministic run's clock and randomness, in the run's context. Serialised with
 * `Function.prototype.toString`: self-contained, strict, no imports; everything it installs is
 * created here, in the context, and reads only its own state.
 *
 * The generator is xoshiro128** with its four words spread from the seed by a murmur3 finaliser.
 * `Date.now()`, `new Date()`, `Date()` and `Intl.DateTimeFormat`'s `format()`/`formatToParts()`
 * without a date read the virtual clock; every other form of `Date` is the engine's own, so
 * `instanceof Date` and the prototype are unchanged. `WeakRef` and `FinalizationRegistry` would let
 * the program observe the garbage collector, so they become versions that never collect: a
 * `WeakRef` holds its target and a registry never calls back, both of which the language allows.
 */
export function makeClock(intrinsics: PreludeIntrinsics): PreludeClock {
  const { apply, construct, defineProperty, getOwnPropertyDescriptor, freeze, max } = intrinsics;
  const TypeErrorConstructor = intrinsics.TypeError;
  const global = globalThis as unknown as Record<string, unknown>;
  const imul = Math.imul;
  const RealDate = Date;
  const dateToString = Date.prototype.toString;
  const WeakSetConstructor = WeakSet;
  const { add: weakSetAdd, has: weakSetHas, delete: weakSetDelete } = WeakSet.prototype;
  const WeakMapConstructor = WeakMap;
  const { get: weakMapGet, set: weakMapSet } = WeakMap.prototype;
  let origin = 0;
  let elapsedMs = 0;
  let word0 = 0;
  let word1 = 0;
  let word2 = 0;
  let word3 = 0;

  function spread(value: number): number {
    let mixed = value >>> 0;
    mixed = imul(mixed ^ (mixed >>> 16), 0x85ebca6b) >>> 0;
    mixed = imul(mixed ^ (mixed >>> 13), 0xc2b2ae35) >>> 0;
    return (mixed ^ (mixed >>> 16)) >>> 0;
  }

  function rotate(value: number, bits: number): number {
    return ((value << bits) | (value >>> (32 - bits))) >>> 0;
  }

  function nextWord(): number {
    const result = imul(rotate(imul(word1, 5) >>> 0, 7), 9) >>> 0;
    const shifted = (word1 << 9) >>> 0;
    word2 = (word2 ^ word0) >>> 0;
    word3 = (word3 ^ word1) >>> 0;
    word1 = (word1 ^ word2) >>> 0;
    word0 = (word0 ^ word3) >>> 0;
    word2 = (word2 ^ shifted) >>> 0;
    word3 = rotate(word3, 11);
    return result;
  }

  function random(): number {
    const high = nextWord() >>> 5;
    const low = nextWord() >>> 6;
    return (high * 67_108_864 + low) / 9_007_199_254_740_992;
  }

  function virtualNow(): number {
    return origin + elapsedMs;
  }

  /** Whether `value` may be a WeakRef target or a registry's key: what a WeakSet accepts. */
  function holdable(value: unknown): boolean {
    try {
      apply(weakSetAdd, new WeakSetConstructor(), [value]);
      return true;
    } catch {
      return false;
    }
  }

  function define(target: object, name: PropertyKey, value: unknown): void {
    defineProperty(target, name, { value, writable: true, enumerable: false, configurable: true });
  }

  function installDate(): void {
    function VirtualDate(this: unknown, ...args: unknown[]): unknown {
      if (new.target === undefined) return apply(dateToString, new RealDate(virtualNow()), []);
      return construct(RealDate, args.length === 0 ? [virtualNow()] : args, new.target);
    }
    // Named like the engine's own, whatever the local is called.
    defineProperty(VirtualDate, 'name', { value: 'Date', configurable: true });
    defineProperty(VirtualDate, 'length', { value: 7, configurable: true });
    defineProperty(VirtualDate, 'prototype', { value: RealDate.prototype, writable: false });
    define(RealDate.prototype, 'constructor', VirtualDate);
    define(
      VirtualDate,
      'now',
      {
        now(): number {
          return virtualNow();
        },
      }.now,
    );
    define(VirtualDate, 'parse', RealDate.parse);
    define(VirtualDate, 'UTC', RealDate.UTC);
    define(global, 'Date', VirtualDate);
  }

  function installIntl(): void {
    const intl = global.Intl as { DateTimeFormat?: { prototype: object } } | undefined;
    const prototype = intl?.DateTimeFormat?.prototype;
    if (prototype === undefined) return;
    const format = getOwnPropertyDescriptor(prototype, 'format')?.get;
    const formatToParts = getOwnPropertyDescriptor(prototype, 'formatToParts')?.value as
      | ((date?: unknown) => unknown)
      | undefined;
    if (format !== undefined) {
      // The engine's getter gives one bound function per formatter; so does this one.
      const bound = new WeakMapConstructor<object, (date?: unknown) => string>();
      defineProperty(prototype, 'format', {
        get(this: object) {
          const formatter = apply(format, this, []) as (date?: unknown) => string;
          let wrapped = apply(weakMapGet, bound, [this]) as ((date?: unknown) => string) | undefined;
          if (wrapped === undefined) {
            wrapped = (date?: unknown) => formatter(date === undefined ? virtualNow() : date);
            apply(weakMapSet, bound, [this, wrapped]);
          }
          return wrapped;
        },
        enumerable: false,
        configurable: true,
      });
    }
    if (formatToParts !== undefined) {
      define(
        prototype,
        'formatToParts',
        {
          formatToParts(this: object, date?: unknown): unknown {
            return apply(formatToParts, this, [date === undefined ? virtualNow() : date]);
          },
        }.formatToParts,
      );
    }
  }

  function installCollectorFree(): void {
    class HoldingWeakRef {
      readonly #target: unknown;
      constructor(target: unknown) {
        if (!holdable(target)) throw new TypeErrorConstructor('WeakRef: the target must be an object or a symbol.');
        this.#target = target;
      }
      deref(): unknown {
        return this.#target;
      }
    }
    class SilentFinalizationRegistry {
      readonly #tokens = new WeakSetConstructor<object>();
      constructor(cleanup: unknown) {
        if (typeof cleanup !== 'function') {
          throw new TypeErrorConstructor('FinalizationRegistry: the cleanup callback must be a function.');
        }
      }
      register(target: unknown, held: unknown, token?: unknown): void {
        if (!holdable(target)) {
          throw new TypeErrorConstructor('FinalizationRegistry.prototype.register: invalid target.');
        }
        if (target === held) throw new TypeErrorConstructor('The target and the held value must not be the same.');
        if (token === undefined) return;
        if (!holdable(token)) throw new TypeErrorConstructor('FinalizationRegistry.prototype.register: invalid token.');
        apply(weakSetAdd, this.#tokens, [token]);
      }
      unregister(token: unknown): boolean {
        if (!holdable(token))
          throw new TypeErrorConstructor('FinalizationRegistry.prototype.unregister: invalid token.');
        const had = apply(weakSetHas, this.#tokens, [token]) as boolean;
        apply(weakSetDelete, this.#tokens, [token]);
        return had;
      }
    }
    const made: ReadonlyArray<readonly [string, { prototype: object }]> = [
      ['WeakRef', HoldingWeakRef],
      ['FinalizationRegistry', SilentFinalizationRegistry],
    ];
    for (let index = 0; index < made.length; index += 1) {
      const [name, maker] = made[index]!;
      defineProperty(maker, 'name', { value: name, configurable: true });
      defineProperty(maker.prototype, Symbol.toStringTag, { value: name, configurable: true });
      define(global, name, maker);
    }
  }

  return freeze({
    start(seed: number, startTime: number): void {
      origin = startTime;
      elapsedMs = 0;
      word0 = spread(seed + 0x9e3779b9);
      word1 = spread(seed + 0x3c6ef372);
      word2 = spread(seed + 0xdaa66d2b);
      word3 = spread(seed + 0x78dde6e4);
      installDate();
      define(
        global.Math as object,
        'random',
        {
          random(): number {
            return random();
          },
        }.random,
      );
      installIntl();
      installCollectorFree();
      // Temporal.Now reads the real clock; engines that have Temporal lose it in a deterministic run.
      delete global.Temporal;
    },
    now: virtualNow,
    elapsed: () => elapsedMs,
    advanceTo(target: number): void {
      elapsedMs = max(elapsedMs, target);
    },
    random,
  });
}
