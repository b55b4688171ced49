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
      '    at parse (native)',
      '    at parse (program.ts:2:21)',
      '    at <anonymous> (program.ts:5:3)',
      'Error: missing',
      '    at NotFound (program.ts:11:1)',
      '    at <anonymous> (program.ts:12:19)',
    ]);
  });
});
