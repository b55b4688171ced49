import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { type BenchRow, type BenchSuite, percentile } from './bench-harness.js';

/** The providers measured cold, by the name `sluice run --runtime` or `--language` gives them. */
export const coldProviders = ['worker-thread', 'quickjs', 'python'] as const;

export type ColdProvider = (typeof coldProviders)[number];

/** The program `sluice run -` reads from stdin in the CLI rows; in Python, too, a top-level `return` is the value. */
export const cliProgram = 'return 6*7';

/**
 * The most a `sluice run -` of {@link cliProgram} may take, as a multiple of `node -e
 * 'console.log(42)'` measured in the same rounds (issue 25, item 3).
 */
export const cliTargets: Readonly<Record<ColdProvider, number>> = { 'worker-thread': 3, quickjs: 3, python: 4 };

/** The `sluice` executable of this workspace: build the CLI first (the root `pnpm bench` builds everything). */
export const sluiceBin = join(import.meta.dirname, '..', '..', 'cli', 'bin', 'sluice.js');

const cliFlags: Readonly<Record<ColdProvider, readonly string[]>> = {
  'worker-thread': [],
  quickjs: ['--runtime', 'quickjs'],
  python: ['--language', 'python'],
};

/** The command line of each CLI case, as a person would type it at the repository root. */
export function cliCommand(provider: ColdProvider): string {
  return `echo '${cliProgram}' | node packages/cli/bin/sluice.js run - ${cliFlags[provider].join(' ')}`.trimEnd();
}

/** Text for a Markdown table cell: a `|` would end the cell. */
export function tableCell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** Milliseconds from spawning `node -e 'console.log(42)'` to its exit, the anchor of the CLI rows. */
export function timeNodeAnchor(): number {
  return timeProcess(['-e', 'console.log(42)'], '', '42');
}

/** Milliseconds from spawning `sluice run -` (`bin`, this workspace's by default) with {@link cliProgram} on stdin to its exit; checks it printed 42. */
export function timeCliRun(provider: ColdProvider, bin = sluiceBin): number {
  return timeProcess([bin, 'run', '-', '--quiet', ...cliFlags[provider]], cliProgram, '42');
}

function timeProcess(args: readonly string[], input: string, expected: string): number {
  const start = performance.now();
  const child = spawnSync(process.execPath, args, { input, encoding: 'utf8' });
  const elapsed = performance.now() - start;
  if (child.status !== 0 || child.stdout.trim() !== expected) {
    throw new Error(
      `cold start: node ${args.join(' ')} printed ${JSON.stringify(child.stdout)} (exit ${child.status}): ${child.stderr}`,
    );
  }
  return elapsed;
}

/** One fresh process's first run of `provider` (see cold-start-child.ts). */
export function timeFirstRun(provider: ColdProvider): { importMs: number; firstRunMs: number } {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'cold-start-child.ts'), provider],
    {
      encoding: 'utf8',
    },
  );
  if (child.status !== 0) throw new Error(`cold start: ${provider} failed (exit ${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '') as { importMs: number; firstRunMs: number };
}

/** The CLI rounds: each round times the anchor and every provider once, in that order. */
export interface CliRounds {
  readonly anchorMs: number[];
  readonly providerMs: Record<ColdProvider, number[]>;
}

/**
 * Times `rounds` rounds of the anchor and `sluice run -` on each provider, interleaved, after one
 * untimed round. `bin`: another checkout's `bin/sluice.js`, to set a change against its base.
 */
export function measureCliRounds(
  rounds: number,
  providers: readonly ColdProvider[] = coldProviders,
  bin = sluiceBin,
): CliRounds {
  timeNodeAnchor();
  for (const provider of providers) timeCliRun(provider, bin);
  const measured: CliRounds = { anchorMs: [], providerMs: { 'worker-thread': [], quickjs: [], python: [] } };
  for (let round = 0; round < rounds; round += 1) {
    measured.anchorMs.push(timeNodeAnchor());
    for (const provider of providers) measured.providerMs[provider].push(timeCliRun(provider, bin));
  }
  return measured;
}

/** Row names of this suite, read back by the report. */
export const coldStartRows = {
  anchor: 'cold start: node -e (anchor of the CLI rows)',
  firstRun: (provider: ColdProvider) => `cold start: ${provider}, first run of a new runtime`,
  cli: (provider: ColdProvider) => `cold start: sluice run - (${provider}), end to end`,
} as const;

/**
 * Cold start, every provider: the first run of a new runtime in a fresh process (creation to
 * result, the import not counted), and `sluice run -` end to end against `node -e` in the same rounds.
 */
export const suite: BenchSuite = {
  name: 'cold start',
  async measure(scale) {
    const rounds = Math.max(3, Math.round(7 * scale));
    const first: Record<ColdProvider, Array<{ importMs: number; firstRunMs: number }>> = {
      'worker-thread': [],
      quickjs: [],
      python: [],
    };
    for (let round = 0; round < rounds; round += 1) {
      for (const provider of coldProviders) first[provider].push(timeFirstRun(provider));
    }
    const cli = measureCliRounds(rounds);
    const anchorP50 = percentile(cli.anchorMs, 50);
    const rows: BenchRow[] = coldProviders.map((provider) => {
      const runs = first[provider].map((sample) => sample.firstRunMs);
      const imports = first[provider].map((sample) => sample.importMs);
      return {
        substrate: coldStartRows.firstRun(provider),
        p50Ms: percentile(runs, 50),
        p95Ms: percentile(runs, 95),
        note: `a fresh process per sample (${rounds}); creation to the result of \`return 1\`; importing the provider took p50 ${percentile(imports, 50).toFixed(0)} ms more`,
      };
    });
    rows.push({
      substrate: coldStartRows.anchor,
      p50Ms: anchorP50,
      p95Ms: percentile(cli.anchorMs, 95),
      note: `\`node -e 'console.log(42)'\`, spawned and waited for; ${rounds} rounds interleaved with the rows below`,
    });
    for (const provider of coldProviders) {
      const times = cli.providerMs[provider];
      const ratio = percentile(times, 50) / anchorP50;
      rows.push({
        substrate: coldStartRows.cli(provider),
        p50Ms: percentile(times, 50),
        p95Ms: percentile(times, 95),
        note: `\`${tableCell(cliCommand(provider))}\`: ${ratio.toFixed(2)}× the anchor (target ≤ ${cliTargets[provider]}×, ${ratio <= cliTargets[provider] ? 'met' : 'MISSED'})`,
      });
    }
    return rows;
  },
};
