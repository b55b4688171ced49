import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const lines = (...text: string[]): string => text.join('\n');

/** Programs the fast path takes: plain JavaScript with a `return` outside any function. */
const plain = [
  'return 6*7',
  lines('const r = await tools.echo({ x: 1 });', 'console.log(r.x);', 'return r.x + 1;'),
  lines('let total = 0;', 'for (const n of [1, 2, 3]) total += n;', 'if (total) { return total }', 'return 0'),
  lines(
    'function twice(n) { return n * 2 }',
    'const all = await Promise.all([1, 2].map(async (n) => twice(n)));',
    'return all',
  ),
  lines('try {', '  await tools.fail();', '} catch (error) {', '  return String(error);', '}', 'return null'),
  lines('const found = (await tools.search({ q: "await" })).filter((x) => x.await);', 'return found.length'),
];

/** Programs it leaves to the parser: TypeScript, another shape, or text the two parsers may read apart. */
const others = [
  '6*7',
  'const x: number = 1;\nreturn x',
  'function main() { return 1 }',
  'async () => { return 1 }',
  'export default 42',
  "import fs from 'node:fs';\nreturn fs",
  'return f<number>(1)',
  'return a < b',
  'const values = [1] as const;\nreturn values',
  '```js\nreturn 1\n```',
  'return x ? (y) : z => z',
  'return 1 -->',
  'enum E { A }\nreturn E.A',
  'class A { private x = 1 }\nreturn new A()',
  'return (',
  'const x = 1;\nx',
  'return await import("node:fs")',
  // A script reads `await` as a name; its stand-in reads the rest as the async function does.
  lines('await', '{ return(){} }'),
  lines('x = await /[/; function f() { return 1 } //]/', 'f()'),
  // Inside a function that is not async, `await` is a name and the `/` after it a division.
  lines('function f(a) { x = await / a + "/ }; return 1; //"; }', 'f(1)'),
  lines('const value = 1;', 'if (value) { const f = () => { return value } }', 'await f'),
];

/** Each program through the fast path and through the parser, in a process of its own (no flag), as `{ fast, parsed }` pairs. */
function prepareBothWays(programs: readonly string[]): Array<{ fast: unknown; parsed: unknown }> {
  const script = `
import { prepareJavaScript } from ${JSON.stringify(new URL('./program-fast-path.ts', import.meta.url).href)};
import { prepareWithParser } from ${JSON.stringify(new URL('./program-prepare.ts', import.meta.url).href)};
const programs = ${JSON.stringify(programs)};
const pairs = [];
for (const program of programs) pairs.push({ fast: prepareJavaScript(program) ?? null, parsed: await prepareWithParser(program) });
process.stdout.write(JSON.stringify(pairs));
process.exit(0);
`;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(output) as Array<{ fast: unknown; parsed: unknown }>;
}

describe('prepareJavaScript, the fast path', () => {
  it('takes plain JavaScript with a top-level return, and gives exactly what the parser gives', () => {
    const pairs = prepareBothWays(plain);
    for (const [index, { fast, parsed }] of pairs.entries()) {
      expect(fast, plain[index]).not.toBeNull();
      expect(fast, plain[index]).toEqual(parsed);
    }
  }, 60_000);

  it('leaves TypeScript, other shapes and ambiguous text to the parser', () => {
    const pairs = prepareBothWays(others);
    for (const [index, { fast }] of pairs.entries()) expect(fast, others[index]).toBeNull();
  }, 60_000);
});
