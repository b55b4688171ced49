/** One test262-style case of a standard built-in: a program and the JSON value it returns. */
export interface BuiltinCase {
  /** `<built-in>: <what is checked>`, as the test's name. */
  readonly name: string;
  /** The body of an async function, after {@link builtinCaseHelpers}. */
  readonly program: string;
  readonly value: unknown;
}

/**
 * Helpers every case's program starts with: `thrown(f)` and `rejected(promise)` answer the name of
 * the error class (`'TypeError'`), or `'none'`/`'fulfilled'`; `closing()` is an iterator of 1s that
 * records in `closing.closed` whether its `return` was called.
 */
export const builtinCaseHelpers = `const errorName = (error) => error instanceof TypeError ? 'TypeError' : error instanceof RangeError ? 'RangeError' : error instanceof SyntaxError ? 'SyntaxError' : 'other: ' + String(error);
const thrown = (f) => { try { f(); return 'none'; } catch (error) { return errorName(error); } };
const rejected = async (promise) => { try { await promise; return 'fulfilled'; } catch (error) { return errorName(error); } };
const closing = (value = 1) => { const state = { closed: false }; const iterator = { next: () => ({ value, done: false }), return() { state.closed = true; return {}; }, [Symbol.iterator]() { return this; } }; return [iterator, state]; };
`;

/**
 * Cases for the ES2023–ES2025 built-ins that Node 20 lacks, and `Array.fromAsync`: each method on
 * ordinary input, empty input, holes, a callback that is not callable, `Symbol.species` and
 * subclasses, iterator closing, set-likes and coercions, with the values the specification gives.
 * Every TypeScript provider runs them (`@sluice/code-runtime-worker-thread` through its polyfills,
 * `@sluice/code-runtime-quickjs` natively).
 */
export const builtinCases: readonly BuiltinCase[] = [
  // Object.groupBy
  {
    name: 'Object.groupBy: groups in order into an object with a null prototype',
    program: `const groups = Object.groupBy([1, 2, 3, 4], (x) => (x % 2 ? 'odd' : 'even'));
return [groups, Object.getPrototypeOf(groups) === null, Object.keys(groups)];`,
    value: [{ odd: [1, 3], even: [2, 4] }, true, ['odd', 'even']],
  },
  {
    name: 'Object.groupBy: an empty iterable gives an empty object',
    program: 'return Object.keys(Object.groupBy([], (x) => x)).length;',
    value: 0,
  },
  {
    name: 'Object.groupBy: a hole is read as undefined',
    program: `const groups = Object.groupBy([1, , 3], (x) => (x === undefined ? 'hole' : 'value'));
return [groups.value, groups.hole.length, groups.hole[0] === undefined];`,
    value: [[1, 3], 1, true],
  },
  {
    name: 'Object.groupBy: the callback gets the value and its index, and keys are property keys',
    program: `const seen = [];
const groups = Object.groupBy(['a', 'b'], function (value, index) { seen.push(arguments.length); return index; });
return [groups, seen, Object.groupBy([1], () => ({ toString: () => 'k' }))];`,
    value: [{ 0: ['a'], 1: ['b'] }, [2, 2], { k: [1] }],
  },
  {
    name: 'Object.groupBy: takes any iterable, a string included',
    program: "return Object.groupBy('abca', (c) => c);",
    value: { a: ['a', 'a'], b: ['b'], c: ['c'] },
  },
  {
    name: 'Object.groupBy: a callback that is not callable, or null items, is a TypeError',
    program: 'return [thrown(() => Object.groupBy([1], null)), thrown(() => Object.groupBy(null, (x) => x))];',
    value: ['TypeError', 'TypeError'],
  },
  {
    name: 'Object.groupBy: a throwing callback closes the iterator',
    program: `const [iterator, state] = closing();
return [thrown(() => Object.groupBy(iterator, () => { throw new RangeError('x'); })), state.closed];`,
    value: ['RangeError', true],
  },
  {
    name: 'Object.groupBy: length 2, named, writable and configurable but not enumerable',
    program: `const length = Object.groupBy.length;
const { writable, enumerable, configurable } = Object.getOwnPropertyDescriptor(Object, 'groupBy');
return [length, Object.groupBy.name, writable, enumerable, configurable];`,
    value: [2, 'groupBy', true, false, true],
  },
  // Map.groupBy
  {
    name: 'Map.groupBy: groups into a Map in insertion order',
    program: 'const map = Map.groupBy([1, 2, 3], (x) => x % 2); return [map instanceof Map, [...map]];',
    value: [
      true,
      [
        [1, [1, 3]],
        [0, [2]],
      ],
    ],
  },
  {
    name: 'Map.groupBy: keys are compared as SameValueZero, -0 becomes +0, objects by identity',
    program: `const key = {};
const byObject = Map.groupBy([1, 2], () => key);
const zero = [...Map.groupBy([1], () => -0).keys()][0];
return [byObject.get(key), Object.is(zero, 0), Map.groupBy([NaN, NaN], (x) => x).get(NaN).length];`,
    value: [[1, 2], true, 2],
  },
  {
    name: 'Map.groupBy: ignores a subclass, and a non-callable callback is a TypeError',
    program: `class Sub extends Map {}
return [Sub.groupBy([1], (x) => x).constructor === Map, thrown(() => Map.groupBy([1], 'x'))];`,
    value: [true, 'TypeError'],
  },
  // Promise.withResolvers
  {
    name: 'Promise.withResolvers: promise, resolve and reject, in that order',
    program: `const resolvers = Promise.withResolvers();
resolvers.resolve(5);
const other = Promise.withResolvers();
other.reject(new RangeError('no'));
return [Object.keys(resolvers), await resolvers.promise, await rejected(other.promise)];`,
    value: [['promise', 'resolve', 'reject'], 5, 'RangeError'],
  },
  {
    name: 'Promise.withResolvers: uses this as the constructor; a non-constructor is a TypeError',
    program: `class Sub extends Promise {}
return [Sub.withResolvers().promise instanceof Sub, thrown(() => Promise.withResolvers.call(undefined)), thrown(() => Promise.withResolvers.call({}))];`,
    value: [true, 'TypeError', 'TypeError'],
  },
  // Promise.try
  {
    name: 'Promise.try: calls with the arguments and resolves with the value',
    program: 'return [await Promise.try(() => 1), await Promise.try((a, b) => a + b, 2, 3), Promise.try.length];',
    value: [1, 5, 1],
  },
  {
    name: 'Promise.try: a synchronous throw becomes a rejection; a non-constructor this is a TypeError',
    program: `let promise;
const sync = thrown(() => { promise = Promise.try(() => { throw new TypeError('x'); }); });
return [sync, await rejected(promise), thrown(() => Promise.try.call(1, () => 1))];`,
    value: ['none', 'TypeError', 'TypeError'],
  },
  // Set methods
  {
    name: 'Set.prototype.union, difference, symmetricDifference: values in order',
    program: `const a = new Set([1, 2]);
return [[...a.union(new Set([2, 3]))], [...new Set([1, 2, 3]).difference(new Set([2]))], [...a.symmetricDifference(new Set([2, 3]))], [...new Set().union(new Set())]];`,
    value: [[1, 2, 3], [1, 3], [1, 3], []],
  },
  {
    name: "Set.prototype.intersection: iterates the smaller set, so the order is other's when it is smaller",
    program:
      'return [[...new Set([1, 2, 3]).intersection(new Set([3, 2]))], [...new Set([3, 2]).intersection(new Set([1, 2, 3]))]];',
    value: [
      [3, 2],
      [3, 2],
    ],
  },
  {
    name: 'Set.prototype.isSubsetOf, isSupersetOf, isDisjointFrom, empty sets included',
    program: `return [new Set([1]).isSubsetOf(new Set([1, 2])), new Set([1, 2]).isSupersetOf(new Set([2])), new Set([1]).isDisjointFrom(new Set([2])),
  new Set().isSubsetOf(new Set()), new Set([1, 2]).isSubsetOf(new Set([1])), new Set([1]).isDisjointFrom(new Set([1]))];`,
    value: [true, true, true, true, false, false],
  },
  {
    name: 'Set methods: take a Map or any set-like with size, has and keys',
    program: `const setLike = { size: 1, has: (x) => x === 2, keys: function* () { yield 2; } };
return [[...new Set([1, 2]).union(new Map([[3, 'c']]))], [...new Set([1, 2]).intersection(setLike)], new Set([2]).isSubsetOf(setLike)];`,
    value: [[1, 2, 3], [2], true],
  },
  {
    name: 'Set methods: an array, a NaN size, a non-callable has is a TypeError; a negative size a RangeError',
    program: `const one = new Set([1]);
return [thrown(() => one.union([2])), thrown(() => one.union({ size: undefined, has() {}, keys() {} })),
  thrown(() => one.union({ size: 1, has: 1, keys() {} })), thrown(() => one.union({ size: -1, has() {}, keys() {} })),
  thrown(() => Set.prototype.union.call([1], one))];`,
    value: ['TypeError', 'TypeError', 'TypeError', 'RangeError', 'TypeError'],
  },
  {
    name: 'Set methods: ignore Symbol.species and subclasses, and turn -0 from a set-like into +0',
    program: `class Sub extends Set { static get [Symbol.species]() { throw new Error('species read'); } }
const zero = [...new Set().union({ size: 1, has: () => false, keys: function* () { yield -0; } })][0];
return [new Sub([1]).union(new Set([2])).constructor === Set, new Sub([1]).difference(new Set()).constructor === Set, Object.is(zero, 0)];`,
    value: [true, true, true],
  },
  {
    name: 'Set.prototype.isSubsetOf: a larger this is false without calling has',
    program: `let calls = 0;
const result = new Set([1, 2]).isSubsetOf({ size: 1, has() { calls += 1; return true; }, keys() { throw new Error('keys'); } });
return [result, calls];`,
    value: [false, 0],
  },
  {
    name: 'Set.prototype.isDisjointFrom and isSupersetOf: close the keys iterator when they stop early',
    program: `const disjoint = closing(1);
const supersetOf = closing(9);
return [new Set([1, 2, 3]).isDisjointFrom({ size: 1, has: () => false, keys: () => disjoint[0] }), disjoint[1].closed,
  new Set([1, 2]).isSupersetOf({ size: 1, has: () => false, keys: () => supersetOf[0] }), supersetOf[1].closed];`,
    value: [false, true, false, true],
  },
  // Array.fromAsync
  {
    name: 'Array.fromAsync: an async iterable, a sync iterable of promises, an array-like, empty',
    program: `return [await Array.fromAsync((async function* () { yield 1; yield 2; })()), await Array.fromAsync([Promise.resolve(1), 2]),
  await Array.fromAsync({ length: 2, 0: 'a', 1: Promise.resolve('b') }), await Array.fromAsync([])];`,
    value: [[1, 2], [1, 2], ['a', 'b'], []],
  },
  {
    name: 'Array.fromAsync: the mapper gets the value and the index, and its result is awaited',
    program: 'return await Array.fromAsync([1, 2], async (x, i) => x * 10 + i);',
    value: [10, 21],
  },
  {
    name: 'Array.fromAsync: a non-callable mapper rejects with a TypeError instead of throwing',
    program: `let promise;
const sync = thrown(() => { promise = Array.fromAsync([1], 5); });
return [sync, await rejected(promise), await rejected(Array.fromAsync(null))];`,
    value: ['none', 'TypeError', 'TypeError'],
  },
  {
    name: 'Array.fromAsync: builds this when it is a constructor (a subclass of Array)',
    program:
      'class Sub extends Array {}\nconst made = await Sub.fromAsync([1, 2]);\nreturn [made instanceof Sub, made.length];',
    value: [true, 2],
  },
  {
    name: 'Array.fromAsync: a throwing mapper closes a sync iterator',
    program: `const [iterator, state] = closing();
const outcome = await rejected(Array.fromAsync(iterator, () => { throw new RangeError('x'); }));
return [outcome, state.closed];`,
    value: ['RangeError', true],
  },
  // Iterator helpers
  {
    name: 'Iterator: a global abstract class, the prototype of the built-in iterators',
    program: `class Counter extends Iterator { next() { return { done: true, value: undefined }; } }
return [typeof Iterator, Iterator.prototype === Object.getPrototypeOf(Object.getPrototypeOf([].values())), thrown(() => new Iterator()), new Counter().toArray()];`,
    value: ['function', true, 'TypeError', []],
  },
  {
    name: 'Iterator.prototype.map, filter, take, drop, flatMap, toArray on array iterators',
    program: `return [[1, 2, 3].values().map((x) => x * 2).toArray(), [1, 2, 3].values().filter((x) => x % 2).toArray(),
  [1, 2, 3, 4].values().drop(1).take(2).toArray(), [1, 2].values().flatMap((x) => [x, x * 10]).toArray(), Iterator.from('ab').toArray()];`,
    value: [
      [2, 4, 6],
      [1, 3],
      [2, 3],
      [1, 10, 2, 20],
      ['a', 'b'],
    ],
  },
  {
    name: 'Iterator.prototype.map and filter: the callback gets the value and a counter',
    program:
      "return [['a', 'b'].values().map((value, index) => value + index).toArray(), [5, 6, 7].values().filter((_, index) => index !== 1).toArray()];",
    value: [
      ['a0', 'b1'],
      [5, 7],
    ],
  },
  {
    name: 'Iterator helpers: lazy, and tagged Iterator Helper',
    program: `let calls = 0;
const mapped = [1, 2].values().map((x) => { calls += 1; return x; });
const before = calls;
mapped.next();
return [before, calls, Object.prototype.toString.call(mapped)];`,
    value: [0, 1, '[object Iterator Helper]'],
  },
  {
    name: 'Iterator.prototype.take and drop: a negative or NaN limit is a RangeError',
    program: `const values = () => [1].values();
return [thrown(() => values().take(-1)), thrown(() => values().take(NaN)), thrown(() => values().drop(-1)), values().take(Infinity).toArray()];`,
    value: ['RangeError', 'RangeError', 'RangeError', [1]],
  },
  {
    name: 'Iterator.prototype.take: closes the underlying iterator once it has taken enough',
    program: `const [iterator, state] = closing();
return [Iterator.from(iterator).take(2).toArray(), state.closed];`,
    value: [[1, 1], true],
  },
  {
    name: 'Iterator.prototype.flatMap: a string from the mapper is a TypeError',
    program: "return thrown(() => [1].values().flatMap(() => 'ab').toArray());",
    value: 'TypeError',
  },
  {
    name: 'Iterator.prototype.reduce: with and without an initial value, on empty input',
    program: `return [[1, 2, 3].values().reduce((a, b) => a + b), [].values().reduce((a, b) => a + b, 7), thrown(() => [].values().reduce((a, b) => a + b))];`,
    value: [6, 7, 'TypeError'],
  },
  {
    name: 'Iterator.prototype.find, some and every: stop early and close the iterator',
    program: `const found = closing(5);
const some = closing(5);
const every = closing(5);
return [Iterator.from(found[0]).find((x) => x === 5), found[1].closed, Iterator.from(some[0]).some((x) => x > 1), some[1].closed,
  Iterator.from(every[0]).every((x) => x < 1), every[1].closed];`,
    value: [5, true, true, true, false, true],
  },
  {
    name: 'Iterator.prototype.forEach: returns undefined after every value',
    program:
      'let sum = 0;\nconst result = [1, 2].values().forEach((x) => { sum += x; });\nreturn [result === undefined, sum];',
    value: [true, 3],
  },
  {
    name: 'Iterator helpers: a non-callable callback is a TypeError',
    program:
      "const values = () => [1].values();\nreturn ['map', 'filter', 'flatMap', 'forEach', 'some', 'every', 'find', 'reduce'].map((method) => thrown(() => values()[method](1)));",
    value: ['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError'],
  },
  {
    name: 'Iterator.from: wraps an object with next, and forwards return',
    program: `const [iterator, state] = closing(3);
const wrapped = Iterator.from({ next: () => iterator.next(), return: () => iterator.return() });
const first = wrapped.next().value;
wrapped.return();
return [first, state.closed, wrapped instanceof Iterator];`,
    value: [3, true, true],
  },
  // RegExp.escape
  {
    name: 'RegExp.escape: syntax characters, an initial letter or digit, and whitespace',
    program:
      "return [RegExp.escape('a.b*c'), RegExp.escape('1+1=2'), RegExp.escape('_x y'), RegExp.escape('(a|b)'), new RegExp(RegExp.escape('.*')).test('x.*')];",
    value: ['\\x61\\.b\\*c', '\\x31\\+1\\x3d2', '_x\\x20y', '\\(a\\|b\\)', true],
  },
  {
    name: 'RegExp.escape: a value other than a string is a TypeError',
    program: 'return [thrown(() => RegExp.escape(1)), thrown(() => RegExp.escape())];',
    value: ['TypeError', 'TypeError'],
  },
  // Float16
  {
    name: 'Math.f16round: rounds to the nearest half-precision value',
    program:
      'return [Math.f16round(5.5), Math.f16round(5.05), String(Math.f16round(65520)), Object.is(Math.f16round(-0), -0), String(Math.f16round(NaN))];',
    value: [5.5, 5.05078125, 'Infinity', true, 'NaN'],
  },
  {
    name: 'DataView.prototype.setFloat16 and getFloat16: half-precision, big-endian by default',
    program: `const view = new DataView(new ArrayBuffer(4));
view.setFloat16(0, 1.5);
view.setFloat16(2, 1.5, true);
return [view.getFloat16(0), view.getUint16(0), view.getUint16(2, true), view.getFloat16(2, true)];`,
    value: [1.5, 15872, 15872, 1.5],
  },
];
