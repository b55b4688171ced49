import type { CodeRunResult, ExceptionFailure, HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';
import { ProgramCompiler } from './worker-thread-compile.js';

const runtime = createWorkerThreadCodeRuntime({ poolSize: 2, wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

const weather: HostFunction = async (input) => ({ city: (input as { city: string }).city, tempC: 21 });
const tools = { weather };
const lines = (...text: string[]): string => text.join('\n');
const run = (program: string): Promise<CodeRunResult> => runtime.run({ program, bindings: { tools } });

async function value(program: string): Promise<unknown> {
  const result = await run(program);
  if (!result.ok) throw new Error(`failed: ${result.failure.message}`);
  return result.value;
}

async function exception(program: string): Promise<ExceptionFailure> {
  const result = await run(program);
  if (result.ok || result.failure.kind !== 'exception') throw new Error(`not an exception: ${JSON.stringify(result)}`);
  return result.failure;
}

describe('worker-thread programs as models write them', () => {
  it('runs a fenced program and counts the fence lines in positions', async () => {
    expect(
      await value(lines('```ts', "const r = await tools.weather({ city: 'Oslo' });", 'return r.tempC;', '```')),
    ).toBe(21);
    const failure = await exception(lines('```typescript', 'const a = 1;', '  throw new RangeError("far");', '```'));
    expect(failure).toMatchObject({ name: 'RangeError', line: 3, column: 9 });
    expect(failure.stack).toBe('RangeError: far\n    at program.ts:3:9');
  });

  it('calls a program that is one async arrow, keeping its positions', async () => {
    const program = lines('async () => {', "  const w = await tools.weather({ city: 'Lisbon' });", '  return w;', '};');
    expect(await value(program)).toEqual({ city: 'Lisbon', tempC: 21 });
    // Inserted text moves the line right; the positions still count the model's characters.
    const failure = await exception('async () => { const a = {}; return a.y.z; }');
    expect(failure).toMatchObject({ name: 'TypeError', line: 1, column: 40 });
    expect(failure.message).toContain("(reading 'z') (line 1, column 40)");
  });

  it('calls the one function a program declares and never calls', async () => {
    const program = lines(
      "const city = 'Oslo';",
      'async function main() {',
      '  const report = await tools.weather({ city });',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the model's program text
      '  if (report.tempC > 20) throw new Error(`warm in ${city}`);',
      '}',
    );
    const failure = await exception(program);
    expect(failure).toMatchObject({ name: 'Error', line: 4, column: 32 });
    expect(failure.stack).toBe('Error: warm in Oslo\n    at main (program.ts:4:32)');
  });

  it('unwraps export default of a function and of a value', async () => {
    expect(
      await value('export default async function main() { return (await tools.weather({ city: "Rome" })).city; }'),
    ).toBe('Rome');
    expect(await value(lines('const answer = 42;', 'export default { answer };'))).toEqual({ answer: 42 });
  });

  it('returns the last expression statement, with columns on its line still the model’s', async () => {
    expect(await value(lines("const report = await tools.weather({ city: 'Bergen' });", 'report.tempC * 2'))).toBe(42);
    expect(await value(lines('const items = [1, 2, 3];', 'void items.push(4);'))).toBeUndefined();
    const failure = await exception(lines('const x = {};', '  x.y.z'));
    expect(failure).toMatchObject({ name: 'TypeError', line: 2, column: 7 });
    expect(failure.stack).toBe("TypeError: Cannot read properties of undefined (reading 'z')\n    at program.ts:2:7");
  });

  it('refuses a program with two readings, naming both, before anything runs', async () => {
    const calls: unknown[] = [];
    const record: HostFunction = async (input) => {
      calls.push(input);
      return null;
    };
    const result = await runtime.run({
      program: lines(
        'async function main() { await tools.record(1) }',
        'async function report() { await tools.record(2) }',
      ),
      bindings: { tools: { record } },
    });
    expect(!result.ok && result.failure).toMatchObject({ kind: 'exception', name: 'SyntaxError', line: 1, column: 1 });
    expect(!result.ok && result.failure.message).toContain('`return await main()` or `return await report()`');
    expect(calls).toEqual([]);
  });

  it('says imports are not available, and what to use instead', async () => {
    const declared = await exception(
      lines('// fetch the page', "import { readFile } from 'node:fs/promises';", 'return 1;'),
    );
    expect(declared).toMatchObject({ name: 'SyntaxError', line: 2, column: 1 });
    expect(declared.message).toContain("Imports are not available: `import … from 'node:fs/promises'`");
    expect(declared.message).toContain('host functions this run grants');
    expect(declared.message).not.toContain('require is not defined');
    const dynamic = await exception("const { default: _ } = await import('lodash');");
    expect(dynamic).toMatchObject({ name: 'SyntaxError', line: 1, column: 30 });
  });
});

describe('worker-thread syntax errors at the end of a program', () => {
  const cases: Array<[string, string, string, number, number]> = [
    [
      'a block left open',
      lines('const cities = ["Oslo"];', 'for (const city of cities) {', '  console.log(city);', ''),
      'the block or object `{` that starts at line 2, column 28',
      3,
      21,
    ],
    [
      'a template left open',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the model's program text
      lines('const city = "Oslo";', 'const text = `weather in ${city}', 'return text;'),
      'the template literal that starts at line 2, column 14',
      3,
      13,
    ],
    [
      'a comment left open',
      lines('const a = 1;', '/* the answer', 'return a;'),
      'the comment `/*` that starts at line 2, column 1',
      3,
      10,
    ],
    [
      'a block left open in a fenced program',
      lines('```ts', 'async function main() {', '  return 1;', '```'),
      'the block or object `{` that starts at line 2, column 23',
      3,
      12,
    ],
  ];
  for (const [name, program, said, line, column] of cases) {
    it(`reports ${name} at the program's last line, naming it`, async () => {
      const failure = await exception(program);
      expect(failure).toMatchObject({ name: 'SyntaxError', line, column });
      expect(failure.message).toContain(`The program ends before ${said} is closed (line ${line}, column ${column})`);
      expect(failure.message).not.toContain('")"');
      expect(failure.stack).toContain(`at program.ts:${line}:${column}`);
    });
  }

  it('keeps reporting an error inside the program where it is', async () => {
    const failure = await exception(lines('const a = 1;', 'const broken = = 2;', 'return a;'));
    expect(failure).toMatchObject({ name: 'SyntaxError', line: 2, column: 16 });
  });

  it('reports a string left open on the last line, on that line', async () => {
    const failure = await exception(lines('const a = 1;', "return 'abc;"));
    expect(failure).toMatchObject({ name: 'SyntaxError', line: 2, column: 13 });
    expect(failure.message).toContain('Unterminated string literal');
  });
});

describe('ProgramCompiler', () => {
  it('hands back the cached result for the same source, normalised or refused', async () => {
    const compiler = new ProgramCompiler();
    for (const source of ['async () => 1', "import x from 'y';"]) {
      const first = await compiler.compile(source);
      expect(await compiler.compile(source)).toBe(first);
    }
  });
});
