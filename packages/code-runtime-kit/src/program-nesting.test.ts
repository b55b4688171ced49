import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { compileInThread } from './compile-thread.js';
import type { CompileResult } from './program-compile.js';
import { maxNesting } from './program-nesting.js';

// Through the compile thread, where programs are prepared (its stack decides where the parser
// gives up). Before the limit, these went to esbuild, which took minutes or ran out of memory.

function refusal(result: CompileResult) {
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error('compiled');
  expect(result.failure).toMatchObject({ kind: 'exception', name: 'SyntaxError' });
  expect(result.failure.message).toContain(`nests more than ${maxNesting} levels deep`);
  return result.failure;
}

async function value(source: string): Promise<unknown> {
  const result = await compileInThread(source);
  if (!result.ok) throw new Error(`not compiled: ${result.failure.message}`);
  return await (new Script(result.program.code).runInNewContext({}) as Promise<unknown>);
}

describe('the nesting limit', () => {
  it('refuses 40 KB of nested blocks, too deep for the parser, without a position', async () => {
    const failure = refusal(await compileInThread(`${'{'.repeat(20_000)}${'}'.repeat(20_000)}`));
    expect(failure).not.toHaveProperty('line');
  }, 30_000);

  it('refuses nested blocks past the limit at the first block past it', async () => {
    const failure = refusal(await compileInThread(`${'{'.repeat(300)}${'}'.repeat(300)}`));
    expect(failure).toMatchObject({ line: 1, column: maxNesting + 1 });
  }, 30_000);

  it('refuses nested ifs, functions and arrows', async () => {
    refusal(await compileInThread(`const x = 1;\n${'if (x) {\n'.repeat(4_500)}${'}\n'.repeat(4_500)}`));
    refusal(await compileInThread(`${'function f() {'.repeat(3_000)}${'}'.repeat(3_000)}\nreturn 1;`));
    refusal(await compileInThread(`const f = ${'a=>'.repeat(8_000)}1;\nreturn 1;`));
  }, 30_000);

  it('refuses nested arrows that esbuild would have to strip (an enum beside them)', async () => {
    const failure = refusal(await compileInThread(`enum E { A }\nconst f = ${'a=>'.repeat(2_000)}E.A;\nreturn 1;`));
    expect(failure).toMatchObject({ line: 2, column: 10 + 3 * maxNesting + 1 });
  }, 30_000);

  it('refuses nested parentheses, arrays, calls and templates', async () => {
    refusal(await compileInThread(`return ${'('.repeat(20_000)}1${')'.repeat(20_000)};`));
    refusal(await compileInThread(`return ${'['.repeat(20_000)}${']'.repeat(20_000)};`));
    refusal(await compileInThread(`const f = (v) => v;\nreturn ${'f('.repeat(5_000)}1${')'.repeat(5_000)};`));
    refusal(await compileInThread(`return ${'`${'.repeat(5_000)}1${'}`'.repeat(5_000)};`));
  }, 30_000);

  it('runs programs nested up to the limit', async () => {
    expect(await value(`${'{'.repeat(maxNesting)}${'}'.repeat(maxNesting)}\nreturn 'blocks';`)).toBe('blocks');
    const arrows = `enum E { A = 7 }\nconst f = ${'a=>'.repeat(maxNesting - 1)}E.A;\nreturn f`;
    expect(typeof (await value(arrows))).toBe('function');
  }, 30_000);

  it('does not count chains that do not nest in the text: else if, +, ?:, method calls', async () => {
    const branches = Array.from({ length: 600 }, (_, index) => `if (n === ${index}) { r = ${index}; }`).join(' else ');
    expect(await value(`const n = 599;\nlet r = -1;\n${branches}\nreturn r;`)).toBe(599);
    expect(await value(`const x = 1;\nreturn ${'x + '.repeat(2_000)}0;`)).toBe(2_000);
    expect(await value(`const x = 0;\nreturn ${'x ? 1 : '.repeat(1_000)}2;`)).toBe(2);
    expect(await value(`return 'a'${'.toUpperCase()'.repeat(600)};`)).toBe('A');
  }, 30_000);
});
