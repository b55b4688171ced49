import type { BenchRow } from './bench-harness.js';
import { cliTargets, coldProviders, coldStartRows } from './cold-start.js';

const fixed = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '–' : value.toFixed(0));

/** Every provider's cold start: a new runtime's first run, and `sluice run -` against `node -e`, as ratios. Empty without the rows. */
export function coldStartSection(rows: readonly BenchRow[]): string {
  const anchor = rows.find((row) => row.substrate === coldStartRows.anchor);
  if (anchor?.p50Ms === undefined) return '';
  const lines = [
    '',
    '## Cold start',
    '',
    `First run of a new runtime in a fresh process (creation to result of \`return 1\`), and \`sluice run -\` end to end against \`node -e 'console.log(42)'\` (p50 ${fixed(anchor.p50Ms)} ms) in the same rounds.`,
    '',
    '| provider | first run p50 ms | sluice run - p50 ms | ratio to node -e | target |',
    '|---|---|---|---|---|',
  ];
  for (const provider of coldProviders) {
    const first = rows.find((row) => row.substrate === coldStartRows.firstRun(provider));
    const cli = rows.find((row) => row.substrate === coldStartRows.cli(provider));
    const ratio = (cli?.p50Ms ?? Number.NaN) / anchor.p50Ms;
    lines.push(
      `| ${provider} | ${fixed(first?.p50Ms)} | ${fixed(cli?.p50Ms)} | ${Number.isNaN(ratio) ? '–' : `${ratio.toFixed(2)}×`} | ≤ ${cliTargets[provider]}× ${Number.isNaN(ratio) ? '' : ratio <= cliTargets[provider] ? 'met' : 'MISSED'} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
