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
      ['return { index: new Map([[1, 2]]) };', '$.index is a Map'],
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
});
