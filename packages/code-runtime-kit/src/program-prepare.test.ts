import { Script } from 'node:vm';
import type { ExceptionFailure } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { type CompiledProgram, describeException, mapProgramPositions } from './program-compile.js';
import { prepareProgram } from './program-prepare.js';

const lines = (...text: string[]): string => text.join('\n');

async function compiled(source: string): Promise<CompiledProgram> {
  const result = await prepareProgram(source);
  if (!result.ok) throw new Error(`not compiled: ${result.failure.message}`);
  return result.program;
}

/** Runs a compiled program in a fresh V8 context, as a worker would, and describes what it threw. */
async function thrown(program: CompiledProgram): Promise<ExceptionFailure> {
  try {
    await (new Script(program.code, { filename: 'program.js' }).runInNewContext({}) as Promise<unknown>);
  } catch (error) {
    const { name, message, stack } = error as Error;
    return describeException(program, { name, message, stack });
  }
  throw new Error('the program did not throw');
}

async function value(program: CompiledProgram): Promise<unknown> {
  return await (new Script(program.code, { filename: 'program.js' }).runInNewContext({}) as Promise<unknown>);
}

/** The 1-based column of `text` on the model's 1-based `line` of `source`. */
function columnOf(source: string, line: number, text: string): number {
  const column = source.split('\n')[line - 1]!.indexOf(text);
  if (column < 0) throw new Error(`no ${text} on line ${line}`);
  return column + 1;
}

describe('prepareProgram, types blanked in place', () => {
  it('keeps every line and column of the program, so it needs no source map', async () => {
    const source = lines(
      'interface Row { id: string; score: number }',
      "const rows: Row[] = [{ id: 'a', score: 3 }];",
      'const best = rows.filter((row): boolean => row.score > 2).map((row) => row.id as string);',
      'return best;',
    );
    const program = await compiled(source);
    expect(program.map).toBeUndefined();
    const body = program.code.split('\n').slice(1, 5);
    expect(body.map((line) => line.length)).toEqual(source.split('\n').map((line) => line.length));
    expect(body[2]!.indexOf('.map((row) => row.id')).toBe(source.split('\n')[2]!.indexOf('.map((row) => row.id'));
    expect(await value(program)).toEqual(['a']);
  });

  it('reports a throw after a type annotation on the same line at its own column', async () => {
    const source = lines(
      'const limit: number = 2;',
      "const label: string = 'x'; const over: boolean = limit > 1; if (over) throw new RangeError(label);",
    );
    const program = await compiled(source);
    expect(program.map).toBeUndefined();
    const failure = await thrown(program);
    const column = columnOf(source, 2, 'new RangeError');
    expect(failure).toMatchObject({ name: 'RangeError', line: 2, column });
    expect(failure.stack).toBe(`RangeError: x\n    at program.ts:2:${column}`);
  });

  it('keeps positions in and after a generic that spans lines', async () => {
    const source = lines(
      'function pick<',
      '  T extends { id: string },',
      '>(items: T[], id: string): T {',
      '  const found: T | undefined = items.find((item) => item.id === id);',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the model's program text
      '  if (found === undefined) throw new Error(`no ${id}`);',
      '  return found;',
      '}',
      "return pick<{ id: string }>([], 'x');",
    );
    const program = await compiled(source);
    expect(program.map).toBeUndefined();
    const failure = await thrown(program);
    const throwColumn = columnOf(source, 5, 'new Error');
    const callColumn = columnOf(source, 8, 'pick<');
    expect(failure).toMatchObject({ name: 'Error', line: 5, column: throwColumn });
    expect(failure.stack).toBe(
      `Error: no x\n    at pick (program.ts:5:${throwColumn})\n    at program.ts:8:${callColumn}`,
    );
  });

  it('keeps positions in a fenced program whose last expression normalisation returns', async () => {
    const source = lines(
      '```ts',
      'const rows: Array<{ n: number }> = [{ n: 1 }];',
      'const total = rows.reduce((sum: number, row) => sum + row.n, 0) as number;',
      '(total as unknown as { missing: { deeper: number } }).missing.deeper',
      '```',
    );
    const program = await compiled(source);
    // Normalisation inserted `return (` and `)` on line 4, so the body was parsed again to blank it.
    expect(program.map).toBeUndefined();
    expect(program.insertions).toEqual([
      { line: 4, column: 0, width: 8 },
      { line: 4, column: source.split('\n')[3]!.length, width: 1 },
    ]);
    const failure = await thrown(program);
    expect(failure).toMatchObject({ name: 'TypeError', line: 4, column: columnOf(source, 4, '.deeper') + 1 });
  });

  it('maps positions a program prints from a stack', async () => {
    const source = lines('const where: string = new Error("probe").stack!.split("\\n")[1]!;', 'console.log(where);');
    const program = await compiled(source);
    expect(program.map).toBeUndefined();
    expect(mapProgramPositions(program, '    at program.js:2:23')).toBe('    at program.ts:1:23');
    expect(mapProgramPositions(program, '    at program.js:1:2')).toBeUndefined();
    expect(mapProgramPositions(program, '    at program.js:4:1')).toBeUndefined();
    // The substrate's own frames go; built-ins' frames and lines that are not frames stay.
    expect(mapProgramPositions(program, '    at Script.runInContext (node:vm:149:12)')).toBeUndefined();
    expect(mapProgramPositions(program, '    at [worker eval]:144:29')).toBeUndefined();
    expect(mapProgramPositions(program, '    at <input>:1:1')).toBeUndefined();
    expect(mapProgramPositions(program, '    at JSON.parse (<anonymous>)')).toBe('    at JSON.parse (<anonymous>)');
    expect(mapProgramPositions(program, '    at parse (native)')).toBe('    at parse (native)');
    expect(mapProgramPositions(program, 'meet at 10:30:15')).toBe('meet at 10:30:15');
    expect(mapProgramPositions(program, '  at the office since 08:30:15')).toBe('  at the office since 08:30:15');
    expect(mapProgramPositions(program, '    at file:///srv/app.js:3:9')).toBeUndefined();
  });

  it('keeps positions of an unwrapped `export default` function', async () => {
    const source = lines('export default function main(): number {', "  throw new TypeError('nope');", '}');
    const program = await compiled(source);
    expect(program.map).toBeUndefined();
    const failure = await thrown(program);
    expect(failure).toMatchObject({ name: 'TypeError', line: 2, column: 9 });
    expect(failure.stack).toBe('TypeError: nope\n    at main (program.ts:2:9)');
  });
});

describe('prepareProgram, esbuild where blanking cannot do it', () => {
  it('strips an enum with esbuild and maps its positions through the source map', async () => {
    const source = lines(
      'enum Level { Low = 1, High = 3 }',
      'const level: Level = Level.High;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the model's program text
      'if (level > 2) throw new Error(`level ${Level[level]}`);',
    );
    const program = await compiled(source);
    expect(program.map).toBeDefined();
    const failure = await thrown(program);
    const column = columnOf(source, 3, 'new Error');
    expect(failure).toMatchObject({ name: 'Error', line: 3, column });
    expect(failure.stack).toBe(`Error: level High\n    at program.ts:3:${column}`);
  });

  it('hands esbuild what it lowers for Node 20: decorators, accessor fields, using', async () => {
    const programs = [
      lines(
        'function logged(value: unknown, context: { kind: string }) { return value; }',
        'class Box {',
        '  @logged',
        '  size(): number { return 4; }',
        '}',
        'return new Box().size();',
      ),
      lines('class Counter { accessor count: number = 4; }', 'return new Counter().count;'),
      lines('using nothing = null;', 'return 4;'),
    ];
    for (const source of programs) {
      const program = await compiled(source);
      expect(program.map, source).toBeDefined();
      expect(await value(program)).toBe(4);
    }
  });

  it('hands esbuild a program whose text says import( anywhere', async () => {
    const program = await compiled(lines("const note: string = 'import (later)';", 'return note;'));
    expect(program.map).toBeDefined();
    expect(await value(program)).toBe('import (later)');
  });

  it("gives esbuild's message and position for an error V8 finds but the TypeScript parser does not", async () => {
    const source = lines('const items: number[] = [1];', 'items.forEach((item) => { await item; });');
    const awaited = await prepareProgram(source);
    const column = columnOf(source, 2, 'await');
    expect(!awaited.ok && awaited.failure).toMatchObject({ kind: 'exception', name: 'SyntaxError', line: 2, column });
    expect(!awaited.ok && awaited.failure.message).toContain('"await" can only be used inside an "async" function');
    const declared = await prepareProgram(lines('const total: number = 1;', 'const total = 2;'));
    expect(!declared.ok && declared.failure).toMatchObject({
      kind: 'exception',
      name: 'SyntaxError',
      line: 2,
      column: 7,
    });
  });

  it('runs a type-only namespace, which esbuild refuses in a function body', async () => {
    const program = await compiled(
      lines('namespace Units { export type Metre = number }', 'const m: Units.Metre = 3;', 'return m;'),
    );
    expect(program.map).toBeUndefined();
    expect(await value(program)).toBe(3);
  });
});
