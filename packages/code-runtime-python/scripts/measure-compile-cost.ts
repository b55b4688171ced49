// `npx tsx packages/code-runtime-python/scripts/measure-compile-cost.ts [package directory] [--host-calls]`
// prints the child CPU per run (median of 7, from the child's own getrusage) for generated programs of
// 100 KB and 256 KB: many top-level names, each with a function that reads one. With `--host-calls`
// each function also calls a host function twice, once with `await` and once without, and the run
// grants it, so the rewrite of calls without `await` has a call site to look at in every function
// (the functions are never called). Uses the built package (`dist`) of the directory given, by
// default this one, so two trees can be compared as `measure-run-cost.ts` describes.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const options = process.argv.slice(2);
const hostCalls = options.includes('--host-calls');
const [directory = resolve(import.meta.dirname, '..')] = options.filter((option) => !option.startsWith('--'));
const { createPythonCodeRuntime } = (await import(
  pathToFileURL(resolve(directory, 'dist/index.js')).href
)) as typeof import('../dist/index.js');

/** A program of about `bytes` bytes: top-level names and functions, then a final expression. */
function generatedProgram(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let index = 0; size < bytes - 64; index += 1) {
    const calls = hostCalls ? `    total += len(tools.echo(x)) + len(await tools.echo(x))\n` : '';
    const define = hostCalls ? 'async def' : 'def';
    const part = `value_${index} = ${index}\n${define} function_${index}(x):\n    total = x + value_${index}\n${calls}    return total * 2\n`;
    parts.push(part);
    size += part.length;
  }
  parts.push(hostCalls ? 'return 1\n' : 'return function_0(1)\n');
  return parts.join('');
}

const bindings = hostCalls ? { tools: { echo: async (input: unknown) => input as null } } : {};
const runtime = createPythonCodeRuntime({ wallTimeMs: 60_000, cpuTimeMs: 30_000 });
try {
  for (const [label, bytes] of [
    ['tiny', 100],
    ['100 KB', 100_000],
    ['256 KB', 256 * 1024 - 100],
  ] as const) {
    const program = generatedProgram(bytes);
    const samples: number[] = [];
    for (let run = 0; run < 7; run += 1) {
      const result = await runtime.run({ program, bindings });
      if (!result.ok) throw new Error(`${label}: ${JSON.stringify(result.failure)}`);
      samples.push(result.usage.cpuMs ?? Number.NaN);
    }
    samples.sort((left, right) => left - right);
    console.log(
      `${label} (${Buffer.byteLength(program)} bytes): child CPU median ${samples[3]} ms, min ${samples[0]} ms`,
    );
  }
} finally {
  await runtime.dispose();
}
