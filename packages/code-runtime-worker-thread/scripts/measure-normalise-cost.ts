// `npx tsx packages/code-runtime-worker-thread/scripts/measure-normalise-cost.ts` prints what
// normalising a program's shape adds to an uncached compile: the parser's first load, then the
// median of 300 runs of normalisation alone, esbuild's strip alone and the whole compile, for a
// 30-line program and a 10 KB one (each run a new source text, so nothing is cached). Machine load
// moves these numbers a lot on a shared machine: read them beside `uptime`.
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { transform } from 'esbuild';
import type * as TypeScriptModule from 'typescript';
import { normaliseProgram } from '../src/program-normalise.js';
import { ProgramCompiler } from '../src/worker-thread-compile.js';

/** 30 lines of host calls and logging, with a top-level `return`. */
function shortProgram(): string {
  const lines: string[] = [];
  for (let index = 0; index < 29; index += 1) {
    lines.push(
      index % 5 === 0
        ? `const r${index}: number[] = await Promise.all([1, 2, 3].map((n) => tools.calc({ n, i: ${index} })));`
        : `console.log('step ${index}', r${index - (index % 5)}.length);`,
    );
  }
  lines.push('return r0;');
  return lines.join('\n');
}

/** About 10 KB of typed functions, then a `return` that calls the first. */
function longProgram(): string {
  let text = '';
  for (let index = 0; text.length < 10_000; index += 1) {
    text += `interface Row${index} { id: number; name: string }\nasync function step${index}(rows: Row${index}[]): Promise<number> {\n  let total = 0;\n  for (const row of rows) {\n    if (row.id % 2 === 0) total += row.name.length; else total -= 1;\n  }\n  return total;\n}\n`;
  }
  return `${text}return await step0([]);\n`;
}

const median = (samples: number[]): number => [...samples].sort((left, right) => left - right)[samples.length >> 1]!;
const strip = (source: string) =>
  transform(`(async () => {\n${source}\n})()`, {
    loader: 'ts',
    sourcemap: 'external',
    sourcefile: 'program.ts',
    target: 'node20',
    supported: { 'dynamic-import': false },
    logLevel: 'silent',
  });

let started = performance.now();
const ts = createRequire(import.meta.url)('typescript') as typeof TypeScriptModule;
console.log(`parser load: ${(performance.now() - started).toFixed(0)} ms (load average ${loadavg()[0]!.toFixed(2)})`);
const compiler = new ProgramCompiler();
await compiler.compile('return 0;');
await strip('0');
for (const [label, program] of [
  ['30 lines', shortProgram()],
  ['10 KB', longProgram()],
] as const) {
  const normalise: number[] = [];
  const esbuild: number[] = [];
  const compile: number[] = [];
  for (let run = 0; run < 300; run += 1) {
    const source = `${program}\n// ${run}`;
    started = performance.now();
    normaliseProgram(ts, source);
    normalise.push(performance.now() - started);
    started = performance.now();
    await strip(source);
    esbuild.push(performance.now() - started);
    started = performance.now();
    const result = await compiler.compile(`${source} `);
    compile.push(performance.now() - started);
    if (!result.ok) throw new Error(`${label}: ${result.failure.message}`);
  }
  const added = median(compile) - median(esbuild);
  console.log(
    `${label} (${program.length} bytes): normalise ${median(normalise).toFixed(3)} ms, esbuild ${median(esbuild).toFixed(3)} ms, compile ${median(compile).toFixed(3)} ms (added ${added.toFixed(3)} ms); load average ${loadavg()[0]!.toFixed(2)}`,
  );
}
