import type { BenchRow } from './bench-harness.js';
import { pythonTargets } from './python-zygote.js';
import { runsRatios } from './quickjs-report.js';

/** DESIGN.md §8 targets for the worker-thread provider. */
export const targets = { p50Ms: 2, runsPerSecondC8: 400, killP95Ms: 5, roundTripMs: 0.1 } as const;

/**
 * The worker-thread provider's figures with its workers inside the host's process, measured on a quiet
 * machine on 2026-11-30 before the workers moved into a supervised child process (issue 10). Fixed:
 * every later run is read against them.
 */
export const inProcessFigures = {
  measuredOn: '2026-11-30',
  /** Sequential p50 with the TypeScript strip on every run. */
  p50Ms: 1.18,
  runsPerSecondC8: 984,
  killP95Ms: 3.0,
} as const;

const fixed = (value: number | undefined, digits = 2) =>
  value === undefined || Number.isNaN(value) ? '–' : value >= 100 ? value.toFixed(0) : value.toFixed(digits);

/** The results as Markdown: the table, then the provider against the targets and against each anchor. */
export function formatReport(rows: readonly BenchRow[], machine: string, when: Date): string {
  const lines = [
    `# Sluice benchmark, ${when.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    machine,
    '',
    'Program: one host call (`tools.echo`), one log line, a value; every run is checked. Latency is caller-seen and sequential; runs/s with 1, 2 and 8 callers; kill is from the deadline to the substrate confirmed dead; round trip is one host call inside a run; memory is RSS per run kept alive on a pending host call.',
    '',
    '| substrate | p50 ms | p95 ms | runs/s c=1 | c=2 | c=8 | kill p50 / p95 ms | host call ms | MiB per live run | notes |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const rate = row.runsPerSecond;
    lines.push(
      `| ${row.substrate} | ${fixed(row.p50Ms)} | ${fixed(row.p95Ms)} | ${fixed(rate?.c1, 0)} | ${fixed(rate?.c2, 0)} | ${fixed(rate?.c8, 0)} | ${row.killP50Ms === undefined ? '–' : `${fixed(row.killP50Ms)} / ${fixed(row.killP95Ms)}`} | ${fixed(row.roundTripMs, 3)} | ${fixed(row.rssPerLiveRunMb)} | ${row.note ?? ''} |`,
    );
  }
  const provider = rows.filter((row) => row.substrate.startsWith('worker-thread'));
  const main = provider[0];
  if (main !== undefined) {
    lines.push('', '## worker-thread against the targets (DESIGN §8)', '');
    const check = (label: string, value: number | undefined, target: number, lowerIsBetter: boolean) => {
      if (value === undefined) return;
      const met = lowerIsBetter ? value <= target : value >= target;
      const ratio = lowerIsBetter ? target / value : value / target;
      lines.push(
        `- ${label}: ${fixed(value, 3)} against ${target} → ${met ? 'met' : 'MISSED'} (${ratio.toFixed(2)}× the target)`,
      );
    };
    for (const row of provider) check(`p50 ms, ${row.substrate}`, row.p50Ms, targets.p50Ms, true);
    for (const row of provider)
      check(`runs/s at c=8, ${row.substrate}`, row.runsPerSecond?.c8, targets.runsPerSecondC8, false);
    check('kill p95 ms', main.killP95Ms, targets.killP95Ms, true);
    check('host-call round trip ms', main.roundTripMs, targets.roundTripMs, true);
    lines.push(...againstInProcess(main));
    lines.push('', '## worker-thread (TS strip each run) against each anchor', '');
    for (const anchor of rows.filter((row) => row.substrate.startsWith('anchor:'))) {
      lines.push(againstAnchor(main, anchor));
    }
  }
  const python = rows.find((row) => row.substrate.startsWith('python (zygote fork'));
  if (python !== undefined) {
    lines.push('', `## ${python.substrate} against the Python anchors`, '');
    for (const anchor of rows.filter((row) => row.substrate.startsWith('anchor:') && isPythonAnchor(row))) {
      lines.push(againstAnchor(python, anchor));
    }
    const floorRow = rows.find((row) => row.substrate === 'anchor: python fork floor');
    const floor = floorRow?.runsPerSecond?.c8;
    if (floorRow !== undefined && floor !== undefined && python.runsPerSecond !== undefined) {
      lines.push(
        '',
        `The fork floor bounds every fork-per-run design on this machine: at c=8 it reaches ${fixed(floor, 0)} runs/s, so the target of ${pythonTargets.runsPerSecondC8} is ${(pythonTargets.runsPerSecondC8 / floor).toFixed(2)}× the floor, and the provider reaches ${((100 * python.runsPerSecond.c8) / floor).toFixed(0)} % of it. The provider's runs/s as multiples of the floor's: ${runsRatios(python, floorRow)}.`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Python anchors: a CPython spawn per run, the fork floor, and Monty (a Python subset). */
function isPythonAnchor(row: BenchRow): boolean {
  return row.substrate.includes('python') || row.substrate.includes('monty');
}

/** One provider row against one anchor row of the same run, as ratios. */
function againstAnchor(main: BenchRow, anchor: BenchRow): string {
  if (anchor.p50Ms === undefined) return `- ${anchor.substrate}: ${anchor.note ?? 'no numbers'}`;
  const speed = anchor.p50Ms / (main.p50Ms ?? Number.NaN);
  const rate = (main.runsPerSecond?.c8 ?? Number.NaN) / (anchor.runsPerSecond?.c8 ?? Number.NaN);
  const parts = [
    `p50 ${fixed(main.p50Ms)} vs ${fixed(anchor.p50Ms)} ms (${speed >= 1 ? `provider ${speed.toFixed(2)}× faster` : `anchor ${(1 / speed).toFixed(2)}× faster`})`,
    `c=8 ${fixed(main.runsPerSecond?.c8, 0)} vs ${fixed(anchor.runsPerSecond?.c8, 0)} runs/s (${rate.toFixed(2)}×)`,
    `kill p95 ${fixed(main.killP95Ms)} vs ${fixed(anchor.killP95Ms)} ms`,
    `memory per live run ${fixed(main.rssPerLiveRunMb)} vs ${fixed(anchor.rssPerLiveRunMb)} MiB`,
  ];
  return `- vs ${anchor.substrate}: ${parts.join('; ')}`;
}

/** The main worker-thread row of this run against {@link inProcessFigures}, with the targets beside. */
function againstInProcess(row: BenchRow): string[] {
  const figures: [string, number | undefined, number, number, boolean][] = [
    ['p50 ms (TS strip each run)', row.p50Ms, inProcessFigures.p50Ms, targets.p50Ms, true],
    ['runs/s at c=8', row.runsPerSecond?.c8, inProcessFigures.runsPerSecondC8, targets.runsPerSecondC8, false],
    ['kill p95 ms', row.killP95Ms, inProcessFigures.killP95Ms, targets.killP95Ms, true],
  ];
  const against = (now: number | undefined, target: number, lowerIsBetter: boolean) => {
    const bound = `${lowerIsBetter ? '≤' : '≥'} ${target}`;
    if (now === undefined) return bound;
    return `${bound}: ${(lowerIsBetter ? now <= target : now >= target) ? 'met' : 'MISSED'}`;
  };
  return [
    '',
    `## worker-thread against its in-process figures (${inProcessFigures.measuredOn}, quiet machine)`,
    '',
    `This run's \`${row.substrate}\` row against the figures measured with the workers inside the host's process. Ratio: this run ÷ then (above 1 is more time, or more runs/s).`,
    '',
    `| figure | this run | in-process ${inProcessFigures.measuredOn} | ratio | target |`,
    '|---|---|---|---|---|',
    ...figures.map(
      ([label, now, then, target, lowerIsBetter]) =>
        `| ${label} | ${fixed(now)} | ${fixed(then)} | ${now === undefined ? '–' : `${(now / then).toFixed(2)}×`} | ${against(now, target, lowerIsBetter)} |`,
    ),
  ];
}
