import { describe, expect, it } from 'vitest';
import { checkJsonValue, toJsonValue } from './json-convert.js';
import { measureJson } from './json-measure.js';
import { describeJsonViolation } from './lossless-json.js';

/** The value converted, or what stopped it. */
function converted(value: unknown, limitBytes?: number): unknown {
  const result = toJsonValue(value, limitBytes === undefined ? {} : { limitBytes });
  if (result.ok) return result.value;
  return 'violation' in result ? describeJsonViolation(result.violation) : 'too large';
}

/** The value converted then measured: what measureJson says is left. */
function refusal(value: unknown): string | undefined {
  const result = toJsonValue(value);
  if (!result.ok) return 'violation' in result ? describeJsonViolation(result.violation) : 'too large';
  const measure = measureJson(result.value);
  return measure.ok ? undefined : describeJsonViolation(measure.violation);
}

describe('toJsonValue', () => {
  it('converts the table: Map, Set, generators, iterators, Date, Error, toJSON', () => {
    function* squares() {
      for (let n = 0; n < 3; n += 1) yield n * n;
    }
    const value = {
      byLabel: new Map<unknown, unknown>([
        ['bug', 2],
        [3, new Set(['b', 'a'])],
      ]),
      numbers: new Set([10, 9, 100]),
      mixed: new Set(['b', 1, 'a']),
      squares: squares(),
      keys: new Map([['x', 1]]).keys(),
      when: new Date(Date.UTC(2026, 10, 30)),
      settled: [{ status: 'rejected', reason: new TypeError('bad input') }],
      bare: new RangeError(''),
      url: new URL('https://example.com/a'),
    };
    expect(converted(value)).toEqual({
      byLabel: { bug: 2, '3': ['a', 'b'] },
      numbers: [9, 10, 100],
      mixed: ['b', 1, 'a'],
      squares: [0, 1, 4],
      keys: ['x'],
      when: '2026-11-30T00:00:00.000Z',
      settled: [{ status: 'rejected', reason: { error: 'TypeError: bad input' } }],
      bare: { error: 'RangeError' },
      url: 'https://example.com/a',
    });
  });

  it('returns the value itself when nothing needs converting, and copies only what holds a conversion', () => {
    const plain = { a: [1, { b: 'c' }], d: null };
    expect(converted(plain)).toBe(plain);
    const mixed = { same: plain, set: new Set([1]) };
    const result = converted(mixed) as Record<string, unknown>;
    expect(result).not.toBe(mixed);
    expect(result.same).toBe(plain);
  });

  it('refuses a Map key that is not a string or number, and two keys with the same text, at the map', () => {
    expect(converted({ m: new Map([[{}, 1]]) })).toBe(
      '$.m is a Map with an object as a key (only string and finite number keys become JSON object keys), which JSON cannot carry',
    );
    expect(
      converted(
        new Map<unknown, number>([
          [1, 1],
          ['1', 2],
        ]),
      ),
    ).toMatch(/^\$ is a Map with two keys that are both "1" as JSON \(number and string\)/);
  });

  it('stops an endless generator at the budget and tells it to stop', () => {
    let closed = false;
    function* endless() {
      try {
        for (let n = 0; ; n += 1) yield n;
      } finally {
        closed = true;
      }
    }
    expect(converted({ items: endless() }, 10_000)).toBe('too large');
    expect(closed).toBe(true);
  });

  it('refuses a Map or Set larger than the budget before reading it', () => {
    const big = new Map<string, number>();
    for (let n = 0; n < 100_000; n += 1) big.set(`k${n}`, n);
    const result = toJsonValue({ big }, { limitBytes: 1000 });
    expect(result).toEqual({ ok: false, tooLarge: true, atLeastBytes: expect.any(Number) });
  });

  it('names what an iterator or a toJSON threw, at its path', () => {
    function* failing() {
      yield 1;
      throw new Error('disk gone');
    }
    expect(converted({ rows: failing() })).toBe(
      '$.rows is an iterator that threw Error: disk gone while it was read, which JSON cannot carry',
    );
    expect(
      converted({
        a: {
          toJSON() {
            throw new TypeError('nope');
          },
        },
      }),
    ).toBe('$.a is an object whose toJSON method threw TypeError: nope, which JSON cannot carry');
  });

  it('reads an Error without running its getters, and cuts a huge name or message', () => {
    const error = new Error('x');
    Object.defineProperty(error, 'message', {
      get() {
        throw new Error('getter ran');
      },
    });
    Object.defineProperty(error, 'name', { value: 'N'.repeat(20_000) });
    const result = converted([error]) as Array<{ error: string }>;
    expect(result[0]!.error).toHaveLength(10_001);
  });

  it('leaves what cannot cross for measureJson: functions, cycles, BigInt, invalid Dates, Proxies that throw', () => {
    const cycle: Record<string, unknown> = { set: new Set([1]) };
    cycle.self = cycle;
    const throwing = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    expect(refusal({ f: () => 1 })).toBe('$.f is a function, which JSON cannot carry');
    expect(refusal(cycle)).toMatch(/^\$\.self is a cycle back to \$/);
    expect(refusal({ n: 2n ** 64n })).toBe('$.n is a BigInt, which JSON cannot carry');
    expect(refusal({ when: new Date(Number.NaN) })).toBe(
      '$.when is an invalid Date (its time is NaN: check what it was made from), which JSON cannot carry',
    );
    expect(refusal({ set: new Set([1]), odd: throwing })).toMatch(/^\$\.odd is an object that throws when it is read/);
    expect(refusal({ bytes: new Uint8Array(2) })).toMatch(/^\$\.bytes is a Uint8Array/);
  });

  it('keeps accessors, holes and extra keys of a copied container for measureJson, without running a getter', () => {
    let ran = false;
    const withGetter = {
      set: new Set([1]),
      get lazy() {
        ran = true;
        return 1;
      },
    };
    expect(refusal(withGetter)).toBe('$.lazy is an accessor property (getter or setter), which JSON cannot carry');
    expect(ran).toBe(false);
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    expect(refusal([new Set([1]), , 3])).toBe('$[1] is a hole in a sparse array, which JSON cannot carry');
  });

  it('leaves nesting past the depth limit unread', () => {
    let deep: unknown = new Set([1]);
    for (let level = 0; level < 10_000; level += 1) deep = [deep];
    const result = toJsonValue(deep);
    expect(result.ok).toBe(true);
    expect(measureJson((result as { value: unknown }).value, { depthLimit: 512 }).ok).toBe(false);
  });

  // Its byte count is a lower bound, to stop early: a value of exactly the budget must still pass,
  // in every shape that is counted before it is copied (a Set or Map by its size) or as it is read.
  it.each([
    ['an array of empty arrays', () => Array.from({ length: 1000 }, () => [])],
    ['an object', () => Object.fromEntries(Array.from({ length: 500 }, (_, n) => [`k${n}`, n]))],
    ['a Set of digits', () => new Set(Array.from({ length: 10 }, (_, n) => n))],
    ['a Set of sets', () => new Set([new Set([1]), new Set([2, 3])])],
    ['a Map', () => new Map(Array.from({ length: 500 }, (_, n) => [`k${n}`, n % 10]))],
    [
      'a Map of empty maps',
      () =>
        new Map([
          ['a', new Map()],
          ['b', new Map()],
        ]),
    ],
    [
      'a generator',
      () =>
        (function* () {
          for (let n = 0; n < 1000; n += 1) yield n % 10;
        })(),
    ],
    [
      'a generator of one',
      () =>
        (function* () {
          yield 1;
        })(),
    ],
    ['an empty Set, Map and generator', () => [new Set(), new Map(), (function* () {})()]],
  ])('lets %s of exactly the budget through, and stops it one byte under', (_label, make) => {
    const exact = JSON.stringify(converted(make()));
    const bytes = new TextEncoder().encode(exact).length;
    expect(checkJsonValue(make(), { limitBytes: bytes })).toMatchObject({ ok: true, bytes });
    expect(checkJsonValue(make(), { limitBytes: bytes - 1 })).toMatchObject({ ok: false });
  });
});
