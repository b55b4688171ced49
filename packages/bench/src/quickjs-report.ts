import { type BenchRow, spacedGapMs } from './bench-harness.js';
import { computeHeavyPrefix } from './compute-heavy.js';
import { quickJsRows } from './quickjs.js';

/** Issue 15's targets for the QuickJS provider, the TypeScript strip included in p50. */
export const quickJsTargets = {
  p50Ms: 0.5,
  runsPerSecondC8: 2_500,
  killP95Ms: 1,
  mibPerLiveRun: 1,
  /** The provider's p50 may be at most this multiple of the bare quickjs-emscripten anchor's. */
  anchorMultiple: 1.5,
} as const;

const fixed = (value: number | undefined, digits = 2) =>
  value === undefined || Number.isNaN(value) ? '–' : value >= 100 ? value.toFixed(0) : value.toFixed(digits);

/** The provider's runs/s as multiples of the anchor's, at 1, 2 and 8 callers: `c=1 0.52×, c=2 …`. */
export const runsRatios = (provider: BenchRow, anchor: BenchRow) =>
  (['c1', 'c2', 'c8'] as const)
    .map(
      (key) =>
        `c=${key.slice(1)} ${fixed((provider.runsPerSecond?.[key] ?? Number.NaN) / (anchor.runsPerSecond?.[key] ?? Number.NaN))}×`,
    )
    .join(', ');

const faster = (speed: number) =>
  speed >= 1 ? `quickjs ${speed.toFixed(2)}× faster` : `worker-thread ${(1 / speed).toFixed(2)}× faster`;

/**
 * The QuickJS provider against its targets, against the bare quickjs-emscripten anchor and the
 * worker-thread provider of the same run, and the compute-heavy programs on both providers. Empty
 * when the run had no QuickJS rows (`--only` left them out).
 */
export function quickJsSection(rows: readonly BenchRow[]): string {
  const uncached = rows.find((row) => row.substrate === quickJsRows.uncached);
  const cached = rows.find((row) => row.substrate === quickJsRows.cached);
  const heavy = rows.filter((row) => row.substrate.startsWith(computeHeavyPrefix));
  if (uncached === undefined && heavy.length === 0) return '';
  const lines: string[] = [];
  if (uncached !== undefined) {
    const anchor = rows.find((row) => row.substrate.startsWith('anchor: quickjs-emscripten'));
    const workerThread = rows.find((row) => row.substrate.startsWith('worker-thread (TS strip'));
    lines.push('', '## quickjs provider against its targets (issue 15)', '');
    lines.push(
      'Ratio: how far the figure is from the target, above 1 is better (target ÷ figure for times and memory).',
      '',
    );
    lines.push('| figure | this run | target | ratio | |', '|---|---|---|---|---|');
    const check = (label: string, value: number | undefined, target: number, lowerIsBetter: boolean) => {
      if (value === undefined || Number.isNaN(value)) {
        lines.push(
          `| ${label} | – | ${lowerIsBetter ? '≤' : '≥'} ${Number.isInteger(target) ? target : target.toFixed(2)} | – | not measured |`,
        );
        return;
      }
      const met = lowerIsBetter ? value <= target : value >= target;
      const ratio = lowerIsBetter ? target / value : value / target;
      lines.push(
        `| ${label} | ${fixed(value, 3)} | ${lowerIsBetter ? '≤' : '≥'} ${Number.isInteger(target) ? target : target.toFixed(2)} | ${ratio.toFixed(2)}× | ${met ? 'met' : 'MISSED'} |`,
      );
    };
    check('p50 ms, TS strip each run', uncached.p50Ms, quickJsTargets.p50Ms, true);
    check('p50 ms, compiled program cached', cached?.p50Ms, quickJsTargets.p50Ms, true);
    check('runs/s at c=8, TS strip each run', uncached.runsPerSecond?.c8, quickJsTargets.runsPerSecondC8, false);
    check('runs/s at c=8, cached', cached?.runsPerSecond?.c8, quickJsTargets.runsPerSecondC8, false);
    check('kill p95 ms', uncached.killP95Ms, quickJsTargets.killP95Ms, true);
    check('MiB per live run', uncached.rssPerLiveRunMb, quickJsTargets.mibPerLiveRun, true);
    if (anchor?.p50Ms !== undefined && uncached.p50Ms !== undefined) {
      const bound = anchor.p50Ms * quickJsTargets.anchorMultiple;
      check(
        `p50 ms within ${quickJsTargets.anchorMultiple}× the anchor (${fixed(anchor.p50Ms)} ms)`,
        uncached.p50Ms,
        bound,
        true,
      );
      lines.push(
        '',
        `Against the bare anchor: p50 ${(uncached.p50Ms / anchor.p50Ms).toFixed(2)}× its time (target ≤ ${quickJsTargets.anchorMultiple}×); runs/s ${runsRatios(uncached, anchor)} its runs/s.`,
      );
    } else {
      lines.push('', 'The quickjs-emscripten anchor did not run, so the 1.5× comparison is missing.');
    }
    const spaced = rows.find((row) => row.substrate === quickJsRows.spaced);
    const idleRoundTrip = rows.find(
      (row) => row.substrate.startsWith('anchor: thread round trip') && !row.substrate.endsWith('back to back'),
    );
    if (spaced?.p50Ms !== undefined) {
      lines.push(
        `Runs ${spacedGapMs} ms apart, as an agent running one new program per turn starts them: p50 ${fixed(spaced.p50Ms)} ms` +
          (idleRoundTrip?.p50Ms === undefined
            ? '.'
            : `, of which the two thread round trips such a run makes (the run and its result, the call and its reply) are at least ${fixed(2 * idleRoundTrip.p50Ms)} ms here (\`anchor: thread round trip\`), and the strip one more.`),
      );
    }
    if (workerThread?.p50Ms !== undefined && uncached.p50Ms !== undefined) {
      lines.push(
        `Against the worker-thread provider (TS strip each run): p50 ${fixed(uncached.p50Ms)} vs ${fixed(workerThread.p50Ms)} ms (${faster(workerThread.p50Ms / uncached.p50Ms)}), c=8 ${fixed(uncached.runsPerSecond?.c8, 0)} vs ${fixed(workerThread.runsPerSecond?.c8, 0)} runs/s, kill p95 ${fixed(uncached.killP95Ms)} vs ${fixed(workerThread.killP95Ms)} ms, ${fixed(uncached.rssPerLiveRunMb)} vs ${fixed(workerThread.rssPerLiveRunMb)} MiB per live run.`,
      );
    }
  }
  if (heavy.length > 0) {
    lines.push('', '## Compute-heavy programs: what the interpreter costs', '');
    lines.push('Sequential runs of the same program (compiled once); ratio: QuickJS p50 ÷ worker-thread p50.', '');
    lines.push('| program | worker-thread p50 / p95 ms | quickjs p50 / p95 ms | ratio |', '|---|---|---|---|');
    const cases = [
      ...new Set(heavy.map((row) => row.substrate.slice(computeHeavyPrefix.length).replace(/, [^,]+$/, ''))),
    ];
    for (const name of cases) {
      const of = (provider: string) =>
        heavy.find((row) => row.substrate === `${computeHeavyPrefix}${name}, ${provider}`);
      const v8 = of('worker-thread');
      const quickjs = of('quickjs');
      const ratio = (quickjs?.p50Ms ?? Number.NaN) / (v8?.p50Ms ?? Number.NaN);
      lines.push(
        `| ${name} | ${fixed(v8?.p50Ms)} / ${fixed(v8?.p95Ms)} | ${fixed(quickjs?.p50Ms)} / ${fixed(quickjs?.p95Ms)} | ${Number.isNaN(ratio) ? '–' : `${ratio.toFixed(1)}×`} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
