import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { afterAll, describe, expect, it } from 'vitest';
import { createQuickJsCodeRuntime } from './index.js';

// console as the worker-thread provider (and Node) prints it: one line a call, two levels deep,
// printf directives in a first string argument.
const runtime = createQuickJsCodeRuntime({ poolSize: 1 });
afterAll(() => runtime.dispose());

async function logged(program: string): Promise<string[]> {
  const result = await runtime.run({ program });
  expect(result.ok, JSON.stringify(result)).toBe(true);
  return result.logs.map((line) => line.text);
}

describe('QuickJS console', () => {
  it('reads printf directives in a first string argument', async () => {
    expect(
      await logged(`console.log('%s has %d items (%i%%) %j %o', 'cart', 3, 42.7, { a: [1] }, 'q', 'extra', { b: 2 });
console.log('%c styled', 'color: red', '%s', null);
console.log('100%', 'done');
console.log('%s and %s', 'one');`),
    ).toEqual([`cart has 3 items (42%) {"a":[1]} 'q' extra { b: 2 }`, ' styled %s null', '100% done', 'one and %s']);
  });

  it('prints a call on one line, two levels deep, as the worker-thread provider does', async () => {
    expect(
      await logged(`console.log('ids:', [101, 102, 103, 104, 105, 106, 107, 108]);
console.log({ a: { b: { c: { d: 1 } } } }, null, undefined, 5n);`),
    ).toEqual(['ids: [ 101, 102, 103, 104, 105, 106, 107, 108 ]', '{ a: { b: { c: [Object] } } } null undefined 5n']);
  });

  it('prints every kind of value as the worker-thread provider does', async () => {
    const program = `class Point { constructor(public x: number, public y: number) {} }
const tree: any = { name: 'root', kids: [] };
tree.kids.push({ parent: tree });
tree.self = tree;
const accessor = { get total() { throw new Error('getters are not run'); }, set total(_v: number) {} };
const sparse = [1, , 3];
(sparse as any).label = 'x';
console.log(new Map([['a', 1], ['b', { x: [1, 2] }]]), new Set([1, 'two']), new Map(), new WeakMap());
console.log(tree, new Point(1, 2), Object.create(null), new (class {})());
console.log({ d: new Date(0), bad: new Date(NaN), re: /a+/g, u: undefined, n: null, big: 10n, sym: Symbol('q'), neg: -0 });
console.log([function named() {}, () => 1, async function later() {}, class Shape {}, class {}], accessor, sparse);
console.log(new Uint8Array([1, 2, 3]), new Float64Array(2), 'it\\'s', ['it\\'s', 'say "hi"'], Promise.resolve(1));
console.log(Array.from({ length: 120 }, (_, i) => i), { a: { b: { c: { d: 1 } } }, m: [[[[1]]]] });
console.log('%s has %d items (%i%%) %j %o', 'cart', 3, 42.7, { a: [1] }, 'q', 'extra', new Map([[1, 2]]));
console.log(Object.fromEntries(Array.from({ length: 105 }, (_, i) => ['k' + i, i])));
console.log(new Proxy({ visible: 1 }, {}), { 'needs quotes': 1, $ok: 2, _also: 3, '0': 4 });
console.info(-0, 0, NaN, true, null, undefined, 'plain');
console.assert(false, 'checked %s', 'this', { and: 'that' });
return 1;`;
    const other = createWorkerThreadCodeRuntime();
    try {
      const expected = await other.run({ program });
      expect(expected.ok, JSON.stringify(expected)).toBe(true);
      expect(await logged(program)).toEqual(expected.logs.map((line) => line.text));
    } finally {
      await other.dispose();
    }
  });

  it('never runs a getter it prints, and a trap that never returns ends the run at its deadline', async () => {
    const quiet = await runtime.run({
      program: `let reads = 0;
const watched = { get secret() { reads += 1; return 'x'; } };
console.log(watched, [watched], new Map([['k', watched]]));
return reads;`,
    });
    expect(quiet.ok && quiet.value).toBe(0);
    expect(quiet.logs.map((line) => line.text)).toEqual([
      "{ secret: [Getter] } [ { secret: [Getter] } ] Map(1) { 'k' => { secret: [Getter] } }",
    ]);
    // The deadline must also hold the next run's print, which may compile the inspector first: work
    // that takes several hundred ms on a loaded machine, so 300 ms ended it as a timeout too.
    const endless = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 2_000 });
    try {
      const stuck = await endless.run({
        program: `console.log('before');
console.log(new Proxy({}, { ownKeys() { for (;;) {} } }));
return 'printed';`,
      });
      expect(stuck.ok ? 'ok' : stuck.failure.kind).toBe('timeout');
      expect(stuck.logs.map((line) => line.text)).toEqual(['before']);
      const next = await endless.run({ program: 'console.log(new Set([1])); return 2;' });
      expect(next.ok && next.value).toBe(2);
      expect(next.logs.map((line) => line.text)).toEqual(['Set(1) { 1 }']);
    } finally {
      await endless.dispose();
    }
  });

  it("prints an error with its stack at the program's own positions, without the engine's frames", async () => {
    expect(
      await logged(`function parse(text: string) {
  return JSON.parse(text);
}
try {
  parse('{bad');
} catch (err) {
  console.error(err);
}
class NotFound extends Error {
  code = 404;
}
console.error(new NotFound('missing'));`),
    ).toEqual([
      "SyntaxError: Expected property name or '}' in JSON at position 1 (line 1 column 2)",
      '    at parse (program.ts:2:21)',
      '    at <anonymous> (program.ts:5:3)',
      'Error: missing',
      '    at NotFound (program.ts:11:1)',
      '    at <anonymous> (program.ts:12:19)',
    ]);
  });
});
