// `pnpm --filter @sluice/bench program-size`: what a large program costs. The Python compile step
// alone, module level (as Sluice compiles now) against the old `async def` wrapper, in a plain
// interpreter; then `runtime.run({ program })` end to end on both providers; sizes 10 KB to just
// under the default source limit, side by side in one run. Writes results/program-size.md.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import type { CodeRuntime } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { codeVersion, commandOptions, echoBindings, percentile } from './bench-harness.js';
import {
  defaultSourceLimit,
  type GeneratedProgram,
  generateProgram,
  type ProgramSize,
  programSizes,
  tagged,
} from './program-size-cases.js';

type Provider = 'python' | 'worker-thread';

// pnpm passes its `--` separator through.
const argv = process.argv.slice(2).filter((argument) => argument !== '--');
const options = commandOptions(argv);
const quick = options.quick === 'true';
const providers = (options.only?.split(',') ?? ['python', 'worker-thread']) as Provider[];
/** Timed compiles of each kind per size, and timed runs per size and provider. */
const compileRepetitions = Number(options.repetitions ?? (quick ? 3 : 9));
const runRepetitions = Number(options.runs ?? (quick ? 3 : 7));
const pythonExecutable = process.env.SLUICE_PYTHON_EXECUTABLE ?? 'python3';
const packageDir = join(import.meta.dirname, '..');
const pythonDir = join(
  dirname(createRequire(import.meta.url).resolve('@sluice/code-runtime-python/package.json')),
  'python',
);

const programs = {
  python: programSizes.map((size) => generateProgram('python', size.bytes)),
  typescript: programSizes.map((size) => generateProgram('typescript', size.bytes)),
};

const median = (values: readonly number[]) => (values.length === 0 ? undefined : percentile(values, 50));
const gc = () => (globalThis as { gc?: () => void }).gc?.();

// --- The compile step alone -------------------------------------------------------------------

/** Text compiled at module level and as a wrapper's body; the provider's `compile_program` now and as it was. */
type CompileKind = 'module' | 'wrapper' | 'sluice' | 'sluice_wrapper';
const compileKinds: readonly CompileKind[] = ['module', 'wrapper', 'sluice', 'sluice_wrapper'];

interface CompilePoint {
  readonly size: ProgramSize;
  readonly program: GeneratedProgram;
  readonly wallMs: Record<CompileKind, number | undefined>;
  readonly cpuMs: Record<CompileKind, number | undefined>;
}

interface CompileOutcome {
  readonly python?: string;
  readonly points: CompilePoint[];
  readonly note?: string;
}

function measureCompiles(): CompileOutcome {
  console.log(`program-size: compiling each Python program ${compileRepetitions}× four ways in ${pythonExecutable}`);
  const request = {
    pythonDir,
    repetitions: compileRepetitions,
    programs: programSizes.map((size, index) => ({ label: size.label, source: programs.python[index]!.source })),
  };
  const child = spawnSync(pythonExecutable, ['-I', '-S', join(import.meta.dirname, 'program_size_compile.py')], {
    input: JSON.stringify(request),
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.status !== 0 || child.error !== undefined) {
    const why = child.error?.message ?? `${child.signal ?? `exit ${child.status}`}: ${child.stderr.slice(-300)}`;
    return { points: [], note: `the compile step was not measured: ${why}` };
  }
  const reply = JSON.parse(child.stdout) as {
    python: string;
    programs: { label: string; wallMs: Record<CompileKind, number[]>; cpuMs: Record<CompileKind, number[]> }[];
  };
  const points = reply.programs.map((measured, index) => {
    const summary = (samples: Record<CompileKind, number[]>) =>
      Object.fromEntries(compileKinds.map((kind) => [kind, median(samples[kind])])) as Record<
        CompileKind,
        number | undefined
      >;
    return {
      size: programSizes[index]!,
      program: programs.python[index]!,
      wallMs: summary(measured.wallMs),
      cpuMs: summary(measured.cpuMs),
    };
  });
  return { python: reply.python, points };
}

// --- End to end ---------------------------------------------------------------------------------

interface RunPoint {
  readonly provider: Provider;
  /** Whether every timed run had the same source, so the worker-thread provider's compiled program was cached. */
  readonly cached: boolean;
  readonly size: ProgramSize;
  readonly program: GeneratedProgram;
  readonly wallMs?: number;
  /** Time the host's main thread was busy during the run (event-loop utilisation). */
  readonly hostMs?: number;
  /** `result.usage.cpuMs`, when the provider reports it. */
  readonly cpuMs?: number;
  readonly runs: number;
  /** Every timed run's wall ms, in order (printed to the console, not the report). */
  readonly samples?: readonly number[];
  readonly note?: string;
}

let runCounter = 0;

async function measureRuns(
  provider: Provider,
  runtime: CodeRuntime,
  size: ProgramSize,
  program: GeneratedProgram,
  cached: boolean,
): Promise<RunPoint> {
  const walls: number[] = [];
  const hosts: number[] = [];
  const cpuTimes: number[] = [];
  const source = () => {
    runCounter += 1;
    return tagged(program, cached ? 'the same source every run' : `run ${runCounter}`);
  };
  // A cached row runs its source once untimed, so every timed run finds the compiled program.
  if (cached) await runtime.run({ program: source(), bindings: echoBindings });
  for (let index = 0; index < runRepetitions; index += 1) {
    const text = source();
    gc();
    const loopBefore = performance.eventLoopUtilization();
    const start = performance.now();
    const result = await runtime.run({ program: text, bindings: echoBindings });
    const wallMs = performance.now() - start;
    const hostMs = performance.eventLoopUtilization(loopBefore).active;
    if (!result.ok) {
      const note = `FAILED ${result.failure.kind}: ${result.failure.message.slice(0, 160)}`;
      return { provider, cached, size, program, runs: walls.length, note };
    }
    if (result.value !== program.expected) {
      const note = `FAILED: returned ${JSON.stringify(result.value)?.slice(0, 60)}, expected ${program.expected}`;
      return { provider, cached, size, program, runs: walls.length, note };
    }
    walls.push(wallMs);
    hosts.push(hostMs);
    if (result.usage.cpuMs !== undefined) cpuTimes.push(result.usage.cpuMs);
  }
  return {
    provider,
    cached,
    size,
    program,
    wallMs: median(walls),
    hostMs: median(hosts),
    cpuMs: median(cpuTimes),
    runs: walls.length,
    samples: walls,
  };
}

async function measureProvider(provider: Provider): Promise<RunPoint[]> {
  // Default settings: the default source limit is the point; the wall clock is raised so a slow
  // machine reports a time rather than a timeout.
  const runtime: CodeRuntime =
    provider === 'python'
      ? createPythonCodeRuntime({ wallTimeMs: 120_000 })
      : createWorkerThreadCodeRuntime({ wallTimeMs: 120_000 });
  const sources = provider === 'python' ? programs.python : programs.typescript;
  const points: RunPoint[] = [];
  try {
    // Warm-up: the substrate starts, and the worker-thread host loads the TypeScript parser.
    for (let index = 0; index < 3; index += 1) await runtime.run({ program: 'return 1', bindings: echoBindings });
    await runtime.run({ program: tagged(sources[0]!, 'warm-up'), bindings: echoBindings });
    const rows = provider === 'worker-thread' ? [false, true] : [false];
    for (const cached of rows) {
      for (const [index, size] of programSizes.entries()) {
        const point = await measureRuns(provider, runtime, size, sources[index]!, cached);
        console.log(
          `program-size: ${runLabel(point)}, ${size.label}: ${point.note ?? `${fixed(point.wallMs)} ms wall (median of ${point.samples?.map((value) => value.toFixed(0)).join(', ')})`}`,
        );
        points.push(point);
      }
    }
  } finally {
    await runtime.dispose();
  }
  return points;
}

// --- Report -------------------------------------------------------------------------------------

const fixed = (value: number | undefined, digits = 1) => (value === undefined ? '–' : value.toFixed(digits));
const times = (value: number | undefined) =>
  value === undefined || !Number.isFinite(value) ? '–' : `${value.toFixed(2)}×`;
const ratio = (top: number | undefined, bottom: number | undefined) =>
  top === undefined || bottom === undefined || bottom <= 0 ? undefined : top / bottom;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function runLabel(point: RunPoint): string {
  if (point.provider === 'python') return 'python';
  return point.cached ? 'worker-thread, same source again (compile cached)' : 'worker-thread, new source each run';
}

function compileTable(outcome: CompileOutcome): string[] {
  if (outcome.points.length === 0) return [`Not measured: ${outcome.note ?? 'no figures'}.`];
  const cell = (point: CompilePoint, kind: CompileKind) => `${fixed(point.wallMs[kind])} (${fixed(point.cpuMs[kind])})`;
  const against = (point: CompilePoint, old: CompileKind, now: CompileKind) =>
    `**${times(ratio(point.wallMs[old], point.wallMs[now]))}** (${times(ratio(point.cpuMs[old], point.cpuMs[now]))})`;
  const lines = [
    `Plain \`${pythonExecutable} -I -S\` (CPython ${outcome.python}), no Sluice process around it: \`src/program_size_compile.py\`. Median of ${compileRepetitions} compiles of each kind, the kinds taking turns, the garbage collector off during each; wall ms, CPU ms in brackets; ratios old ÷ now, wall (CPU).`,
    '',
    '- **module level** (now): `compile(source, flags=PyCF_ALLOW_TOP_LEVEL_AWAIT)`. **old wrapper**: the same source indented as the body of `async def __program():` and compiled.',
    "- **compile_program** (now): the provider's own `sluice_program.compile_program` (parse to a tree, the top-level rewrite, compile of the tree). **old compile_program**: the provider's compile before the change, redone in the script: parse, top-level returns rewritten, the statements moved into `async def __program__():` on the tree, locations filled in, compile of the tree.",
    '',
    '| size | bytes | lines | top-level names | nested scopes | module level ms | old wrapper ms | old ÷ now | compile_program ms | old compile_program ms | old ÷ now |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const point of outcome.points) {
    const program = point.program;
    lines.push(
      `| ${point.size.label} | ${program.bytes} | ${program.lines} | ${program.topLevelNames} | ${program.nestedScopes} | ${cell(point, 'module')} | ${cell(point, 'wrapper')} | ${against(point, 'wrapper', 'module')} | ${cell(point, 'sluice')} | ${cell(point, 'sluice_wrapper')} | ${against(point, 'sluice_wrapper', 'sluice')} |`,
    );
  }
  lines.push(
    '',
    'Growth against the smaller size (CPU ms, steadier than wall on a shared machine). Linear growth is the size ratio; quadratic, its square.',
    '',
    '| from → to | bytes × | linear would be | quadratic would be | module level | old wrapper | compile_program | old compile_program |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (let index = 1; index < outcome.points.length; index += 1) {
    const before = outcome.points[index - 1]!;
    const after = outcome.points[index]!;
    const bytes = after.program.bytes / before.program.bytes;
    const cells = compileKinds.map((kind) => times(ratio(after.cpuMs[kind], before.cpuMs[kind])));
    lines.push(
      `| ${before.size.label} → ${after.size.label} | ${bytes.toFixed(2)} | ${times(bytes)} | ${times(bytes * bytes)} | ${cells.join(' | ')} |`,
    );
  }
  return lines;
}

function runTable(points: readonly RunPoint[]): string[] {
  const lines = [
    `\`runtime.run({ program })\`, caller-seen wall time, median of ${runRepetitions} runs after a warm-up, default settings but a 120 s wall clock; every run's value is checked. host busy: ms the host's main thread was busy during the run (event-loop utilisation; the worker-thread provider prepares TypeScript in its compile thread, off that thread). cpuMs: \`result.usage.cpuMs\`, median, when the provider reports it. Each run's source starts with a comment line naming the run, so no compiled program is reused, except in the rows that say so.`,
    '',
    '| provider | size | bytes | wall ms | host busy ms | usage.cpuMs | growth against the smaller size | runs | note |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [index, point] of points.entries()) {
    const before = points[index - 1];
    const growth =
      before !== undefined && before.provider === point.provider && before.cached === point.cached
        ? ratio(point.wallMs, before.wallMs)
        : undefined;
    lines.push(
      `| ${runLabel(point)} | ${point.size.label} | ${point.program.bytes} | ${fixed(point.wallMs)} | ${fixed(point.hostMs)} | ${fixed(point.cpuMs)} | ${times(growth)} | ${point.runs} | ${point.note ?? ''} |`,
    );
  }
  return lines;
}

function summary(outcome: CompileOutcome, points: readonly RunPoint[]): string[] {
  const lines: string[] = [];
  const find = (provider: Provider, cached: boolean, size: ProgramSize) =>
    points.find((point) => point.provider === provider && point.cached === cached && point.size === size);
  for (const size of programSizes) {
    const compile = outcome.points.find((point) => point.size === size);
    const python = find('python', false, size);
    const typescript = find('worker-thread', false, size);
    const cached = find('worker-thread', true, size);
    const parts: string[] = [];
    if (compile !== undefined) {
      const { wallMs: wall, cpuMs: cpu } = compile;
      parts.push(
        `Python compile, old wrapper ÷ module level ${times(ratio(wall.wrapper, wall.module))} wall, ${times(ratio(cpu.wrapper, cpu.module))} CPU (${fixed(cpu.wrapper)} vs ${fixed(cpu.module)} CPU ms)`,
        `old compile_program ÷ compile_program ${times(ratio(wall.sluice_wrapper, wall.sluice))} wall, ${times(ratio(cpu.sluice_wrapper, cpu.sluice))} CPU (${fixed(cpu.sluice_wrapper)} vs ${fixed(cpu.sluice)} CPU ms)`,
      );
      if (python?.cpuMs !== undefined) {
        const extra = (cpu.sluice_wrapper ?? Number.NaN) - (cpu.sluice ?? Number.NaN);
        parts.push(
          `compile_program is ${fixed(((cpu.sluice ?? Number.NaN) / python.cpuMs) * 100, 0)} % of the Python run's ${fixed(python.cpuMs)} CPU ms; the old compile would add about ${fixed(extra)} CPU ms (${times((python.cpuMs + extra) / python.cpuMs)} the run's CPU)`,
        );
      }
    }
    if (python?.wallMs !== undefined && typescript?.wallMs !== undefined) {
      parts.push(
        `end to end Python ÷ TypeScript ${times(ratio(python.wallMs, typescript.wallMs))} (${fixed(python.wallMs)} vs ${fixed(typescript.wallMs)} ms)`,
      );
    }
    if (typescript?.wallMs !== undefined && cached?.wallMs !== undefined) {
      parts.push(
        `TypeScript new source ÷ compile cached ${times(ratio(typescript.wallMs, cached.wallMs))} (${fixed(typescript.wallMs)} vs ${fixed(cached.wallMs)} ms)`,
      );
    }
    if (parts.length > 0) lines.push(`- ${size.label}: ${parts.join('; ')}.`);
  }
  return lines.length === 0 ? ['- no figures'] : lines;
}

function describePrograms(): string {
  const describe = (list: readonly GeneratedProgram[]) =>
    list
      .map(
        (program, index) =>
          `${programSizes[index]!.label}: ${kib(program.bytes)}, ${program.helpers} helpers, ${program.classes} classes`,
      )
      .join('; ');
  return `Programs (\`src/program-size-cases.ts\`): blocks of three top-level constants, a helper function with a list comprehension, a dict comprehension (Python) or array callbacks (TypeScript) and a lambda or arrow, all reading the block's constants, and a call adding to a running total; a class every 20 blocks; one host call (\`tools.echo(total)\`) at the end, its answer the value (Python: the final expression; TypeScript: \`return\`). Each size is filled with whole blocks up to ${programSizes.map((size) => size.bytes).join(', ')} bytes less 64 for the run's comment line; the default source limit is ${defaultSourceLimit} bytes. Python — ${describe(programs.python)}. TypeScript — ${describe(programs.typescript)}.`;
}

function report(outcome: CompileOutcome, points: readonly RunPoint[]): string {
  const args = argv.length === 0 ? '' : ` ${argv.join(' ')}`;
  // Through the package script (which builds first), or the script alone from packages/bench.
  const command =
    process.env.npm_lifecycle_event === 'program-size'
      ? `npx pnpm --filter @sluice/bench program-size${args === '' ? '' : ` --${args}`}`
      : `node --expose-gc --import tsx src/program-size-run.ts${args}\` in packages/bench, after \`npx turbo run build --filter=@sluice/bench^...`;
  return `${[
    `# Sluice program size, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(
        ' ',
      )} at the end; ${codeVersion()}; Python ${outcome.python ?? 'unknown'} (\`${pythonExecutable}\`). Command: \`${command}\`.`,
    '',
    describePrograms(),
    '',
    '## Python: the compile step alone',
    '',
    ...compileTable(outcome),
    '',
    '## End to end',
    '',
    ...runTable(points),
    '',
    '## Ratios',
    '',
    ...summary(outcome, points),
  ].join('\n')}\n`;
}

const outcome = measureCompiles();
if (outcome.note !== undefined) console.log(`program-size: ${outcome.note}`);
const points: RunPoint[] = [];
for (const provider of providers) points.push(...(await measureProvider(provider)));
const text = report(outcome, points);
console.log(`\n${text}`);
const resultsDir = join(packageDir, 'results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'program-size.md'), text);
console.log(`program-size: wrote ${join('packages', 'bench', 'results', 'program-size.md')}`);
process.exit(0);
