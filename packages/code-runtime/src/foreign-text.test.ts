import { describe, expect, it } from 'vitest';
import { foreignText } from './foreign-text.js';
import { cutUtf8, utf8ByteLength } from './utf8.js';

function thrower(): never {
  throw new Error('getter');
}

function throwingProxy(target: object = {}): object {
  return new Proxy(target, {
    get: thrower,
    has: thrower,
    ownKeys: thrower,
    getOwnPropertyDescriptor: thrower,
    getPrototypeOf: thrower,
    defineProperty: thrower,
    deleteProperty: thrower,
    set: thrower,
    apply: thrower,
    construct: thrower,
    isExtensible: thrower,
    preventExtensions: thrower,
    setPrototypeOf: thrower,
  });
}

class MessageThrows extends Error {
  override get message(): string {
    return thrower();
  }
  override get name(): string {
    return thrower();
  }
}

describe('foreignText', () => {
  it.each<[string, unknown, string]>([
    ['an Error', new TypeError('bad input'), 'bad input'],
    ['an Error with an empty message', new RangeError(''), 'RangeError'],
    ['an Error whose message and name getters throw', new MessageThrows(), 'an error whose message could not be read'],
    [
      'an Error whose own message and name are throwing getters',
      Object.defineProperties(new Error('x'), { message: { get: thrower }, name: { get: thrower } }),
      'an error whose message could not be read',
    ],
    ['an Error whose message is not a string', Object.assign(new Error('x'), { message: 42 }), 'Error'],
    ['a string', 'plain text', 'plain text'],
    ['a number', 42, '42'],
    ['NaN', Number.NaN, 'NaN'],
    ['undefined', undefined, 'undefined'],
    ['null', null, 'null'],
    ['a BigInt', 10n, '10'],
    ['a symbol', Symbol('tag'), 'Symbol(tag)'],
    ['a plain object', { code: 7 }, '{"code":7}'],
    [
      'a null-prototype object with a throwing getter',
      Object.defineProperty(Object.create(null), 'x', { get: thrower, enumerable: true }),
      'a value that could not be read',
    ],
    ['a Proxy whose every trap throws', throwingProxy(), 'a value that could not be read'],
    ['a function Proxy whose every trap throws', throwingProxy(() => 1), 'a value that could not be read'],
    [
      'an object whose toJSON and toString throw',
      { toJSON: thrower, toString: thrower },
      'a value that could not be read',
    ],
    [
      'an object whose Symbol.toPrimitive throws',
      { toJSON: thrower, [Symbol.toPrimitive]: thrower },
      'a value that could not be read',
    ],
    [
      'a cycle',
      (() => {
        const cycle: Record<string, unknown> = {};
        cycle.self = cycle;
        return cycle;
      })(),
      '[object Object]',
    ],
  ])('reads %s without throwing', (_label, value, expected) => {
    expect(foreignText(value)).toBe(expected);
  });

  it('reads a revoked Proxy without throwing', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(foreignText(proxy)).toBe('a value that could not be read');
  });

  it('cuts a 5 MB message to the budget, with a visible marker', () => {
    const text = foreignText(new Error('x'.repeat(5_000_000)), 1024);
    expect(utf8ByteLength(text)).toBeLessThanOrEqual(1024);
    expect(text).toMatch(/ … \[cut: 5000000 characters in all\]$/);
  });

  it('gives the stack when asked, and the message when the stack cannot be read', () => {
    expect(foreignText(new Error('boom'), 4096, { stack: true })).toMatch(/^Error: boom\n\s+at /);
    const hidden = Object.defineProperty(new Error('boom'), 'stack', { get: thrower });
    expect(foreignText(hidden, 4096, { stack: true })).toBe('boom');
    expect(foreignText('plain', 4096, { stack: true })).toBe('plain');
  });

  it('cuts a huge string thrown as is', () => {
    expect(utf8ByteLength(foreignText('é'.repeat(1_000_000), 100))).toBeLessThanOrEqual(100);
  });
});

describe('cutUtf8', () => {
  it('returns text that fits unchanged', () => {
    expect(cutUtf8('héllo', 6)).toBe('héllo');
  });

  it('never splits a surrogate pair and stays within the budget', () => {
    for (let budget = 0; budget < 60; budget += 1) {
      const cut = cutUtf8('🌊'.repeat(40), budget);
      expect(utf8ByteLength(cut), String(budget)).toBeLessThanOrEqual(budget);
      expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    }
  });

  it('reads a budget that is not a number as 0 instead of letting the whole text through', () => {
    expect(cutUtf8('text', Number.NaN)).toBe('');
    expect(cutUtf8('text', -1)).toBe('');
  });
});
