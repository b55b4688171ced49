import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';

const runtime = createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

describe('worker-thread JSON at the boundary', () => {
  it('leaves out undefined properties of a host-call argument, as JSON.stringify does', async () => {
    const received: unknown[] = [];
    const list: HostFunction = async (input) => {
      received.push(input);
      return { items: [] };
    };
    const result = await runtime.run({
      program: `
        let cursor: string | undefined;
        await tools.list({ cursor, limit: 10, filter: { tag: undefined }, tags: [undefined, 'a'] });
        return 'done';`,
      bindings: { tools: { list } },
    });
    expect(result).toMatchObject({ ok: true, value: 'done' });
    expect(received).toEqual([{ limit: 10, filter: {}, tags: [null, 'a'] }]);
    expect(Object.hasOwn(received[0] as object, 'cursor')).toBe(false);
  });

  it('returns a Date as its ISO string, a URL as its href and a class instance through its toJSON', async () => {
    const result = await runtime.run({
      program: `
        class Money { constructor(readonly cents: number) {} toJSON() { return { amount: this.cents / 100 }; } }
        return { fetchedAt: new Date(Date.UTC(2026, 10, 30, 12)), price: new Money(1250), note: undefined, link: new URL('https://example.com/a?b=1') };`,
    });
    expect(result).toMatchObject({
      ok: true,
      value: { fetchedAt: '2026-11-30T12:00:00.000Z', price: { amount: 12.5 }, link: 'https://example.com/a?b=1' },
    });
    expect(result.ok && Object.keys(result.value as object)).toEqual(['fetchedAt', 'price', 'link']);
  });

  it('ends the run as the exception a returned value’s toJSON threw', async () => {
    const result = await runtime.run({
      program: "return { item: { toJSON() { throw new RangeError('cannot convert'); } } };",
    });
    expect(!result.ok && result.failure).toMatchObject({ kind: 'exception' });
    expect(!result.ok && result.failure.message).toContain('cannot convert');
  });

  it('rejects the call whose argument’s toJSON threw, without reaching the host', async () => {
    let calls = 0;
    const echo: HostFunction = async (input) => {
      calls += 1;
      return input;
    };
    const result = await runtime.run({
      program: `
        try {
          await tools.echo({ item: { toJSON() { throw new Error('bad item'); } } });
          return 'sent';
        } catch (error) {
          return (error as Error).message;
        }`,
      bindings: { tools: { echo } },
    });
    expect(result).toMatchObject({ ok: true, value: 'bad item' });
    expect(calls).toBe(0);
  });

  it('still refuses what JSON cannot carry, with the path', async () => {
    const cases: Array<[string, string]> = [
      ['return { ratio: 0 / 0 };', '$.ratio is NaN'],
      ['return { id: 10n };', '$.id is a BigInt'],
      ['return { index: new Map([[{}, 2]]) };', '$.index is a Map with an object as a key'],
      ["return { index: new Map<unknown, number>([[1, 2], ['1', 3]]) };", '$.index is a Map with two keys'],
      ['return { when: new Date(Number.NaN) };', '$.when is an invalid Date'],
      ['return { bytes: new Uint8Array(2) };', '$.bytes is a Uint8Array'],
      ['class Money { amount = 1 }\nreturn [new Money()];', '$[0] is a Money'],
      ['return { call() {} };', '$.call is a function'],
      ['const loop: any = { name: 1 }; loop.self = loop;\nreturn loop;', '$.self is a cycle'],
    ];
    for (const [program, message] of cases) {
      const result = await runtime.run({ program });
      expect(!result.ok && result.failure.kind).toBe('invalid-output');
      expect(!result.ok && result.failure.message).toContain(message);
    }
  });

  it('converts by the boundary table in the result and in host-call arguments', async () => {
    const received: unknown[] = [];
    const echo: HostFunction = async (input) => {
      received.push(input);
      return input;
    };
    const program = `
      function* squares() { for (let n = 0; n < 3; n += 1) yield n * n; }
      const value = {
        counts: new Map<unknown, number>([['bug', 2], [7, 1]]),
        tags: new Set(['b', 'a']),
        numbers: new Set([10, 9]),
        squares: squares(),
        keys: new Map([['x', 1]]).keys(),
        settled: await Promise.allSettled([Promise.reject(new TypeError('bad input'))]),
      };
      const echoed = await tools.echo(value);
      return { echoed, again: value };`;
    const result = await runtime.run({ program, bindings: { tools: { echo } } });
    const expected = {
      counts: { bug: 2, '7': 1 },
      tags: ['a', 'b'],
      numbers: [9, 10],
      squares: [0, 1, 4],
      keys: ['x'],
      settled: [{ status: 'rejected', reason: { error: 'TypeError: bad input' } }],
    };
    expect(received).toEqual([expected]);
    // The generators were spent by the call: the result holds what they yielded then, as Python does not re-read.
    expect(result).toMatchObject({
      ok: true,
      value: { echoed: expected, again: { ...expected, squares: [], keys: [] } },
    });
  });

  it('stops an endless generator at the budget, in the result and in an argument', async () => {
    let calls = 0;
    const echo: HostFunction = async (input) => {
      calls += 1;
      return input;
    };
    const small = createWorkerThreadCodeRuntime({ poolSize: 1, valueBytes: 10_000, hostCallBytes: 10_000 });
    try {
      const endless = 'function* endless() { for (let n = 0; ; n += 1) yield { n, text: "x".repeat(100) }; }';
      const returned = await small.run({
        program: `${endless}
return { items: endless() };`,
      });
      expect(!returned.ok && returned.failure.kind).toBe('output-limit');
      const sent = await small.run({
        program: `${endless}
try { await tools.echo({ items: endless() }); } catch (error) { return (error as Error).message; }`,
        bindings: { tools: { echo } },
      });
      expect(sent).toMatchObject({
        ok: true,
        value: expect.stringMatching(/^The call's argument is more than 10000 bytes/),
      });
      expect(calls).toBe(0);
    } finally {
      await small.dispose();
    }
  });

  // One run per shape, each its own case: together they are several seconds of work on a loaded machine.
  const hostileShapes: Array<[string, string, string]> = [
    [
      'function* broken() { yield 1; throw new Error("disk gone"); }\nreturn { rows: broken() };',
      'invalid-output',
      '$.rows is an iterator that threw Error: disk gone while it was read',
    ],
    [
      'const error = new Error("kept"); Object.defineProperty(error, "name", { get() { throw new Error("getter ran"); } });\nreturn [error];',
      'ok',
      '',
    ],
    [
      // 5 bytes an entry at least: 250 000 entries pass the 1 MiB budget before anything is copied.
      'const big = new Map(); for (let n = 0; n < 250_000; n += 1) big.set("k" + n, n);\nreturn { big };',
      'output-limit',
      '',
    ],
    ['const error = new Error("m".repeat(100_000));\nreturn { error };', 'ok', ''],
    [
      'let deep: any = new Set([1]); for (let n = 0; n < 2000; n += 1) deep = new Set([deep]);\nreturn deep;',
      'invalid-output',
      'nested deeper than 512 levels',
    ],
    ['const m: any = new Map(); m.set("self", m);\nreturn { m };', 'invalid-output', '$.m.self is a cycle back to $.m'],
    [
      'return { odd: new Proxy(new Map([["a", 1]]), {}) };',
      'invalid-output',
      '$.odd is an iterator that threw TypeError',
    ],
  ];
  it.each(hostileShapes)(
    'answers a hostile shape with a clear outcome naming the path: %s',
    async (program, kind, message) => {
      const result = await runtime.run({ program });
      expect(result.ok ? 'ok' : result.failure.kind, program).toBe(kind);
      if (!result.ok) expect(result.failure.message).toContain(message);
    },
  );

  it('reads an Error by its data properties only, its message cut to 10 000 characters', async () => {
    const error = await runtime.run({
      program:
        'const error = new Error("kept"); Object.defineProperty(error, "name", { get() { throw new Error("getter ran"); } });\nreturn [error, new Error("m".repeat(100_000))];',
    });
    expect(error.ok && error.value).toEqual([{ error: 'Error: kept' }, { error: `Error: ${'m'.repeat(10_000)}…` }]);
  });
});
