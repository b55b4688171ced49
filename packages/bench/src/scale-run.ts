// `pnpm --filter @sluice/bench scale`: how the cost of one run grows with its host calls, logs,
// returned value and host-call arguments, for both providers, and how the `run_code` description's
// build time grows with the catalogue; prints the growth per 10× and writes the tables to
// results/scale.md. `-- --only=python,declarations` measures some parts and keeps the others' tables.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { CodeRuntime } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { codeVersion, commandOptions, percentile } from './bench-harness.js';
import {
  type ScaleDimension,
  type ScaleProvider,
  scaleBindings,
  scaleDimensions,
  scaleSettings,
} from './scale-cases.js';
import {
  type DeclarationsPoint,
  declarationsHeading,
  declarationsSection,
  declarationsSizes,
  measureDeclarations,
} from './scale-declarations.js';

const options = commandOptions(process.argv.slice(2));
const budgetMs = Number(options['budget-seconds'] ?? '60') * 1000;
const parts = options.only?.split(',') ?? ['worker-thread', 'python', 'declarations'];
const providers = parts.filter((part): part is ScaleProvider => part === 'worker-thread' || part === 'python');
const declarations = parts.includes('declarations');
// A quick pass leaves out the two largest sizes of every dimension.
const quick = options.quick === 'true';

/** One size of one dimension: the median figures, or why there are none. */
interface ScalePoint {
  readonly provider: ScaleProvider;
  readonly dimension: ScaleDimension;
  readonly size: number;
  readonly wallMs?: number;
  /** Time the host's main thread was busy (event-loop utilisation) during the run. */
  readonly hostMs?: number;
  readonly runs?: number;
  readonly note?: string;
}

const gc = () => (globalThis as { gc?: () => void }).gc?.();

async function measure(
  runtime: CodeRuntime,
  program: string,
  expect: (value: unknown) => boolean,
): Promise<Pick<ScalePoint, 'wallMs' | 'hostMs' | 'runs' | 'note'>> {
  const walls: number[] = [];
  const hosts: number[] = [];
  // Small sizes repeat (up to 5 runs, about a second) and report the median; large ones run once.
  while (walls.length < 5 && walls.reduce((sum, value) => sum + value, 0) < 1000) {
    gc();
    const loopBefore = performance.eventLoopUtilization();
    const start = performance.now();
    const result = await runtime.run({ program, bindings: scaleBindings });
    const wallMs = performance.now() - start;
    const hostMs = performance.eventLoopUtilization(loopBefore).active;
    if (!result.ok) {
      const what = result.failure.kind === 'timeout' ? `after ${(wallMs / 1000).toFixed(1)} s` : '';
      return { note: `FAILED ${result.failure.kind} ${what}: ${result.failure.message.slice(0, 120)}` };
    }
    if (!expect(result.value)) return { note: `FAILED: wrong value ${JSON.stringify(result.value).slice(0, 60)}` };
    walls.push(wallMs);
    hosts.push(hostMs);
    if (wallMs > 200) break;
  }
  return { wallMs: percentile(walls, 50), hostMs: percentile(hosts, 50), runs: walls.length };
}

function createRuntime(provider: ScaleProvider): CodeRuntime {
  const settings = scaleSettings(budgetMs);
  return provider === 'python'
    ? createPythonCodeRuntime(settings.python)
    : createWorkerThreadCodeRuntime(settings['worker-thread']);
}

const points: ScalePoint[] = [];

async function measureAll(): Promise<void> {
  for (const provider of providers) {
    const runtime = createRuntime(provider);
    for (let index = 0; index < 3; index += 1) await runtime.run({ program: 'return 1', bindings: scaleBindings });
    for (const dimension of scaleDimensions) {
      let previous: ScalePoint | undefined;
      for (const size of quick ? dimension.sizes.slice(0, -2) : dimension.sizes) {
        let point: ScalePoint;
        if (previous !== undefined && previous.wallMs === undefined) {
          point = { provider, dimension, size, note: 'not run: the smaller size did not finish' };
        } else if (previous?.wallMs !== undefined && previous.wallMs * 10 > budgetMs) {
          point = {
            provider,
            dimension,
            size,
            note: `TOO SLOW to run here: ${sizeLabel(dimension, previous.size)} took ${duration(previous.wallMs)}; this size would take at least ${duration(previous.wallMs * 10)}, past the ${duration(budgetMs)} budget`,
          };
        } else {
          point = {
            provider,
            dimension,
            size,
            ...(await measure(runtime, dimension.program[provider](size), dimension.expect(size))),
          };
        }
        points.push(point);
        console.log(formatRow(point, previous));
        previous = point;
      }
    }
    await runtime.dispose();
  }
}

const duration = (ms: number) => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(1)} s`);

function sizeLabel(dimension: ScaleDimension, size: number): string {
  if (dimension.unit === 'call') return size.toLocaleString('en-US').replaceAll(',', ' ');
  return size >= 1_000_000 ? `${size / 1_000_000} MB` : `${size / 1_000} KB`;
}

const fixed = (value: number | undefined, digits: number) => (value === undefined ? '–' : value.toFixed(digits));
const growth = (now: number | undefined, before: number | undefined) =>
  now === undefined || before === undefined || before <= 0 ? undefined : now / before;

function formatRow(point: ScalePoint, previous: ScalePoint | undefined): string {
  const perUnit =
    point.wallMs === undefined
      ? '–'
      : point.dimension.unit === 'call'
        ? `${((point.wallMs * 1000) / point.size).toFixed(1)} µs/call`
        : `${((point.wallMs * 1_000_000) / point.size).toFixed(1)} ms/MB`;
  const wallGrowth = growth(point.wallMs, previous?.wallMs);
  const hostGrowth = growth(point.hostMs, previous?.hostMs);
  const cells = [
    point.provider,
    point.dimension.name,
    sizeLabel(point.dimension, point.size),
    fixed(point.wallMs, 1),
    fixed(point.hostMs, 1),
    perUnit,
    wallGrowth === undefined ? '–' : `${wallGrowth.toFixed(1)}×`,
    hostGrowth === undefined ? '–' : `${hostGrowth.toFixed(1)}×`,
    point.runs === undefined ? '–' : String(point.runs),
    point.note ?? '',
  ];
  return `| ${cells.join(' | ')} |`;
}

/** Growth per 10× at or above this, where the run took long enough to be more than fixed cost, is called superlinear. */
const superlinearGrowth = 20;
const superlinearFloorMs = 50;

/** When, on what and at which commit the figures were taken. */
function environment(): string {
  return `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')} at the end; ${codeVersion()}.`;
}

function report(): string {
  const lines = [
    '# Sluice scaling',
    '',
    `${environment()} Budget ${budgetMs / 1000} s a run.`,
    '',
    'One run per size (the median of up to 5 for quick ones). wall: caller-seen ms. host busy: ms the host’s main thread was busy during the run (event-loop utilisation), the host-side cost. Growth: the time against the previous, 10× smaller size — about 10× is linear, about 100× quadratic; at small sizes the fixed cost of a run dominates and growth stays near 1×. Fan-out keeps `concurrentHostCalls` at its default of 16, so the calls queue in the run controller.',
    '',
    '| provider | dimension | size | wall ms | host busy ms | wall per unit | wall growth /10× | host growth /10× | runs | note |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  let previous: ScalePoint | undefined;
  const superlinear: string[] = [];
  for (const point of points) {
    const before = previous?.dimension === point.dimension ? previous : undefined;
    lines.push(formatRow(point, before));
    for (const [label, now, then] of [
      ['wall', point.wallMs, before?.wallMs],
      ['host busy', point.hostMs, before?.hostMs],
    ] as const) {
      const ratio = growth(now, then);
      if (ratio !== undefined && ratio >= superlinearGrowth && (now ?? 0) >= superlinearFloorMs) {
        superlinear.push(
          `- ${point.provider}, ${point.dimension.name}: ${label} ${fixed(then, 1)} → ${fixed(now, 1)} ms from ${sizeLabel(point.dimension, before!.size)} to ${sizeLabel(point.dimension, point.size)} (${ratio.toFixed(1)}× for 10×)`,
        );
      }
    }
    previous = point;
  }
  lines.push('', `## Superlinear (growth ≥ ${superlinearGrowth}× per 10×, at ≥ ${superlinearFloorMs} ms)`, '');
  lines.push(...(superlinear.length === 0 ? ['- none'] : superlinear));
  const notRun = points.filter((point) => point.note !== undefined);
  if (notRun.length > 0) {
    lines.push('', '## Not measured', '');
    for (const point of notRun) {
      lines.push(
        `- ${point.provider}, ${point.dimension.name}, ${sizeLabel(point.dimension, point.size)}: ${point.note}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

await measureAll();
let declarationPoints: DeclarationsPoint[] = [];
if (declarations) {
  console.log('| language | catalogue | tools | wall ms | CPU ms |');
  declarationPoints = measureDeclarations(
    ['typescript', 'python'],
    quick ? declarationsSizes.slice(0, -1) : declarationsSizes,
    (point) =>
      console.log(
        `| ${point.language} | ${point.catalogue} | ${point.tools} | ${point.medianMs.toFixed(1)} | ${point.medianCpuMs.toFixed(1)} |`,
      ),
  );
}
const resultsDir = join(import.meta.dirname, '..', 'results');
const resultsFile = join(resultsDir, 'scale.md');
// A part not measured this time keeps its table from the last run.
const previous = existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : '';
const cut = previous.indexOf(declarationsHeading);
const runsText = providers.length > 0 ? report() : cut === -1 ? previous : previous.slice(0, cut);
const declarationsText = declarations
  ? declarationsSection(declarationPoints, environment())
  : cut === -1
    ? ''
    : previous.slice(cut);
const text = [runsText.trimEnd(), declarationsText.trimEnd()].filter((part) => part !== '').join('\n\n');
console.log(`\n${text}`);
mkdirSync(resultsDir, { recursive: true });
writeFileSync(resultsFile, `${text}\n`);
console.log(`scale: wrote ${join('packages', 'bench', 'results', 'scale.md')}`);
process.exit(0);
