import { describe, expect, it } from 'vitest';
import { jsonDepthLimit, jsonPathOf, measureJson } from './json-measure.js';
import { describeJsonViolation } from './lossless-json.js';
import { utf8ByteLength } from './utf8.js';

function nestedArrays(depth: number): unknown[] {
  const root: unknown[] = [];
  let current = root;
  for (let level = 1; level < depth; level += 1) {
    const next: unknown[] = [];
    current.push(next);
    current = next;
  }
  return root;
}

function throwingProxy(target: object = {}): object {
  const trap = () => {
    throw new Error('trap');
  };
  return new Proxy(target, {
    get: trap,
    has: trap,
    ownKeys: trap,
    getOwnPropertyDescriptor: trap,
    getPrototypeOf: trap,
    defineProperty: trap,
    deleteProperty: trap,
    set: trap,
    isExtensible: trap,
    preventExtensions: trap,
    setPrototypeOf: trap,
  });
}

describe('measureJson', () => {
  it.each([
    ['null', null],
    ['booleans and numbers', [true, false, 0, -1.5, 1e21, 5e-324, Number.MAX_VALUE]],
    ['escapes', '"\\\b\f\n\r\t\u0000\u001f\u007f'],
    ['multi-byte text', 'héllo ✓ 🌊'],
    ['lone surrogates', ['\ud800', '\udc00x', 'a\ud83c']],
    ['keys that need escaping', { 'a b': 1, 'é"': [2], '': {} }],
    ['empty containers', [[], {}, [[]], { a: {} }]],
    ['a null-prototype object', Object.assign(Object.create(null) as object, { a: 'x' })],
    [
      'a shared object',
      (() => {
        const shared = { k: 'v' };
        return [shared, { shared }, shared];
      })(),
    ],
  ])('counts the UTF-8 bytes JSON.stringify writes for %s', (_label, value) => {
    expect(measureJson(value)).toEqual({ ok: true, bytes: utf8ByteLength(JSON.stringify(value)) });
  });

  it('counts a value shared along exponentially many paths without walking each one', () => {
    let value: unknown = 'x';
    for (let level = 0; level < 40; level += 1) value = [value, value];
    const result = measureJson(value);
    // Each level doubles the inner text and adds the brackets and a comma.
    let expected = 3;
    for (let level = 0; level < 40; level += 1) expected = 2 * expected + 3;
    expect(result).toEqual({ ok: true, bytes: expected });
  });

  it('refuses, with the path shortened, an array nested deeper than the limit, and does so for a million levels', () => {
    const result = measureJson(nestedArrays(1_000_000), { depthLimit: jsonDepthLimit });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.violation.depthLimit).toBe(512);
    expect(result.violation.path.length).toBeLessThanOrEqual(201);
    expect(result.violation.path.startsWith('$[0][0]')).toBe(true);
    expect(describeJsonViolation(result.violation)).toMatch(
      /^\$\[0\]\[0\].*….*\[0\] is nested deeper than 512 levels, the most a value crossing the host boundary may have$/,
    );
  }, 60_000);

  it('accepts exactly the depth limit and refuses one more level', () => {
    expect(measureJson(nestedArrays(512), { depthLimit: 512 }).ok).toBe(true);
    expect(measureJson(nestedArrays(513), { depthLimit: 512 }).ok).toBe(false);
  });

  it('measures a 1,000,000-deep value without a depth limit and without overflowing the stack', () => {
    const result = measureJson(nestedArrays(1_000_000));
    expect(result).toEqual({ ok: true, bytes: 2_000_000 });
  }, 60_000);

  it('refuses a Proxy whose every trap throws, without throwing', () => {
    expect(measureJson(throwingProxy())).toEqual({
      ok: false,
      violation: { path: '$', problem: 'an object that throws when it is read (a Proxy or another exotic object)' },
    });
    expect(measureJson({ list: [1, throwingProxy([])] })).toMatchObject({
      ok: false,
      violation: { path: '$.list[1]' },
    });
  });

  it('refuses a revoked Proxy, without throwing', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(measureJson({ a: proxy }).ok).toBe(false);
  });

  it('refuses a getter without running it', () => {
    let ran = false;
    const value = Object.defineProperty({}, 'a', {
      enumerable: true,
      get() {
        ran = true;
        return 1;
      },
    });
    expect(measureJson(value)).toMatchObject({ ok: false, violation: { path: '$.a' } });
    expect(ran).toBe(false);
  });

  it('reports the first violation in document order', () => {
    expect(measureJson([{ a: 1 }, [Number.NaN], 1n])).toMatchObject({
      ok: false,
      violation: { path: '$[1][0]', problem: 'NaN' },
    });
  });
});

describe('jsonPathOf', () => {
  it('writes identifier keys with a dot, other keys quoted and indexes in brackets', () => {
    expect(jsonPathOf([])).toBe('$');
    expect(jsonPathOf(['items', 3, 'unit price', '$ok', '1x', ''])).toBe('$.items[3]["unit price"].$ok["1x"][""]');
  });

  it('writes the path measureJson reports for the same member', () => {
    const measure = measureJson({ items: [1, { 'unit price': Number.NaN }] });
    expect(measure.ok === false && measure.violation.path).toBe(jsonPathOf(['items', 1, 'unit price']));
  });
});
