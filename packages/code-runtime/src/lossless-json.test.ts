import { describe, expect, it } from 'vitest';
import { describeJsonViolation, findJsonViolation, isLosslessJson } from './lossless-json.js';

function accessor(target: object, key: string, onRead: () => void): void {
  Object.defineProperty(target, key, {
    enumerable: true,
    get() {
      onRead();
      return 1;
    },
  });
}

describe('findJsonViolation', () => {
  it.each([
    ['null', null],
    ['a boolean', true],
    ['zero', 0],
    ['a negative number', -1.5],
    ['the largest finite number', Number.MAX_VALUE],
    ['a string', 'text'],
    ['a string with a lone surrogate', '\ud800'],
    ['an empty object', {}],
    ['an empty array', []],
    ['a null-prototype object', Object.assign(Object.create(null) as object, { a: 1 })],
    ['a nested document', { items: [{ price: 1, tags: ['a', null, true] }], total: { value: 2 } }],
    ['an object with a key __proto__', JSON.parse('{"__proto__": {"a": 1}}') as unknown],
    ['an object with non-enumerable keys', Object.defineProperty({ a: 1 }, 'hidden', { value: Number.NaN })],
  ])('accepts %s', (_label, value) => {
    expect(findJsonViolation(value)).toBeUndefined();
    expect(isLosslessJson(value)).toBe(true);
  });

  it.each([
    ['NaN', Number.NaN, 'NaN'],
    ['Infinity', Number.POSITIVE_INFINITY, 'Infinity'],
    ['-Infinity', Number.NEGATIVE_INFINITY, '-Infinity'],
    ['-0', -0, '-0 (JSON has no negative zero)'],
    ['a BigInt', 1n, 'a BigInt'],
    ['undefined', undefined, 'undefined'],
    ['a function', () => 1, 'a function'],
    ['a symbol', Symbol('value'), 'a symbol'],
  ])('refuses %s at the top level', (_label, value, problem) => {
    expect(findJsonViolation(value)).toEqual({ path: '$', problem });
    expect(isLosslessJson(value)).toBe(false);
  });

  it.each([
    ['NaN', { a: { b: Number.NaN } }, '$.a.b'],
    ['Infinity', { list: [1, Number.POSITIVE_INFINITY] }, '$.list[1]'],
    ['-Infinity', [[Number.NEGATIVE_INFINITY]], '$[0][0]'],
    ['-0', { price: -0 }, '$.price'],
    ['a BigInt', { id: 10n }, '$.id'],
    ['undefined in an object', { a: undefined }, '$.a'],
    ['undefined in an array', [1, undefined], '$[1]'],
    ['a function', { toJSON: () => 'x' }, '$.toJSON'],
    ['a symbol value', { kind: Symbol('kind') }, '$.kind'],
  ])('names the path of %s', (_label, value, path) => {
    expect(findJsonViolation(value)?.path).toBe(path);
  });

  it('quotes keys that are not identifiers in the path', () => {
    expect(findJsonViolation({ 'a b': { '0': Number.NaN } })?.path).toBe('$["a b"]["0"]');
    expect(findJsonViolation({ 'say "hi"': undefined })?.path).toBe('$["say \\"hi\\""]');
  });

  it('reports the first violation in document order', () => {
    expect(findJsonViolation({ a: [1, Number.NaN], b: undefined })?.path).toBe('$.a[1]');
    expect(findJsonViolation([{ ok: 1 }, { bad: 1n }, Number.NaN])?.path).toBe('$[1].bad');
  });

  it('refuses a symbol key on an object', () => {
    expect(findJsonViolation({ outer: { [Symbol('key')]: 1 } })).toEqual({
      path: '$.outer',
      problem: 'an object with symbol keys',
    });
  });

  it('refuses a symbol key on an array', () => {
    const list = Object.assign([1], { [Symbol('key')]: 1 });
    expect(findJsonViolation({ list })).toEqual({ path: '$.list', problem: 'an array with symbol keys' });
  });

  it('refuses a non-index property on an array, which JSON.stringify would drop', () => {
    const list = Object.assign([1, 2], { total: 3 });
    expect(JSON.stringify(list)).toBe('[1,2]');
    expect(findJsonViolation({ list })).toEqual({ path: '$.list.total', problem: 'a non-index property on an array' });
  });

  it('refuses a non-index property on an array whose last index is not enumerable', () => {
    const list = [1, 2];
    Object.defineProperty(list, 1, { enumerable: false });
    Object.assign(list, { extra: 1 });
    expect(findJsonViolation(list)?.path).toBe('$.extra');
  });

  it('refuses an index-like key at or past the length of an array', () => {
    const list: number[] = [1];
    Object.defineProperty(list, '4294967295', { value: 1, enumerable: true });
    expect(findJsonViolation(list)?.path).toBe('$["4294967295"]');
  });

  it('refuses a cycle and names where it points back to', () => {
    const parent: Record<string, unknown> = { name: 'parent' };
    parent.child = { parent };
    expect(findJsonViolation(parent)).toEqual({ path: '$.child.parent', problem: 'a cycle back to $' });

    const list: unknown[] = [1];
    list.push({ items: [list] });
    expect(findJsonViolation({ list })).toEqual({ path: '$.list[1].items[0]', problem: 'a cycle back to $.list' });
  });

  it('refuses an object that contains itself', () => {
    const self: Record<string, unknown> = {};
    self.self = self;
    expect(findJsonViolation(self)).toEqual({ path: '$.self', problem: 'a cycle back to $' });
  });

  it('accepts an object shared by two branches', () => {
    const shared = { a: [1, 2] };
    expect(findJsonViolation({ left: shared, right: shared, list: [shared, shared] })).toBeUndefined();
  });

  it('walks a shared object once, so a doubling chain of sharing stays linear', () => {
    let prototypeReads = 0;
    const leaf = new Proxy(
      {},
      {
        getPrototypeOf(target) {
          prototypeReads += 1;
          return Reflect.getPrototypeOf(target);
        },
      },
    );
    let value: unknown = leaf;
    for (let level = 0; level < 20; level += 1) value = [value, value];
    expect(findJsonViolation(value)).toBeUndefined();
    expect(prototypeReads).toBe(1);
  });

  it('still finds a violation inside an object shared by two branches', () => {
    const shared = { bad: Number.NaN };
    expect(findJsonViolation({ left: shared, right: shared })?.path).toBe('$.left.bad');
  });

  it('refuses a hole in a sparse array', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    expect(findJsonViolation({ list: [1, , 3] })).toEqual({ path: '$.list[1]', problem: 'a hole in a sparse array' });
    expect(findJsonViolation(new Array(3))?.path).toBe('$[0]');
  });

  it('refuses a very long sparse array at its first hole', () => {
    const list: number[] = [];
    list.length = 2 ** 32 - 1;
    expect(findJsonViolation(list)?.path).toBe('$[0]');
  });

  it('refuses an accessor on an object without invoking it', () => {
    let reads = 0;
    const value = { a: 1 };
    accessor(value, 'b', () => {
      reads += 1;
    });
    expect(findJsonViolation({ value })).toEqual({
      path: '$.value.b',
      problem: 'an accessor property (getter or setter)',
    });
    expect(reads).toBe(0);
  });

  it('refuses an accessor on an array index without invoking it', () => {
    let reads = 0;
    const list = [0, 0];
    accessor(list, '1', () => {
      reads += 1;
    });
    expect(findJsonViolation(list)?.path).toBe('$[1]');
    expect(reads).toBe(0);
  });

  it('refuses a setter-only property', () => {
    const value = {};
    Object.defineProperty(value, 'write', { enumerable: true, set() {} });
    expect(findJsonViolation(value)?.problem).toBe('an accessor property (getter or setter)');
  });

  it('never invokes a getter on the prototype of an exotic object', () => {
    let reads = 0;
    const prototype = {};
    Object.defineProperty(prototype, 'constructor', {
      get() {
        reads += 1;
        return { name: 'Forged' };
      },
    });
    expect(findJsonViolation({ value: Object.create(prototype) })).toEqual({
      path: '$.value',
      problem: 'an object that is not plain',
    });
    expect(reads).toBe(0);
  });

  it('never invokes a static name getter on the constructor of a class instance', () => {
    let reads = 0;
    class Sneaky {
      readonly kind = 'sneaky';
      static get name(): string {
        reads += 1;
        return 'Sneaky';
      }
    }
    expect(findJsonViolation(new Sneaky())?.problem).toBe('an object that is not plain');
    expect(reads).toBe(0);
  });

  class Point {
    constructor(
      readonly x: number,
      readonly y: number,
    ) {}
  }

  it.each([
    ['a Date', new Date(0), 'a Date (only plain objects and arrays are JSON)'],
    ['a Map', new Map(), 'a Map (only plain objects and arrays are JSON)'],
    ['a Set', new Set([1]), 'a Set (only plain objects and arrays are JSON)'],
    ['a RegExp', /x/, 'a RegExp (only plain objects and arrays are JSON)'],
    ['an Error', new Error('x'), 'an Error (only plain objects and arrays are JSON)'],
    ['a class instance', new Point(1, 2), 'a Point (only plain objects and arrays are JSON)'],
    ['a Uint8Array', new Uint8Array(2), 'a Uint8Array (only plain objects and arrays are JSON)'],
    ['an ArrayBuffer', new ArrayBuffer(2), 'an ArrayBuffer (only plain objects and arrays are JSON)'],
    ['a boxed number', Object(1) as unknown, 'a Number (only plain objects and arrays are JSON)'],
    ['a boxed string', Object('text') as unknown, 'a String (only plain objects and arrays are JSON)'],
    ['a boxed boolean', Object(true) as unknown, 'a Boolean (only plain objects and arrays are JSON)'],
    [
      'a Promise',
      Promise.resolve(1),
      'a Promise (a call or an async function that was not awaited: write `await` before it)',
    ],
    ['an object with an anonymous prototype', Object.create({}) as unknown, 'an object that is not plain'],
  ])('refuses %s', (_label, value, problem) => {
    expect(findJsonViolation({ nested: [value] })).toEqual({ path: '$.nested[0]', problem });
  });

  it('refuses an array with a foreign prototype', () => {
    class List extends Array<number> {}
    const list = List.from([1]);
    expect(findJsonViolation(list)).toEqual({ path: '$', problem: 'an array with a foreign prototype' });
  });

  it('checks a 1,000,000-deep nested array without overflowing the stack', () => {
    const root: unknown[] = [];
    let current = root;
    for (let depth = 0; depth < 1_000_000; depth += 1) {
      const next: unknown[] = [];
      current.push(next);
      current = next;
    }
    expect(findJsonViolation(root)).toBeUndefined();
    current.push(Number.NaN);
    const violation = findJsonViolation(root);
    expect(violation?.problem).toBe('NaN');
    expect(violation?.path.length).toBe(1 + 3 * 1_000_001);
  }, 60_000);

  it('checks a 1,000,000-deep nested object without overflowing the stack', () => {
    const root: Record<string, unknown> = {};
    let current = root;
    for (let depth = 0; depth < 1_000_000; depth += 1) {
      const next: Record<string, unknown> = {};
      current.a = next;
      current = next;
    }
    expect(findJsonViolation(root)).toBeUndefined();
    current.a = root;
    expect(findJsonViolation(root)?.problem).toBe('a cycle back to $');
  }, 60_000);
});

describe('describeJsonViolation', () => {
  it('writes one sentence naming the path and the problem', () => {
    expect(describeJsonViolation({ path: '$.a[0]', problem: 'NaN' })).toBe('$.a[0] is NaN, which JSON cannot carry');
  });
});
