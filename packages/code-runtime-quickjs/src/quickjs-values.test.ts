import { afterAll, describe, expect, it } from 'vitest';
import { createQuickJsCodeRuntime } from './index.js';

// The guest encoder that checks every value crossing the boundary, fed the shapes that break such checks.
const runtime = createQuickJsCodeRuntime({ poolSize: 1 });
afterAll(() => runtime.dispose());

// [what, the value, its message as the returned value, its message as the one argument of a call]
const hostile: [string, string, string, string][] = [
  ['a BigInt member', '({ n: 1n })', '$.n is a BigInt', '$.n is a BigInt'],
  ['Infinity', '[1, Infinity]', '$[1] is Infinity', '$[0][1] is Infinity'],
  [
    'a Map with an object key',
    '({ m: new Map([[{}, 1]]) })',
    '$.m is a Map with an object as a key',
    '$.m is a Map with an object as a key',
  ],
  [
    'a Map with the keys 1 and "1"',
    '({ m: new Map([[1, 1], ["1", 2]]) })',
    '$.m is a Map with two keys that are both "1" as JSON (number and string)',
    '$.m is a Map with two keys that are both "1" as JSON (number and string)',
  ],
  [
    'a Map that holds itself',
    '(() => { const m = new Map(); m.set("self", m); return { m }; })()',
    '$.m.self is a cycle back to $.m',
    '$.m.self is a cycle back to $.m',
  ],
  [
    'a generator that throws',
    '({ rows: (function* () { yield 1; throw new Error("disk gone"); })() })',
    '$.rows is an iterator that threw Error: disk gone while it was read',
    '$.rows is an iterator that threw Error: disk gone while it was read',
  ],
  [
    'a Proxy of a Map',
    '({ odd: new Proxy(new Map([["a", 1]]), {}) })',
    '$.odd is an iterator that threw TypeError',
    '$.odd is an iterator that threw TypeError',
  ],
  ['an invalid Date', '({ when: new Date(NaN) })', '$.when is an invalid Date', '$.when is an invalid Date'],
  ['a typed array', '({ bytes: new Uint8Array(2) })', '$.bytes is a Uint8Array', '$.bytes is a Uint8Array'],
  ['a function member', '({ items: [1], format: (n) => n * 2 })', '$.format is a function', '$.format is a function'],
  ['a function in an array', '[1, () => 2]', '$[1] is a function', '$[0][1] is a function'],
  [
    'a symbol deep inside',
    '({ a: [{ "b c": Symbol("s") }] })',
    '$.a[0]["b c"] is a symbol',
    '$.a[0]["b c"] is a symbol',
  ],
  [
    'a Proxy whose prototype trap throws',
    '({ p: new Proxy({}, { getPrototypeOf() { throw new Error("no"); } }) })',
    '$.p has a prototype that cannot be read',
    '$.p has a prototype that cannot be read',
  ],
  [
    'a prototype whose constructor getter throws',
    '({ o: Object.create(Object.create(null, { constructor: { get() { throw 1; } } })) })',
    '$.o is an object (not a plain object',
    '$.o is an object (not a plain object',
  ],
  [
    'a cycle',
    '(() => { const a = {}; a.self = a; return a; })()',
    '$.self is a cycle back to $',
    '$.self is a cycle back to $',
  ],
  [
    'a cycle deep inside an array',
    '(() => { const a = { list: [{ n: 1 }] }; a.list[0].up = a.list; return a; })()',
    '$.list[0].up is a cycle back to $.list,',
    '$.list[0].up is a cycle back to $.list,',
  ],
  [
    '600 levels of arrays',
    '(() => { let v = []; for (let i = 0; i < 600; i += 1) v = [v]; return v; })()',
    'nested more than 512 levels deep',
    'nested more than 512 levels deep',
  ],
];

describe('QuickJS values at the boundary', () => {
  it.each(hostile)(
    'refuses %s as a returned value and as a host-call argument',
    async (_name, value, returnedMessage, argumentMessage) => {
      const returned = await runtime.run({ program: `return ${value};` });
      expect(returned.ok).toBe(false);
      if (!returned.ok) {
        expect(returned.failure.kind).toBe('invalid-output');
        expect(returned.failure.message).toContain(returnedMessage);
      }
      let invoked = 0;
      const passed = await runtime.run({
        program: `try { await tools.echo(${value}); return 'sent'; } catch (error) { return error.name + ': ' + error.message; }`,
        bindings: {
          tools: {
            echo: async () => {
              invoked += 1;
              return null;
            },
          },
        },
      });
      expect(invoked).toBe(0);
      expect(passed.ok && String(passed.value)).toContain(argumentMessage);
    },
  );

  it('still refuses, without a path, when the program has tampered with the arrays the encoder lists the path in', async () => {
    for (const tamper of [
      "Array.prototype.toJSON = function () { return 'tampered'; };",
      "Object.defineProperty(Array.prototype, '1', { set() {}, configurable: true });",
    ]) {
      const result = await runtime.run({ program: `${tamper}\nreturn { list: { s: Symbol('s') } };` });
      expect(result.ok === false && result.failure).toMatchObject({
        kind: 'invalid-output',
        message: expect.stringContaining('a member of the value is a symbol, which JSON cannot carry'),
      });
    }
  });

  it('ends a returned function as invalid-output and a revoked Proxy as the TypeError JSON.stringify throws', async () => {
    const fn = await runtime.run({ program: 'return () => 1;' });
    expect(fn.ok === false && fn.failure).toMatchObject({
      kind: 'invalid-output',
      message: expect.stringContaining('the value is a function'),
    });
    const revoked = await runtime.run({
      program: 'const p = Proxy.revocable({}, {}); p.revoke(); return { p: p.proxy };',
    });
    expect(revoked.ok === false && revoked.failure).toMatchObject({
      kind: 'exception',
      message: expect.stringMatching(/revoked/),
    });
  });

  it('throws on what a getter or toJSON throws, even one worded as the engine’s cycle error, and runs each getter once', async () => {
    const getter = await runtime.run({
      program: `let reads = 0;
const value = { get a() { reads += 1; return { b: 1 }; } };
const sent = await tools.echo(value);
const errors = [];
for (const make of [() => new RangeError('circular reference'), () => new TypeError('circular reference')]) {
  try { await tools.echo({ get bad() { throw make(); } }); } catch (error) { errors.push(error.name + ': ' + error.message); }
}
return { reads, sent, errors };`,
      bindings: { tools: { echo: async (input) => input } },
    });
    expect(getter).toMatchObject({
      ok: true,
      value: {
        reads: 1,
        sent: { a: { b: 1 } },
        errors: ['RangeError: circular reference', 'TypeError: circular reference'],
      },
    });
    // Returned, the getter's TypeError is the program's exception, not a cycle in its value.
    const returned = await runtime.run({
      program: 'return { get bad() { throw new TypeError("circular reference"); } };',
    });
    expect(returned.ok === false && returned.failure).toMatchObject({
      kind: 'exception',
      message: expect.stringContaining('circular reference'),
    });
    const thrown = await runtime.run({ program: 'return { toJSON() { throw new TypeError("toJSON refused"); } };' });
    expect(thrown.ok).toBe(false);
    if (!thrown.ok) {
      expect(thrown.failure.kind).toBe('exception');
      expect(thrown.failure.message).toContain('toJSON refused');
    }
  });

  it('passes null-prototype objects, nulls, 500 levels of nesting and an object shared by two branches', async () => {
    const result = await runtime.run({
      program: `let deep = 1; for (let i = 0; i < 500; i += 1) deep = [deep];
const bare = Object.create(null); bare.x = null;
const shared = { n: 1 };
const twice = { a: shared, b: [shared, { c: shared }] };
return { bare, deep: JSON.stringify(await tools.echo(deep)).length, twice: await tools.echo(twice) };`,
      bindings: { tools: { echo: async (input) => input } },
    });
    expect(result).toMatchObject({
      ok: true,
      value: { bare: { x: null }, deep: 1001, twice: { a: { n: 1 }, b: [{ n: 1 }, { c: { n: 1 } }] } },
    });
  });

  it('converts by the boundary table in the result and in host-call arguments', async () => {
    const received: unknown[] = [];
    const program = `
      function* squares() { for (let n = 0; n < 3; n += 1) yield n * n; }
      const value = {
        counts: new Map([['bug', 2], [7, 1]]),
        tags: new Set(['b', 'a']),
        numbers: new Set([10, 9]),
        squares: squares(),
        keys: new Map([['x', 1]]).keys(),
        settled: await Promise.allSettled([Promise.reject(new TypeError('bad input'))]),
      };
      const echoed = await tools.echo(value);
      return { echoed, again: value };`;
    const result = await runtime.run({
      program,
      bindings: {
        tools: {
          echo: async (input) => {
            received.push(input);
            return input;
          },
        },
      },
    });
    const expected = {
      counts: { bug: 2, '7': 1 },
      tags: ['a', 'b'],
      numbers: [9, 10],
      squares: [0, 1, 4],
      keys: ['x'],
      settled: [{ status: 'rejected', reason: { error: 'TypeError: bad input' } }],
    };
    expect(received).toEqual([expected]);
    expect(result).toMatchObject({
      ok: true,
      value: { echoed: expected, again: { ...expected, squares: [], keys: [] } },
    });
  });

  it('stops an endless generator and a Map of 100,000 entries at the budget', async () => {
    const small = createQuickJsCodeRuntime({
      poolSize: 1,
      valueBytes: 10_000,
      hostCallBytes: 10_000,
      wallTimeMs: 60_000,
    });
    try {
      const endless = 'function* endless() { for (let n = 0; ; n += 1) yield { n }; }';
      const returned = await small.run({ program: `${endless}\nreturn { items: endless() };` });
      expect(!returned.ok && returned.failure.kind).toBe('output-limit');
      // 100,000 entries: QuickJS's default memory limit does not hold a million (the worker-thread test has one).
      const big = await small.run({
        program: 'const big = new Map(); for (let n = 0; n < 100_000; n += 1) big.set("k" + n, n);\nreturn { big };',
      });
      expect(!big.ok && big.failure.kind).toBe('output-limit');
      const sent = await small.run({
        program: `${endless}\ntry { await tools.echo({ items: endless() }); } catch (error) { return error.message; }`,
        bindings: { tools: { echo: async (input) => input } },
      });
      expect(sent).toMatchObject({ ok: true, value: expect.stringContaining('larger than the 10000-byte budget') });
    } finally {
      await small.dispose();
    }
  });

  it('reads an Error from data properties only, cutting a huge message', async () => {
    const result = await runtime.run({
      program:
        'const error = new Error("kept"); Object.defineProperty(error, "name", { get() { throw new Error("getter ran"); } });\nreturn [error, new Error("m".repeat(100_000))];',
    });
    expect(result.ok && result.value).toEqual([{ error: 'Error: kept' }, { error: `Error: ${'m'.repeat(10_000)}…` }]);
  });
});
