// What the lazily loaded polyfills cost the runs that use them, both ways side by side in one
// process, interleaved so machine load hits both alike: a run that uses nothing new, one that uses
// an ES2025 built-in (core-js on both TypeScript providers), and on QuickJS one that formats with
// Intl (FormatJS) or
// sorts with localeCompare (the project's collator). Prints p50 wall and CPU time per kind and the ratio to the plain run, and the
// QuickJS memory each kind takes at the smallest budget. `pnpm --filter @sluice/bench polyfill-cost`.
import type { CodeRuntime } from '@sluice/code-runtime';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';

const programs = {
  plain:
    'const rows = [1, 2, 3, 4].map((n) => ({ n, odd: n % 2 === 1 })); return rows.filter((row) => row.odd).length;',
  builtins:
    "const rows = [1, 2, 3, 4].map((n) => ({ n, odd: n % 2 === 1 })); return Object.groupBy(rows, (row) => (row.odd ? 'odd' : 'even')).odd.length;",
  collation:
    "return ['Zoë', 'zoe', 'Ångström', 'angstrom', 'résumé', 'Resume'].sort((a, b) => a.localeCompare(b)).join(' ');",
  intl: "return [(1234.5).toLocaleString('de-DE'), new Date(Date.UTC(2024, 0, 15)).toLocaleString('en-US', { timeZone: 'America/New_York' })].join(' ');",
} as const;
type Kind = keyof typeof programs;

const rounds = Number(process.env.ROUNDS ?? 40);

function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function measure(name: string, runtime: CodeRuntime, kinds: readonly Kind[]): Promise<void> {
  const wall: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  for (const kind of kinds) {
    const warm = await runtime.run({ program: programs[kind] });
    if (!warm.ok) throw new Error(`${name} ${kind}: ${warm.failure.message}`);
    wall[kind] = [];
    cpu[kind] = [];
  }
  for (let round = 0; round < rounds; round += 1) {
    for (const kind of kinds) {
      const started = performance.now();
      const result = await runtime.run({ program: programs[kind] });
      wall[kind]!.push(performance.now() - started);
      cpu[kind]!.push(result.usage.cpuMs ?? Number.NaN);
      // 20 ms apart, as an agent sends runs: each finds a context made ahead.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const plainWall = p50(wall.plain!);
  const plainCpu = p50(cpu.plain!);
  for (const kind of kinds) {
    const w = p50(wall[kind]!);
    const c = p50(cpu[kind]!);
    console.log(
      `${name.padEnd(14)} ${kind.padEnd(9)} wall p50 ${w.toFixed(2).padStart(7)} ms (${(w / plainWall).toFixed(2)}x plain)  cpu p50 ${c.toFixed(1).padStart(6)} ms (${(c / Math.max(plainCpu, 0.5)).toFixed(1)}x plain)`,
    );
  }
}

// Fills what is left of the budget with 64 KiB strings after the kind's program ran, and counts them.
const fill =
  "const keep = []; try { for (;;) keep.push('x'.repeat(65536) + keep.length); } catch {} return keep.length;";

/**
 * On a fresh QuickJS runtime at 16 MiB: whether the program ends ok at the smallest budget (8 MiB),
 * and how much of the budget it leaves, counted in 64 KiB strings a program can still make after it
 * (the difference to the plain run is what the polyfill holds).
 */
async function memoryOf(kind: Kind): Promise<string> {
  const small = createQuickJsCodeRuntime({ poolSize: 1, memoryBytes: 8 * 1024 * 1024, wallTimeMs: 20_000 });
  const budget = createQuickJsCodeRuntime({ poolSize: 1, memoryBytes: 16 * 1024 * 1024, wallTimeMs: 20_000 });
  try {
    const fits = await small.run({ program: programs[kind] });
    const body = programs[kind].replace('return ', 'void ');
    const left = await budget.run({ program: `${body}\n${fill}` });
    const strings = left.ok ? Number(left.value) : Number.NaN;
    return `${fits.ok ? 'fits' : `fails (${fits.failure.kind})`} in an 8 MiB budget; leaves ${strings} strings of 64 KiB in a 16 MiB one (${((strings * 64) / 1024).toFixed(1)} MiB)`;
  } finally {
    await Promise.all([small.dispose(), budget.dispose()]);
  }
}

const quickjs = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 20_000, cpuTimeMs: 20_000 });
const worker = createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 });
try {
  console.log(
    `polyfill cost, ${rounds} interleaved rounds, load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`,
  );
  await measure('quickjs', quickjs, ['plain', 'builtins', 'collation', 'intl']);
  await measure('worker-thread', worker, ['plain', 'builtins', 'collation', 'intl']);
  for (const kind of ['plain', 'builtins', 'collation', 'intl'] as const) {
    console.log(`quickjs ${kind.padEnd(9)} ${await memoryOf(kind)}`);
  }
} finally {
  await Promise.all([quickjs.dispose(), worker.dispose()]);
}
