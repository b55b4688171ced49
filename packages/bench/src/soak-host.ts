// The host under test in the soak (started by soak-run.ts): runs the mix of hostile programs with a
// few callers at once, samples itself, prints the summary and exits 0 (every check passed) or 3.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeRunResult, CodeRuntime } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { codeVersion, commandOptions } from './bench-harness.js';
import { type SoakSample, sampleHost, trends } from './process-probe.js';
import { type SoakShape, selectShapes } from './soak-shapes.js';

const options = commandOptions(process.argv.slice(2));
const total = Number(options.runs ?? '2000');
const concurrency = Number(options.concurrency ?? '8');
const sampleEvery = Number(options['sample-every'] ?? '50');
const selector = options.shapes ?? 'all';
const shapes = selectShapes(selector);
/** Generous, as a run's wall clock also runs while it waits for a free substrate; loops end on the CPU budget. */
const wallTimeMs = Number(options['wall-ms'] ?? '10000');
/** How long past its wall clock a run may take to settle before it is counted as left unsettled. */
const settleGraceMs = 30_000;

const hostFaults: string[] = [];
process.on('unhandledRejection', (reason) => {
  hostFaults.push(`unhandled rejection: ${describe(reason)}`);
});
process.on('uncaughtException', (error) => {
  hostFaults.push(`uncaught exception: ${describe(error)}`);
});

function describe(value: unknown): string {
  try {
    return value instanceof Error ? `${value.name}: ${value.message}`.slice(0, 200) : String(value).slice(0, 200);
  } catch {
    return '(unreadable)';
  }
}

/** The same interleaving every time: a small linear congruential generator picks shapes by weight. */
function schedule(count: number, seed: number): SoakShape[] {
  const weightTotal = shapes.reduce((sum, shape) => sum + shape.weight, 0);
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
  return Array.from({ length: count }, () => {
    let pick = next() * weightTotal;
    for (const shape of shapes) {
      pick -= shape.weight;
      if (pick < 0) return shape;
    }
    return shapes.at(-1)!;
  });
}

/** One runtime per provider and budget, made on first use; `long` keeps the default 10 s CPU budget. */
const runtimes = new Map<string, CodeRuntime>();
function runtimeFor(shape: SoakShape): CodeRuntime {
  const key = `${shape.provider} ${shape.budget ?? 'short'}`;
  let runtime = runtimes.get(key);
  if (runtime === undefined) {
    const settings =
      shape.budget === 'long' ? { wallTimeMs: 2 * wallTimeMs, cpuTimeMs: 10_000 } : { wallTimeMs, cpuTimeMs: 1_000 };
    runtime =
      shape.provider === 'python'
        ? createPythonCodeRuntime(settings)
        : shape.provider === 'quickjs'
          ? createQuickJsCodeRuntime(settings)
          : createWorkerThreadCodeRuntime(settings);
    runtimes.set(key, runtime);
  }
  return runtime;
}

type Outcome = { result: CodeRunResult } | { rejected: unknown } | 'unsettled';

async function settle(shape: SoakShape): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<'unsettled'>((resolve) => {
    timer = setTimeout(() => resolve('unsettled'), 2 * wallTimeMs + settleGraceMs);
  });
  const run = runtimeFor(shape)
    .run({ program: shape.program, bindings: shape.bindings ?? {} })
    .then(
      (result) => ({ result }),
      (rejected: unknown) => ({ rejected }),
    );
  try {
    return await Promise.race([run, giveUp]);
  } finally {
    clearTimeout(timer);
  }
}

const outcomes = new Map<string, Map<string, number>>();
const wrongPlainRuns: string[] = [];
const samples: SoakSample[] = [sampleHost(0)];
let settled = 0;
let unsettled = 0;
let rejected = 0;

function record(shape: SoakShape, outcome: Outcome): void {
  const kind =
    outcome === 'unsettled'
      ? 'UNSETTLED'
      : 'rejected' in outcome
        ? 'REJECTED'
        : outcome.result.ok
          ? 'ok'
          : outcome.result.failure.kind;
  if (outcome === 'unsettled') unsettled += 1;
  else if ('rejected' in outcome) rejected += 1;
  const counts = outcomes.get(shape.name) ?? new Map<string, number>();
  counts.set(kind, (counts.get(kind) ?? 0) + 1);
  outcomes.set(shape.name, counts);
  if (shape.mustReturn !== undefined) {
    const result = outcome !== 'unsettled' && 'result' in outcome ? outcome.result : undefined;
    if (result === undefined || !result.ok || result.value !== shape.mustReturn) {
      const what = result === undefined ? kind : result.ok ? JSON.stringify(result.value) : result.failure.message;
      wrongPlainRuns.push(`${shape.name}: ${kind} ${what.slice(0, 160)}`);
    }
  }
  settled += 1;
  if (settled % sampleEvery === 0 || settled === total) {
    const sample = sampleHost(settled);
    samples.push(sample);
    console.log(
      `soak: ${settled}/${total} settled, rss ${sample.rssMb.toFixed(0)} MiB, fds ${sample.fds}, threads ${sample.threads}, child processes ${sample.children}`,
    );
  }
}

const planned = schedule(total, Number(options.seed ?? '1'));
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < planned.length) {
      const shape = planned[next]!;
      next += 1;
      record(shape, await settle(shape));
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
const disposeGraceMs = 30_000;
let disposeTimer: NodeJS.Timeout | undefined;
const disposed = await Promise.race([
  Promise.all([...runtimes.values()].map((runtime) => runtime.dispose())).then(() => true),
  new Promise<false>((resolve) => {
    disposeTimer = setTimeout(() => resolve(false), disposeGraceMs);
  }),
]);
clearTimeout(disposeTimer);
const afterDispose = sampleHost(settled);

const figures = trends(samples);
const checks = [
  {
    ok: unsettled === 0,
    text: `every run settled within ${(2 * wallTimeMs + settleGraceMs) / 1000} s (${unsettled} did not)`,
  },
  { ok: rejected === 0, text: `no run() promise rejected (${rejected} did)` },
  { ok: disposed, text: `every runtime disposed within ${disposeGraceMs / 1000} s` },
  {
    ok: hostFaults.length === 0,
    text: `no unhandled rejection or uncaught exception in the host (${hostFaults.length})`,
  },
  { ok: wrongPlainRuns.length === 0, text: `every plain run returned its value (${wrongPlainRuns.length} did not)` },
  ...figures.map((trend) => ({
    ok: trend.ok,
    text: `${trend.name} last ${trend.last.toFixed(0)} ≤ bound ${trend.bound.toFixed(0)}`,
  })),
];

const perProvider = (provider: SoakShape['provider']) => planned.filter((shape) => shape.provider === provider).length;
const lines = [
  `# Sluice soak, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `${total} runs (${perProvider('worker-thread')} worker-thread, ${perProvider('quickjs')} quickjs, ${perProvider('python')} python), shapes \`${selector}\`, ${concurrency} at once, ${seconds.toFixed(1)} s; sampled every ${sampleEvery} runs (${samples.length} samples); wall clock ${wallTimeMs} ms (waiting for a substrate included), CPU budget 1 s (memory shapes: the default 10 s and twice the wall clock); ${codeVersion()}.`,
  '',
  '| shape | provider | runs | outcomes |',
  '|---|---|---|---|',
  ...shapes.map((shape) => {
    const counts = outcomes.get(shape.name) ?? new Map<string, number>();
    const runs = [...counts.values()].reduce((sum, value) => sum + value, 0);
    const text = [...counts].map(([kind, value]) => `${kind} ${value}`).join(', ');
    return `| ${shape.name} | ${shape.provider} | ${runs} | ${text} |`;
  }),
  '',
  'Host process (this one) over the soak; the bound is from the median of the second quarter of the samples (counts: 1.5× or +4; RSS: 2× + 128 MiB).',
  '',
  '| figure | first | last | max | 2nd-quarter median | bound | |',
  '|---|---|---|---|---|---|---|',
  ...figures.map(
    (trend) =>
      `| ${trend.name} | ${trend.first.toFixed(0)} | ${trend.last.toFixed(0)} | ${trend.max.toFixed(0)} | ${trend.settledLevel.toFixed(0)} | ${trend.bound.toFixed(0)} | ${trend.ok ? 'ok' : 'GREW'} |`,
  ),
  '',
  `After dispose: rss ${afterDispose.rssMb.toFixed(0)} MiB, fds ${afterDispose.fds}, threads ${afterDispose.threads}, child processes ${afterDispose.children}.`,
  '',
  '## Checks',
  '',
  ...checks.map((check) => `- ${check.ok ? 'pass' : 'FAIL'}: ${check.text}`),
  ...[...hostFaults.slice(0, 5), ...wrongPlainRuns.slice(0, 5)].map((text) => `  - ${text}`),
];
const report = `${lines.join('\n')}\n`;
console.log(`\n${report}`);
const resultsDir = join(import.meta.dirname, '..', 'results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'soak.md'), report);
process.exit(checks.every((check) => check.ok) ? 0 : 3);
