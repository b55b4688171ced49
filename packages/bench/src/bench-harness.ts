import { execFileSync } from 'node:child_process';
import type { CodeRuntime, HostFunction } from '@sluice/code-runtime';
/** One substrate's measurements. A field a substrate cannot offer is absent and shown as `–`. */
export interface BenchRow {
  readonly substrate: string;
  /** Sequential latency of the one-host-call program, caller-seen. */
  readonly p50Ms?: number;
  readonly p95Ms?: number;
  /** Sustained runs per second with 1, 2 and 8 callers at once. */
  readonly runsPerSecond?: { readonly c1: number; readonly c2: number; readonly c8: number };
  /** From the deadline to the runaway program's substrate confirmed dead. */
  readonly killP50Ms?: number;
  readonly killP95Ms?: number;
  /** One host call and its reply, measured inside a run that makes many. */
  readonly roundTripMs?: number;
  /** Resident memory per run that is alive (waiting on its host call), in MiB. */
  readonly rssPerLiveRunMb?: number;
  readonly note?: string;
}

/** A benchmark suite: one module under `src/`, listed in `bench-suites.ts`, run in its own process. */
export interface BenchSuite {
  readonly name: string;
  /** Measures and returns rows; `scale` multiplies run counts (1 = the full benchmark). */
  measure(scale: number): Promise<BenchRow[]>;
}

/** The program every substrate runs: one host call, one log line, a value. The harness checks both. */
export const benchProgram = 'const r = await tools.echo({ x: 1 });\nconsole.log(r.x);\nreturn r.x + 1;';

/** Nearest-rank percentile of `values` (0 < p ≤ 100). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

/** Runs `once` sequentially: `warmup` runs untimed, then `count` timed runs. */
export async function sequentialLatency(
  once: (index: number) => Promise<void>,
  warmup: number,
  count: number,
): Promise<{ p50Ms: number; p95Ms: number }> {
  for (let index = 0; index < warmup; index += 1) await once(index);
  const times: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const start = performance.now();
    await once(warmup + index);
    times.push(performance.now() - start);
  }
  return { p50Ms: percentile(times, 50), p95Ms: percentile(times, 95) };
}

/** How far apart {@link spacedLatency} starts runs: long enough for every thread to go idle. */
export const spacedGapMs = 20;

/**
 * Latency of runs started {@link spacedGapMs} apart, as an agent that runs one program per model
 * turn sees it: every thread the run wakes has gone idle. On a virtual machine each such wake-up
 * costs more than a hop between busy threads (the `anchor: thread round trip` row measures both).
 */
export async function spacedLatency(
  once: (index: number) => Promise<void>,
  count: number,
): Promise<{ p50Ms: number; p95Ms: number }> {
  const times: number[] = [];
  for (let index = 0; index < count; index += 1) {
    await pause(spacedGapMs);
    const start = performance.now();
    await once(index);
    times.push(performance.now() - start);
  }
  return { p50Ms: percentile(times, 50), p95Ms: percentile(times, 95) };
}

/** Sustained runs per second with `concurrency` callers sharing `total` runs. */
export async function throughput(
  once: (index: number) => Promise<void>,
  concurrency: number,
  total: number,
): Promise<number> {
  let next = 0;
  const start = performance.now();
  const caller = async () => {
    while (next < total) {
      const index = next;
      next += 1;
      await once(index);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  return (total / (performance.now() - start)) * 1000;
}

/** Runs per second at 1, 2 and 8 callers. */
export async function throughputs(
  once: (index: number) => Promise<void>,
  total: number,
): Promise<{ c1: number; c2: number; c8: number }> {
  return {
    c1: await throughput(once, 1, Math.ceil(total / 2)),
    c2: await throughput(once, 2, total),
    c8: await throughput(once, 8, total),
  };
}

/** Resident set size in MiB, after a full collection when `--expose-gc` is on. */
export function residentMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage.rss() / (1024 * 1024);
}

/** Throws unless a run produced exactly the expected value and log line. */
export function checkOutput(value: unknown, logs: readonly string[]): void {
  if (value !== 2 || logs.length !== 1 || logs[0] !== '1') {
    throw new Error(`bench: wrong output: value ${JSON.stringify(value)}, logs ${JSON.stringify(logs)}`);
  }
}

/** The one host function every bench program calls: it answers with its input. */
export const echoBindings = { tools: { echo: (async (input) => input) satisfies HostFunction } };

/** Runs `program` with {@link echoBindings} and checks it printed `1` and returned `2`, success or not. */
export async function runChecked(runtime: CodeRuntime, program: string): Promise<void> {
  const result = await runtime.run({ program, bindings: echoBindings });
  checkOutput(
    result.ok ? result.value : result.failure,
    result.logs.map((entry) => entry.text),
  );
}

export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `--name=value` and bare `--flag` (read as `'true'`) arguments as an object. */
export function commandOptions(argv: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    argv.map((argument) => {
      const [key, value] = argument.replace(/^--/, '').split('=');
      return [key, value ?? 'true'];
    }),
  );
}

/** The commit measured, and whether the working tree differed from it (its builds are what ran). */
export function codeVersion(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '../..'], {
      encoding: 'utf8',
    });
    return changed.trim() === '' ? `commit ${commit}` : `commit ${commit} with uncommitted changes`;
  } catch {
    return 'commit unknown';
  }
}
