// One cold start, in a fresh process: imports a provider, creates its runtime, runs `return 1`,
// and prints one JSON line: the import's milliseconds and the first run's (creation to result).
import type { CodeRuntime } from '@sluice/code-runtime';

const provider = process.argv[2];
const imported = performance.now();
const create: () => CodeRuntime =
  provider === 'python'
    ? (await import('@sluice/code-runtime-python')).createPythonCodeRuntime
    : provider === 'quickjs'
      ? (await import('@sluice/code-runtime-quickjs')).createQuickJsCodeRuntime
      : (await import('@sluice/code-runtime-worker-thread')).createWorkerThreadCodeRuntime;
const started = performance.now();
const runtime = create();
const result = await runtime.run({ program: 'return 1' });
const ended = performance.now();
await runtime.dispose();
if (!result.ok || result.value !== 1) {
  process.stderr.write(`cold start: ${provider} did not return 1: ${JSON.stringify(result)}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ importMs: started - imported, firstRunMs: ended - started })}\n`);
