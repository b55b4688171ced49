// `pnpm --filter @sluice/bench strip`: the TypeScript strippers side by side on model-sized
// programs, in this process: speed (p50), whether lines and columns survive, and syntax coverage.
// Written to results/strip.md.

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { transformSync as amaroTransform } from 'amaro';
import { stop as esbuildStop, transform as esbuildTransform } from 'esbuild';
import { transform as sucraseTransform } from 'sucrase';
import tsBlankSpace, { blankSourceFile } from 'ts-blank-space';
import type * as TypeScriptModule from 'typescript';
import { codeVersion, commandOptions, percentile } from './bench-harness.js';
import { positionProgram, stripPrograms, syntaxCases } from './strip-cases.js';

const require = createRequire(import.meta.url);
const options = commandOptions(process.argv.slice(2));
const runs = Number(options.runs ?? '300');

interface Stripper {
  readonly name: string;
  readonly version: string;
  readonly how: string;
  /** JavaScript for `text`, or a thrown error when the stripper refuses it. */
  readonly strip: (text: string) => string | Promise<string>;
}

const version = (name: string) =>
  (
    JSON.parse(readFileSync(join(import.meta.dirname, '..', 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
let typescript: typeof TypeScriptModule | undefined;
const parse = (text: string) => {
  typescript ??= require('typescript') as typeof TypeScriptModule;
  return typescript.createSourceFile(
    'program.ts',
    text,
    typescript.ScriptTarget.ESNext,
    true,
    typescript.ScriptKind.TS,
  );
};
const refuseUnsupported = (node: { kind: number }) => {
  throw new Error(`unsupported syntax (node kind ${node.kind})`);
};

const strippers: readonly Stripper[] = [
  {
    name: 'esbuild',
    version: version('esbuild'),
    how: "`transform` through its service process, `loader: 'ts'`, external source map (as program-prepare.ts does)",
    strip: async (text) =>
      (
        await esbuildTransform(text, {
          loader: 'ts',
          sourcemap: 'external',
          sourcefile: 'program.ts',
          target: 'node20',
          logLevel: 'silent',
        })
      ).code,
  },
  {
    name: 'amaro (strip-only)',
    version: version('amaro'),
    how: "swc compiled to WebAssembly, `mode: 'strip-only'` (Node's own type stripping)",
    strip: (text) => amaroTransform(text, { mode: 'strip-only', filename: 'program.ts' }).code,
  },
  {
    name: 'amaro (transform)',
    version: version('amaro'),
    how: "swc compiled to WebAssembly, `mode: 'transform'` with a source map",
    strip: (text) => amaroTransform(text, { mode: 'transform', sourceMap: true, filename: 'program.ts' }).code,
  },
  {
    name: 'sucrase',
    version: version('sucrase'),
    how: "`transforms: ['typescript']`, `disableESTransforms: true`",
    strip: (text) => sucraseTransform(text, { transforms: ['typescript'], disableESTransforms: true }).code,
  },
  {
    name: 'ts-blank-space',
    version: version('ts-blank-space'),
    how: 'parses with the TypeScript compiler, blanks the types out with spaces',
    strip: (text) => tsBlankSpace(text, refuseUnsupported),
  },
  {
    name: 'ts-blank-space (parsed tree)',
    version: version('ts-blank-space'),
    how: '`blankSourceFile` on a tree already parsed (the kit parses every program to normalise it); the parse is not timed',
    strip: (text) => blankSourceFile(parsedTrees.get(text) ?? parse(text), refuseUnsupported),
  },
];

/** Trees parsed ahead of timing, for the `parsed tree` row: what the kit's normalisation already holds. */
const parsedTrees = new Map<string, TypeScriptModule.SourceFile>();

// The program is the body of an async function, as the providers wrap it: one line before it.
const wrap = (source: string) => `(async () => {\n${source}\n})`;

async function timeOne(stripper: Stripper, source: string): Promise<{ p50: number; p95: number }> {
  const texts = Array.from({ length: runs + 20 }, (_, index) => wrap(`// run ${index}\n${source}`));
  if (stripper.name.includes('parsed tree')) for (const text of texts) parsedTrees.set(text, parse(text));
  const times: number[] = [];
  for (const [index, text] of texts.entries()) {
    const start = performance.now();
    await stripper.strip(text);
    if (index >= 20) times.push(performance.now() - start);
  }
  parsedTrees.clear();
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

/** Runs stripped code in a fresh V8 context and returns the program's value (or throws). */
async function evaluate(code: string): Promise<unknown> {
  const program = new Script(code, { filename: 'program.ts' }).runInNewContext({}) as () => Promise<unknown>;
  return JSON.parse(JSON.stringify(await program()));
}

async function coverage(stripper: Stripper, source: string, expected: unknown): Promise<string> {
  let code: string;
  try {
    code = await stripper.strip(wrap(source));
  } catch (error) {
    return `refused: ${firstLine(error)}`;
  }
  try {
    const value = await evaluate(code);
    return JSON.stringify(value) === JSON.stringify(expected) ? 'yes' : `wrong value ${JSON.stringify(value)}`;
  } catch (error) {
    return `output fails: ${firstLine(error)}`;
  }
}

async function positions(stripper: Stripper): Promise<string> {
  const line = positionProgram.split('\n')[3]!;
  const expectedLine = 5;
  const expectedColumn = line.indexOf('new Error') + 1;
  try {
    await evaluate(await stripper.strip(wrap(positionProgram)));
    return 'did not throw';
  } catch (error) {
    const where = /program\.ts:(\d+):(\d+)/
      .exec(String((error as Error).stack))
      ?.slice(1)
      .map(Number);
    if (where === undefined) return `no position in ${firstLine(error)}`;
    const [gotLine, gotColumn] = where as [number, number];
    const lineKept = gotLine === expectedLine ? 'line kept' : `line ${gotLine - 1} for 4`;
    const columnKept = gotColumn === expectedColumn ? 'column kept' : `column ${gotColumn} for ${expectedColumn}`;
    return `${lineKept}, ${columnKept}`;
  }
}

/** The first line of an error's text: esbuild's first message, amaro's plain `{ message }` object, or an Error's. */
function firstLine(error: unknown): string {
  const esbuildText = (error as { errors?: { text?: string }[] })?.errors?.[0]?.text;
  const message =
    esbuildText ??
    (typeof (error as { message?: unknown })?.message === 'string'
      ? (error as { message: string }).message
      : String(error));
  return message.split('\n')[0]!.replaceAll('|', '\\|').slice(0, 90);
}

const speed: string[] = [];
const syntax: string[] = [];
const startedLoad = loadavg();
for (const stripper of strippers) {
  console.log(`strip: ${stripper.name}`);
  const firstStart = performance.now();
  await stripper.strip(wrap('const warm: number = 1;\nreturn warm;'));
  const firstMs = performance.now() - firstStart;
  const cells: string[] = [];
  for (const program of stripPrograms) {
    const { p50, p95 } = await timeOne(stripper, program.source);
    cells.push(`${p50.toFixed(3)} / ${p95.toFixed(3)}`);
  }
  speed.push(
    `| ${stripper.name} ${stripper.version} | ${cells.join(' | ')} | ${firstMs.toFixed(0)} | ${await positions(stripper)} | ${stripper.how} |`,
  );
  const results: string[] = [];
  for (const syntaxCase of syntaxCases) results.push(await coverage(stripper, syntaxCase.source, syntaxCase.expected));
  syntax.push(`| ${stripper.name} | ${results.join(' | ')} |`);
}
await esbuildStop();

const sizes = stripPrograms.map(
  (program) => `${program.label} (${program.source.length} B, ${program.source.split('\n').length} lines)`,
);
const machine = `Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), load average ${startedLoad.map((value) => value.toFixed(2)).join(' ')} at the start and ${loadavg()
  .map((value) => value.toFixed(2))
  .join(' ')} at the end, ${runs} timed strips per size, ${codeVersion()}`;
const report = `# TypeScript strippers, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC

${machine}

Each program is wrapped as the providers wrap it (the body of an async function, one line before it) and stripped in this process, one after another; every run's text differs by a first comment line. Times in ms, p50 / p95. "First call" is the first strip in the process, loading included (the TypeScript compiler for ts-blank-space; the kit loads it anyway to normalise programs). Positions: where a stripped program's error points, without a source map, against line 4 of the program.

| stripper | ${sizes.join(' | ')} | first call ms | positions (no source map) | how |
|---|---|---|---|---|---|---|
${speed.join('\n')}

## Syntax coverage

"yes": stripped, run in a fresh V8 context (Node ${process.version}) and returned the expected value.

| stripper | ${syntaxCases.map((syntaxCase) => syntaxCase.name).join(' | ')} |
|---|${syntaxCases.map(() => '---').join('|')}|
${syntax.join('\n')}
`;
console.log(`\n${report}`);
const path = join(import.meta.dirname, '..', 'results', 'strip.md');
writeFileSync(path, report);
console.log(`strip: wrote ${path}`);
