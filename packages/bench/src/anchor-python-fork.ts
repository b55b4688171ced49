import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type BenchSuite, percentile } from './bench-harness.js';

// Anchor: the fork floor. A CPython that has loaded what the provider's zygote loads forks children
// that exit at once, and reaps them (python_fork_floor.py). No fork-per-run provider can start runs
// faster than this on the same machine, so the Python rows are read against it: on a virtual machine
// whose page faults trap to the hypervisor, it alone can be below the DESIGN §8 target.
const zygote = join(
  dirname(createRequire(import.meta.url).resolve('@sluice/code-runtime-python/package.json')),
  'python',
  'sluice_zygote.py',
);

interface FloorReport {
  readonly latencyMs: number[];
  readonly perSecond: Record<'1' | '2' | '8', number>;
  readonly rssMb: number;
}

export const suite: BenchSuite = {
  name: 'anchor: python fork floor',
  async measure(scale) {
    const executable = process.env.SLUICE_PYTHON_EXECUTABLE ?? 'python3';
    const request = {
      zygote,
      count: Math.max(20, Math.round(200 * scale)),
      total: Math.max(40, Math.round(400 * scale)),
    };
    // The zygote's own flags (python-child-pool.ts), so the same interpreter state is forked.
    const child = spawnSync(
      executable,
      ['-s', '-S', '-B', '-X', 'utf8', join(import.meta.dirname, 'python_fork_floor.py')],
      {
        input: JSON.stringify(request),
        encoding: 'utf8',
        env: {},
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    if (child.status !== 0)
      throw new Error(`python_fork_floor.py failed (${child.signal ?? child.status}): ${child.stderr}`);
    const report = JSON.parse(child.stdout) as FloorReport;
    return [
      {
        substrate: 'anchor: python fork floor',
        p50Ms: percentile(report.latencyMs, 50),
        p95Ms: percentile(report.latencyMs, 95),
        runsPerSecond: { c1: report.perSecond['1'], c2: report.perSecond['2'], c8: report.perSecond['8'] },
        note: `fork of a ${report.rssMb.toFixed(1)} MiB CPython holding the zygote's modules, the child exiting at once, reaped; c = children alive at once: the most runs/s any fork-per-run design reaches here`,
      },
    ];
  },
};
