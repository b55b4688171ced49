import { createRequire } from 'node:module';
import type * as TypeScriptModule from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { type BlankSourceFile, blankWrapped, loadBlanker } from './program-blank.js';
import { normaliseSource, parseDiagnostics, parseProgram } from './program-normalise.js';
import { prepareProgram } from './program-prepare.js';

const ts = createRequire(import.meta.url)('typescript') as typeof TypeScriptModule;

async function blanker(): Promise<BlankSourceFile> {
  const blank = await loadBlanker(() => ts);
  if (blank === undefined) throw new Error('ts-blank-space did not load');
  return blank;
}

// The TypeScript parser's and ts-blank-space's first use (loading, compiling their code) is not what
// these cases measure: it happens here, so a case's 5 s is its own work (seconds on a loaded machine).
beforeAll(async () => {
  await blanker();
  normaliseSource(ts, 'const a: number = 1;\na');
}, 60_000);

/** Normalises `source`; the tree and the edited body when normalisation edited the text. */
function edited(source: string): { file: TypeScriptModule.SourceFile; body: string } | undefined {
  const { normalised, file } = normaliseSource(ts, source);
  if (normalised.kind !== 'program' || file === undefined || file.text === normalised.body) return undefined;
  return { file, body: normalised.body };
}

/** What blanking the edited body costs a second parse to find: its blanked text, or why it cannot be blanked. */
function reparsed(blank: BlankSourceFile, body: string): string {
  const tree = parseProgram(ts, body);
  if (parseDiagnostics(tree).length > 0) return 'a syntax error';
  try {
    return blank(tree, () => {
      throw new Error('unsupported');
    });
  } catch {
    return 'syntax ts-blank-space cannot erase';
  }
}

/** Checks that `blankWrapped` declines `source`'s edited body; the body blanked after a second parse. */
async function withoutShortcut(source: string): Promise<string> {
  const blank = await blanker();
  const found = edited(source);
  if (found === undefined) throw new Error(`normalisation left ${source} as it was`);
  expect(blankWrapped(ts, blank, found.file, found.body)).toBeUndefined();
  return reparsed(blank, found.body);
}

// Statements a program may have before its last expression: TypeScript-only and JavaScript,
// ones that end in `;` or `}` and ones that end without (where the parser looks at the next line).
const before = [
  '',
  'const a = 1;\n',
  'let x = 2\n',
  'foo()\n',
  'if (a) b()\n',
  'do {} while (false)\n',
  'function main() { return 1 }\n',
  'class A {}\n',
  'label: for (;;) break label\n',
  'try {} catch {}\n',
  `const t = \`x\${1}\`;\n`,
  'let re = /a/g;\n',
  'declare\n',
  'type\n',
  'namespace\n',
  'abstract\n',
  'async\n',
  'let\n',
  'await\n',
  'global\n',
  'global;\n',
  'interface R { a: number }\n',
  'type T = string;\n',
  'declare const d: number;\n',
  'let q: number = 1\n',
  'const z = y as T\n',
  'const z = y as T;\n',
  'function g(this: Window, a?: number): void {}\n',
  'class C { declare x: number; private y = 1\n z = 2 }\n',
  'const k = <T,>(a: T) => a;\n',
  'let n = m!\n',
  'namespace N { }\n',
  'let w = f<string>(1);\n',
  'let u = (\n  a: number,\n): number =>\n  a\n',
  'function over(a: string): void\nfunction over(a: any) {}\n',
  'const o = { a: 1 } as const;\n',
  '@dec class D {}\n',
];
const last = [
  'a',
  'a, b',
  'a ? (b) : c => d',
  'a ? (b): T => c : d',
  '(a, b)',
  'a => a',
  'async () => 1',
  'function () {}',
  'main',
  'a < b > c',
  'f<T>(x)',
  'f<T>',
  `\`t\${x}\``,
  '/re/.test(s)',
  'await tools.echo({ x: 1 })',
  'a\n(b)',
  'let',
  'async',
  'a as T',
  'a + b as T',
  'a ** b as T',
  'a!',
  '<T,>(x: T): T => x',
  '(\n  a: number,\n): number =>\n  a',
  'class { x = 1\n declare y: number\n [z] = 2 }',
  '{ a: 1 } as const',
  'x satisfies Y',
];
const after = ['', ';', '\n', ' // end\n', '\n;\n;'];

describe('blankWrapped', () => {
  it('blanks a program that ends in an expression as parsing its edited body again does', async () => {
    const blank = await blanker();
    let shortcuts = 0;
    const differences: string[] = [];
    for (const head of before) {
      for (const tail of last) {
        for (const end of after) {
          const source = `${head}${tail}${end}`;
          const found = edited(source);
          if (found === undefined) continue;
          const quick = blankWrapped(ts, blank, found.file, found.body);
          if (quick === undefined) continue;
          shortcuts += 1;
          if (quick !== reparsed(blank, found.body)) differences.push(source);
        }
      }
    }
    expect(differences).toEqual([]);
    // Most of them take the shortcut, or this test would prove little.
    expect(shortcuts).toBeGreaterThan(1_500);
  });

  it('parses again after a statement that ends without `;` or `}`, which the parser read past', async () => {
    // `global` followed by a name on the next line is a TypeScript global declaration; followed by
    // `return` it is an expression. Without the rule, blanking the first tree gives `      `.
    expect(await withoutShortcut('global\na')).toBe('global\nreturn (a)');
  });

  it('parses again where ts-blank-space writes a semicolon that a wrapped expression must not get', async () => {
    expect(await withoutShortcut('const y = 1;\ny as number')).toBe('const y = 1;\nreturn (y          )');
  });
});

describe('prepareProgram, a last expression blanked without a second parse', () => {
  // The code and insertions the second parse gave, pinned: a typed program, and a lone arrow (called).
  it.each([
    {
      source: 'const n: number = 20;\nconst add = (a: number): number => a + 22;\nadd(n)',
      code: '(async () => {\nconst n         = 20;\nconst add = (a        )         => a + 22;\nreturn (add(n))\n})()',
      insertions: [
        { line: 3, column: 0, width: 8 },
        { line: 3, column: 6, width: 1 },
      ],
    },
    {
      source: 'const base = 2;\nasync () => base * 21',
      code: '(async () => {\nconst base = 2;\nreturn (async () => base * 21)()\n})()',
      insertions: [
        { line: 2, column: 0, width: 8 },
        { line: 2, column: 21, width: 3 },
      ],
    },
  ])('gives the code and positions a second parse gave: $source', async ({ source, code, insertions }) => {
    const lines = source.split('\n').length;
    expect(await prepareProgram(source)).toEqual({ ok: true, program: { code, lines, insertions } });
  });
});
