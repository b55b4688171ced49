import { randomBytes } from 'node:crypto';

/** Random numbers for one run: seeded (sfc32, from the deterministic mode's seed) or from the operating system. */
export interface GuestRandom {
  /** A float in [0, 1), as `Math.random` returns. */
  next(): number;
  /** A 32-bit unsigned integer. */
  nextUint32(): number;
}

/** A seeded generator: the same seed gives the same sequence on every machine. */
export function seededRandom(seed: number): GuestRandom {
  // splitmix32 spreads the seed over sfc32's four words.
  let state = seed >>> 0;
  const split = () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split();
  let b = split();
  let c = split();
  let d = split();
  const nextUint32 = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t >>> 0;
  };
  return { nextUint32, next: () => nextUint32() / 4_294_967_296 };
}

/** Randomness from the operating system, read in blocks. */
export function systemRandom(): GuestRandom {
  let block = new Uint32Array(0);
  let index = 0;
  const nextUint32 = () => {
    if (index >= block.length) {
      block = new Uint32Array(randomBytes(1024).buffer);
      index = 0;
    }
    return block[index++]!;
  };
  // 53 random bits, as V8's Math.random gives.
  return { nextUint32, next: () => (nextUint32() * 2 ** 21 + (nextUint32() >>> 11)) / 2 ** 53 };
}

/** A version-4 UUID from `random`. */
export function uuidFrom(random: GuestRandom): string {
  const bytes = new Uint8Array(16);
  for (let index = 0; index < 16; index += 4) {
    const word = random.nextUint32();
    bytes[index] = word & 0xff;
    bytes[index + 1] = (word >>> 8) & 0xff;
    bytes[index + 2] = (word >>> 16) & 0xff;
    bytes[index + 3] = word >>> 24;
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Guest source that replaces `Date` by one reading the run's virtual clock (`now`, a host function):
 * `Date.now()`, `new Date()` and `Date()` read it; every other form is the engine's own `Date`,
 * which keeps `instanceof Date` and the prototype. Evaluated only in deterministic mode.
 */
export const virtualDateSource = `(function (now) {
  'use strict';
  const RealDate = globalThis.Date;
  const construct = Reflect.construct;
  function Date(...args) {
    if (new.target === undefined) return new RealDate(now()).toString();
    return construct(RealDate, args.length === 0 ? [now()] : args, new.target);
  }
  Object.defineProperty(Date, 'prototype', { value: RealDate.prototype, writable: false });
  Object.defineProperty(RealDate.prototype, 'constructor', { value: Date, writable: true, configurable: true });
  Object.defineProperty(Date, 'now', { value: function now_() { return now(); }, writable: true, configurable: true });
  Object.defineProperty(Date, 'parse', { value: RealDate.parse, writable: true, configurable: true });
  Object.defineProperty(Date, 'UTC', { value: RealDate.UTC, writable: true, configurable: true });
  Object.defineProperty(globalThis, 'Date', { value: Date, writable: true, configurable: true });
})`;
