import type { HostFunction } from '@sluice/code-runtime';
import { createQuickJsCodeRuntime, type QuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import {
  type BenchRow,
  type BenchSuite,
  benchProgram,
  echoBindings,
  pause,
  percentile,
  residentMb,
  runChecked,
  sequentialLatency,
  spacedGapMs,
  spacedLatency,
  throughputs,
} from './bench-harness.js';

/** Row names, read by `quickjs-report.ts`. */
export const quickJsRows = {
  uncached: 'quickjs provider (TS strip each run)',
  cached: 'quickjs provider (compiled program cached)',
  spaced: `quickjs provider, runs ${spacedGapMs} ms apart (TS strip each run)`,
} as const;

/**
 * `@sluice/code-runtime-quickjs` with its default pool of 4 threads, the same program and the same
 * columns as the worker-thread suite: uncached (TypeScript strip every run) and cached rows.
 */
export const suite: BenchSuite = {
  name: 'quickjs',
  async measure(scale) {
    const count = Math.max(20, Math.round(500 * scale));
    const total = Math.max(40, Math.round(1000 * scale));
    const runtime = createQuickJsCodeRuntime();
    const once = (unique: boolean) => async (index: number) => {
      // A different comment per run defeats the compile cache: the strip runs every time.
      const program = unique ? `// run ${index} ${Math.random()}\n${benchProgram}` : benchProgram;
      await runChecked(runtime, program);
    };
    const uncached = await sequentialLatency(once(true), 50, count);
    const spaced = await spacedLatency(once(true), Math.max(20, Math.round(200 * scale)));
    const uncachedThroughput = await throughputs(once(true), total);
    const cached = await sequentialLatency(once(false), 50, count);
    const cachedThroughput = await throughputs(once(false), total);
    const roundTripMs = await roundTrip(runtime, scale);
    await runtime.dispose();
    const kill = await killLatency(scale);
    const rssPerLiveRunMb = await livingMemory();
    return [
      {
        substrate: quickJsRows.uncached,
        ...uncached,
        runsPerSecond: uncachedThroughput,
        ...kill,
        roundTripMs,
        rssPerLiveRunMb,
        note: 'fresh QuickJS-ng runtime per run in a pooled worker thread of the host; default pool of 4; TS strip on every run; kill = deadline to the thread free for the next run; memory = 16 runs held on 16 threads',
      },
      {
        substrate: quickJsRows.cached,
        ...cached,
        runsPerSecond: cachedThroughput,
        note: 'same program text again: the stripped program is reused',
      },
      {
        substrate: quickJsRows.spaced,
        ...spaced,
        note: 'what an agent running one new program per turn sees: every thread the run wakes was idle',
      },
    ] satisfies BenchRow[];
  },
};

async function roundTrip(runtime: QuickJsCodeRuntime, scale: number): Promise<number> {
  const calls = 200;
  const many = `for (let index = 0; index < ${calls}; index += 1) await tools.echo(index);\nreturn 1;`;
  const none = 'return 1;';
  const samples: number[] = [];
  for (let trial = 0; trial < Math.max(5, Math.round(30 * scale)); trial += 1) {
    const startMany = performance.now();
    await runtime.run({ program: many, bindings: echoBindings });
    const manyMs = performance.now() - startMany;
    const startNone = performance.now();
    await runtime.run({ program: none, bindings: echoBindings });
    const noneMs = performance.now() - startNone;
    samples.push((manyMs - noneMs) / calls);
  }
  return percentile(samples, 50);
}

/**
 * The provider has no public "substrate stopped" signal, so with one thread the kill is read as the
 * time from the deadline until a trivial run that queued behind the runaway one has finished, less a
 * trivial run's own p50 measured just before.
 */
async function killLatency(scale: number): Promise<{ killP50Ms: number; killP95Ms: number }> {
  const deadlineMs = 50;
  const runtime = createQuickJsCodeRuntime({ wallTimeMs: deadlineMs, poolSize: 1 });
  const runaway = 'await tools.echo(1);\nwhile (true) {}';
  const trivial = async () => {
    const result = await runtime.run({ program: 'return 1;' });
    if (!result.ok) throw new Error('bench: a trivial QuickJS run failed');
  };
  // The first runs load the module and the TypeScript parser, longer than the 50 ms wall clock.
  for (let ok = 0, tries = 0; ok < 20 && tries < 500; tries += 1) {
    if ((await runtime.run({ program: 'return 1;' })).ok) ok += 1;
    else await pause(20);
  }
  const baseline: number[] = [];
  for (let index = 0; index < 20; index += 1) {
    const start = performance.now();
    await trivial();
    baseline.push(performance.now() - start);
  }
  const trivialMs = percentile(baseline, 50);
  const samples: number[] = [];
  for (let trial = 0; trial < Math.max(8, Math.round(40 * scale)); trial += 1) {
    const start = performance.now();
    const result = await runtime.run({ program: runaway, bindings: echoBindings });
    if (result.ok || result.failure.kind !== 'timeout') throw new Error('bench: the loop was not stopped as a timeout');
    await trivial();
    samples.push(Math.max(0, performance.now() - (start + deadlineMs) - trivialMs));
    await pause(50);
  }
  await runtime.dispose();
  return { killP50Ms: percentile(samples, 50), killP95Ms: percentile(samples, 95) };
}

async function livingMemory(): Promise<number> {
  const live = 16;
  await pause(200);
  const before = residentMb();
  const runtime = createQuickJsCodeRuntime({ poolSize: live });
  let holding = 0;
  const hold: HostFunction = () => {
    holding += 1;
    return new Promise(() => {});
  };
  const runs = Array.from({ length: live }, () =>
    runtime.start({ program: 'await tools.hold(null);', bindings: { tools: { hold } } }),
  );
  // Every thread has started (module instantiated) and every run is parked on its call.
  for (let waited = 0; holding < live && waited < 60_000; waited += 50) await pause(50);
  if (holding < live) throw new Error(`bench: only ${holding} of ${live} QuickJS runs reached their host call`);
  await pause(500);
  const after = residentMb();
  for (const run of runs) run.cancel('benchmark done');
  await runtime.dispose();
  return (after - before) / live;
}
