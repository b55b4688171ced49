// `npx tsx packages/code-runtime-python/scripts/measure-compile-cost.ts` prints the child CPU per run
// (median of 7, from the child's own getrusage) for generated programs of 100 KB and 256 KB: many
// top-level names, each with a function that reads one. Uses the built package (`dist`).
import { createPythonCodeRuntime } from '../dist/index.js';

/** A program of about `bytes` bytes: top-level names and functions, then a final expression. */
function generatedProgram(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let index = 0; size < bytes - 64; index += 1) {
    const part = `value_${index} = ${index}\ndef function_${index}(x):\n    total = x + value_${index}\n    return total * 2\n`;
    parts.push(part);
    size += part.length;
  }
  parts.push('return function_0(1)\n');
  return parts.join('');
}

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
      const result = await runtime.run({ program });
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
