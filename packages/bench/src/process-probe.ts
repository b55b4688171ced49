// Samples the host process and the processes below it through /proc (Linux): for the soak and the memory figures.
import { readdirSync, readFileSync } from 'node:fs';

/** What the host process holds at one moment. */
export interface SoakSample {
  /** Runs settled when the sample was taken. */
  readonly settled: number;
  readonly rssMb: number;
  /** Open file descriptors (`/proc/self/fd`). */
  readonly fds: number;
  /** Threads of the host process (`/proc/self/task`). */
  readonly threads: number;
  /** Processes descending from the host (children, their children, zombies included). */
  readonly children: number;
}

const count = (directory: string) => {
  try {
    return readdirSync(directory).length;
  } catch {
    return Number.NaN;
  }
};

/** The parent pid in `/proc/<pid>/stat`, read after the command name (which may hold spaces and parentheses). */
function parentOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Processes below `root` in the process tree (zombies included), walked without recursion. */
export function descendants(root: number): number[] {
  const childrenOf = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(entry);
    if (parent === undefined) continue;
    const siblings = childrenOf.get(parent) ?? [];
    siblings.push(Number(entry));
    childrenOf.set(parent, siblings);
  }
  const found: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    for (const child of childrenOf.get(stack.pop()!) ?? []) {
      found.push(child);
      stack.push(child);
    }
  }
  return found;
}

/** Proportional set size of a process in MiB: its share of pages shared with the zygote and siblings. */
export function proportionalMb(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match === null ? 0 : Number(match[1]) / 1024;
  } catch {
    return 0;
  }
}

/** Samples this process: RSS, fds, threads and descendant processes. */
export function sampleHost(settled: number): SoakSample {
  return {
    settled,
    rssMb: process.memoryUsage.rss() / (1024 * 1024),
    fds: count('/proc/self/fd'),
    threads: count('/proc/self/task'),
    children: descendants(process.pid).length,
  };
}

/** Median of `values` (NaN for none). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** One sampled figure over the soak, checked against its bound. */
export interface SoakTrend {
  readonly name: keyof Omit<SoakSample, 'settled'>;
  readonly first: number;
  readonly last: number;
  readonly max: number;
  /** Median of the samples in the second quarter of the soak: the level after warm-up. */
  readonly settledLevel: number;
  readonly bound: number;
  readonly ok: boolean;
}

/**
 * The last sample of each figure against a bound from the second quarter's median: counts may end
 * at most 1.5× (or 4 more) than that level; RSS at most 2× plus 128 MiB, as the allocator keeps pages.
 */
export function trends(samples: readonly SoakSample[]): SoakTrend[] {
  const quarter = Math.max(1, Math.floor(samples.length / 4));
  const second = samples.slice(quarter, Math.max(quarter + 1, 2 * quarter));
  return (['rssMb', 'fds', 'threads', 'children'] as const).map((name) => {
    const values = samples.map((sample) => sample[name]);
    const level = median(second.map((sample) => sample[name]));
    const bound = name === 'rssMb' ? 2 * level + 128 : Math.max(1.5 * level, level + 4);
    const last = values.at(-1) ?? Number.NaN;
    return {
      name,
      first: values[0] ?? Number.NaN,
      last,
      max: Math.max(...values),
      settledLevel: level,
      bound,
      ok: last <= bound,
    };
  });
}
