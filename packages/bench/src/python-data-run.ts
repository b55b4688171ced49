// Python data analysis (issue 28): a one-call pandas program with numpy, pandas and matplotlib preloaded
// in the zygote (warm), against the same program importing pandas in each run (cold: allowSitePackages
// only), and against the plain Python row (the same call summed without pandas), with nothing preloaded
// and with the modules preloaded (what the bigger zygote alone costs a run).
// Prints p50/p95 of runs 20 ms apart, runs/s at 1 and 2 callers, the child's CPU p50 and the zygote's
// memory. `pnpm --filter @sluice/bench python-data` (env PYTHON, default /usr/bin/python3; ROUNDS).
import { readdirSync, readFileSync } from 'node:fs';
import type { CodeRuntime } from '@sluice/code-runtime';
import { createPythonCodeRuntime, type PythonCodeRuntimeSettings } from '@sluice/code-runtime-python';
import { percentile, spacedLatency, throughput } from './bench-harness.js';

const python = process.env.PYTHON ?? '/usr/bin/python3';
const rounds = Number(process.env.ROUNDS ?? 40);
const rows = Array.from({ length: 200 }, (_, index) => ({
  region: ['north', 'south', 'west'][index % 3] ?? 'north',
  amount: index,
}));
const bindings = { tools: { rows: async () => rows } };
const pandasProgram =
  'import pandas as pd\nframe = pd.DataFrame(await tools.rows())\nreturn frame.groupby("region")["amount"].sum()';
const plainProgram =
  'totals = {}\nfor row in await tools.rows():\n    totals[row["region"]] = totals.get(row["region"], 0) + row["amount"]\nreturn totals';
const budgets = { pythonExecutable: python, wallTimeMs: 60_000, acquireTimeoutMs: 300_000, poolSize: 2 };

interface Row {
  readonly name: string;
  readonly settings: PythonCodeRuntimeSettings;
  readonly program: string;
  /** Fewer runs for the cold row: each costs most of a second of CPU. */
  readonly scale: number;
}

const preloaded = { ...budgets, preloadModules: ['numpy', 'pandas', 'matplotlib.pyplot'] };

const suites: Row[] = [
  { name: 'plain Python (nothing preloaded)', settings: budgets, program: plainProgram, scale: 1 },
  { name: 'plain Python, modules preloaded', settings: preloaded, program: plainProgram, scale: 1 },
  {
    name: 'pandas, warm (preloadModules)',
    settings: preloaded,
    program: pandasProgram,
    scale: 1,
  },
  {
    name: 'pandas, cold (imported each run)',
    settings: { ...budgets, allowSitePackages: true },
    program: pandasProgram,
    scale: 0.2,
  },
];

function zygoteMemory(): string {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('sluice_zygote.py')) continue;
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const field = (name: string) =>
        Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
      return `RSS ${field('VmRSS').toFixed(1)} MiB, mapped ${field('VmSize').toFixed(1)} MiB`;
    } catch {
      // ended while read
    }
  }
  return 'no zygote found';
}

async function measure(row: Row): Promise<void> {
  const runtime: CodeRuntime = createPythonCodeRuntime(row.settings);
  const cpu: number[] = [];
  const started = performance.now();
  const once = async () => {
    const result = await runtime.run({ program: row.program, bindings });
    if (!result.ok) throw new Error(`${row.name}: ${result.failure.kind}: ${result.failure.message}`);
    cpu.push(result.usage.cpuMs ?? Number.NaN);
  };
  try {
    await once();
    const firstMs = performance.now() - started;
    const memory = zygoteMemory();
    const count = Math.max(5, Math.round(rounds * row.scale));
    const latency = await spacedLatency(once, count);
    const cpuP50 = percentile(cpu, 50);
    const c1 = await throughput(once, 1, count);
    const c2 = await throughput(once, 2, count);
    console.log(
      `| ${row.name} | ${latency.p50Ms.toFixed(1)} | ${latency.p95Ms.toFixed(1)} | ${c1.toFixed(1)} | ${c2.toFixed(1)} | ${cpuP50.toFixed(1)} | ${(firstMs / 1000).toFixed(1)} s | ${memory} |`,
    );
  } finally {
    await runtime.dispose();
  }
}

console.log(`python data analysis bench, ${python}, ${rounds} rounds, ${new Date().toISOString()}`);
console.log(
  '| row | p50 ms | p95 ms | runs/s c=1 | c=2 | child CPU p50 ms | first run (zygote start) | zygote memory |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const row of suites) await measure(row);
