import { createRequire } from 'node:module';
import type * as TypeScriptModule from 'typescript';
import { describe, expect, it } from 'vitest';
import { modelColumn } from './program-edits.js';
import { type Normalised, normaliseProgram } from './program-normalise.js';

const ts = createRequire(import.meta.url)('typescript') as typeof TypeScriptModule;
const lines = (...text: string[]): string => text.join('\n');
const normalise = (source: string): Normalised => normaliseProgram(ts, source);

function program(source: string): Extract<Normalised, { kind: 'program' }> {
  const result = normalise(source);
  if (result.kind !== 'program') throw new Error(`refused: ${result.message}`);
  return result;
}

function refusal(source: string): Extract<Normalised, { kind: 'refused' }> {
  const result = normalise(source);
  if (result.kind !== 'refused') throw new Error(`not refused: ${JSON.stringify(result)}`);
  return result;
}

describe('normaliseProgram', () => {
  it('leaves a program with a top-level return as it was written', () => {
    const source = lines('const a = await tools.x();', 'if (a) return a;', 'console.log(a);');
    expect(program(source)).toEqual({ kind: 'program', body: source, epilogue: '', insertions: [] });
  });

  it('blanks a markdown fence around the program, keeping every line and column', () => {
    for (const opening of ['```ts', '```typescript', '```js', '```', '  ```TypeScript  ', '~~~javascript']) {
      const closing = opening.trim().startsWith('~') ? '~~~' : '```';
      const result = program(lines(opening, 'const a = 1;', 'return a;', closing, ''));
      expect(result.body.split('\n')).toEqual([' '.repeat(opening.length), 'const a = 1;', 'return a;', '   ', '']);
    }
  });

  it('blanks an opening fence whose closing fence was cut off', () => {
    expect(program(lines('```ts', 'return 1;')).body).toBe(lines('     ', 'return 1;'));
  });

  it('refuses a fence that names another language', () => {
    expect(refusal(lines('', '```python', 'print(1)', '```'))).toMatchObject({
      line: 2,
      message: expect.stringContaining('fenced as python code'),
    });
  });

  it('calls a program that is one async arrow function and returns its value', () => {
    const result = program(lines('async () => {', '  return await tools.x();', '};'));
    expect(result.body).toBe(lines('return (async () => {', '  return await tools.x();', '})();'));
    expect(result.epilogue).toBe('');
  });

  it('calls a parenthesised function expression', () => {
    expect(program('(async function run() { return 1 })').body).toBe('return ((async function run() { return 1 }))()');
  });

  it('calls the one function a program declares and never calls', () => {
    const source = lines(
      'const cities = ["Oslo"];',
      'interface Row { id: number }',
      'async function main() {',
      '  return cities;',
      '}',
    );
    const result = program(source);
    expect(result.body).toBe(source);
    expect(result.epilogue).toBe('return main();');
  });

  it('calls a never-called arrow function bound to a constant, and ignores its calls of itself', () => {
    const result = program(
      lines('const main = async (depth = 0) => {', '  return depth > 2 ? depth : main(depth + 1);', '};'),
    );
    expect(result.epilogue).toBe('return main();');
  });

  it('calls only the function nobody calls, not its helpers', () => {
    const result = program(lines('function helper() { return 1 }', 'async function main() { return helper() }'));
    expect(result.epilogue).toBe('return main();');
  });

  it('refuses two functions that nobody calls, naming both', () => {
    const result = refusal(lines('async function main() {}', '', 'async function run() {}'));
    expect(result.message).toContain('`main` (line 1) and `run` (line 3)');
    expect(result.message).toContain('`return await main()` or `return await run()`');
  });

  it('leaves a function alone when the program does other work at the top level', () => {
    const source = lines('async function main() { return 1 }', 'for (const x of [1]) console.log(x);');
    expect(program(source)).toMatchObject({ body: source, epilogue: '' });
  });

  it('refuses to call a function that needs arguments, naming them', () => {
    expect(refusal('async ({ tools }, limit: number) => 1').message).toContain('takes `{ tools }`, `limit`');
    expect(refusal('function fib(n: number): number { return n < 2 ? n : fib(n - 1) + fib(n - 2) }').message).toContain(
      '`fib` takes `n`',
    );
    expect(program('async (limit = 3, ...rest: number[]) => limit').body).toBe(
      'return (async (limit = 3, ...rest: number[]) => limit)()',
    );
  });

  it('returns the value of the last expression statement', () => {
    const result = program(lines('const report = { ok: true };', 'report;', '// done'));
    expect(result.body).toBe(lines('const report = { ok: true };', 'return (report);', '// done'));
    expect(program('await main()').body).toBe('return (await main())');
  });

  it('calls a declared function named by the last expression', () => {
    expect(program(lines('async function main() { return 1 }', 'main')).body).toBe(
      lines('async function main() { return 1 }', 'return (main)()'),
    );
  });

  it('skips type declarations when it looks for the last statement', () => {
    expect(program(lines('total', 'type Total = number;')).body).toBe(lines('return (total)', 'type Total = number;'));
  });

  it('unwraps export default of a value or a function', () => {
    expect(program('export default { answer: 42 };')).toMatchObject({
      body: '               const sluice$default = ({ answer: 42 });',
      epilogue: 'return sluice$default;',
    });
    expect(program('export default async () => 1;').epilogue).toBe('return sluice$default();');
    expect(program('export default async function main() { return 2 }')).toMatchObject({
      body: '               async function main() { return 2 }',
      epilogue: 'return main();',
    });
    expect(program('export default function () { return 3 }').epilogue).toBe('return sluice$default();');
  });

  it('refuses export default next to a top-level return, and two export defaults', () => {
    expect(refusal(lines('export default 1;', 'return 2;')).message).toContain('`return` at line 2');
    expect(refusal(lines('export default 1;', 'export default 2;'))).toMatchObject({ line: 2 });
  });

  it('drops the export of named exports and type-only imports, which mean nothing here', () => {
    const result = program(lines("import type { Row } from './rows';", 'export const rows: Row[] = [];', 'rows'));
    expect(result.body.split('\n')).toEqual([' '.repeat(34), '       const rows: Row[] = [];', 'return (rows)']);
  });

  it('refuses imports of every kind, saying what to use instead', () => {
    const cases: Array<[string, string, number, number]> = [
      ["import fs from 'node:fs';\nreturn 1;", "`import … from 'node:fs'`", 1, 1],
      ["const m = await import('lodash');", "`import('lodash')`", 1, 17],
      ["import 'polyfill';", "`import … from 'polyfill'`", 1, 1],
      ["export * from './x';", "`export … from './x'`", 1, 1],
      ['const here = import.meta.url;', '`import.meta`', 1, 14],
      ["import x = require('x');", "`import … = require('x')`", 1, 1],
      ["const { readFileSync } = require('node:fs');", "`require('node:fs')`", 1, 26],
    ];
    for (const [source, written, line, column] of cases) {
      const result = refusal(source);
      expect(result).toMatchObject({ line, column });
      expect(result.message).toContain(`Imports are not available: ${written}`);
      expect(result.message).toContain('host functions this run grants');
    }
  });

  it('records how inserted text moves the model columns, and maps them back', () => {
    const result = program(lines('const x = 1;', '  x + missing()'));
    expect(result.insertions).toEqual([
      { line: 2, column: 2, width: 8 },
      { line: 2, column: 15, width: 1 },
    ]);
    const generated = result.body.split('\n')[1]!;
    expect(modelColumn(result.insertions, 2, generated.indexOf('missing'))).toBe(6);
    expect(modelColumn(result.insertions, 2, generated.indexOf('return'))).toBe(2);
    expect(modelColumn(result.insertions, 1, 4)).toBe(4);
  });

  it('says what a program with a syntax error left open at its end', () => {
    expect(program(lines('if (a) {', '  b();', '')).unclosed).toEqual({
      what: 'the block or object `{`',
      line: 1,
      column: 8,
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the model's program text
    expect(program(lines('const s = 1;', 'const t = `a ${s}', 'return t;')).unclosed).toEqual({
      what: 'the template literal',
      line: 2,
      column: 11,
    });
    expect(program(lines('return 1;', '  /* note', 'more')).unclosed).toEqual({
      what: 'the comment `/*`',
      line: 2,
      column: 3,
    });
    expect(program(lines('const list = [1,', '  2')).unclosed).toMatchObject({ what: 'the bracket `[`', line: 1 });
    expect(program(lines('g(1, h(2,', ' 3)')).unclosed).toEqual({ what: 'the parenthesis `(`', line: 1, column: 2 });
    expect(program(lines('const x = (1 +', ' 2')).unclosed).toEqual({
      what: 'the parenthesis `(`',
      line: 1,
      column: 11,
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the model's program text
    expect(program('const t = `${a} and ${ b').unclosed).toEqual({
      what: 'the template substitution `${`',
      line: 1,
      column: 21,
    });
    expect(program('broken = = 1').unclosed).toBeUndefined();
  });

  it('refuses a program too deep for the parser, without a position, rather than leave it to esbuild', () => {
    const deep = refusal(`return ${'['.repeat(20_000)}${']'.repeat(20_000)};`);
    expect(deep.message).toContain('nests more than 256 levels deep');
    expect(deep).not.toHaveProperty('line');
  });
});
