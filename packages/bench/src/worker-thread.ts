import type { HostFunction } from '@sluice/code-runtime';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
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
import { descendants, proportionalMb } from './process-probe.js';

/** `@sluice/code-runtime-worker-thread`, cached and uncached TypeScript strip, with its default pool. */
export const suite: BenchSuite = {
  name: 'worker-thread',
  async measure(scale) {
    const count = Math.max(20, Math.round(500 * scale));
    const total = Math.max(40, Math.round(1000 * scale));
    const runtime = createWorkerThreadCodeRuntime();
    // What is measured, in the provider's own words: the substrate clause of its isolation sentence.
    const substrate = runtime.isolation.split(/[,;]/)[0]?.replace(/^Each run gets /, '') ?? '';
    const once = (unique: boolean) => async (index: number) => {
      // A different comment per run defeats the compile cache: esbuild runs every time.
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
        substrate: 'worker-thread (TS strip each run)',
        ...uncached,
        runsPerSecond: uncachedThroughput,
        ...kill,
        roundTripMs,
        rssPerLiveRunMb,
        note: `${substrate}; default pool of 4; TS strip on every run`,
      },
      {
        substrate: 'worker-thread (compiled program cached)',
        ...cached,
        runsPerSecond: cachedThroughput,
        note: 'same program text again: the stripped program is reused',
      },
      {
        substrate: `worker-thread, runs ${spacedGapMs} ms apart (TS strip each run)`,
        ...spaced,
        note: 'what an agent running one new program per turn sees: every thread the run wakes was idle',
      },
    ] satisfies BenchRow[];
  },
};

async function roundTrip(runtime: ReturnType<typeof createWorkerThreadCodeRuntime>, scale: number): Promise<number> {
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

async function killLatency(scale: number): Promise<{ killP50Ms: number; killP95Ms: number }> {
  const deadlineMs = 50;
  const runtime = createWorkerThreadCodeRuntime({ wallTimeMs: deadlineMs, poolSize: 2 });
  const program = 'await tools.echo(1);\nwhile (true) {}';
  await runtime.run({ program: 'return 1;' });
  const samples: number[] = [];
  for (let trial = 0; trial < Math.max(8, Math.round(40 * scale)); trial += 1) {
    const start = performance.now();
    const result = await runtime.run({ program, bindings: echoBindings });
    if (result.ok || result.failure.kind !== 'timeout') throw new Error('bench: the loop was not stopped as a timeout');
    await runtime.quiet();
    samples.push(performance.now() - (start + deadlineMs));
    // Let the pool finish starting the replacement, so the next kill is measured on its own.
    await pause(250);
  }
  await runtime.dispose();
  return { killP50Ms: percentile(samples, 50), killP95Ms: percentile(samples, 95) };
}

async function livingMemory(): Promise<number> {
  const live = 16;
  await pause(200);
  const before = residentMb();
  const existing = new Set(descendants(process.pid));
  const runtime = createWorkerThreadCodeRuntime({ poolSize: live });
  const hold: HostFunction = () => new Promise(() => {});
  const runs = Array.from({ length: live }, () =>
    runtime.start({ program: 'await tools.hold(null);', bindings: { tools: { hold } } }),
  );
  await pause(1500);
  const after = residentMb();
  // Substrate processes the provider started (none while the workers ran in the host's process).
  const substrate = descendants(process.pid)
    .filter((pid) => !existing.has(pid))
    .reduce((sum, pid) => sum + proportionalMb(pid), 0);
  for (const run of runs) run.cancel('benchmark done');
  await runtime.dispose();
  return (after - before + substrate) / live;
}
