// `pnpm --filter @sluice/bench cli-start`: `sluice run -` end to end on each provider against
// `node -e 'console.log(42)'`, interleaved in the same rounds; medians, ratios, issue 25's targets.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { codeVersion, commandOptions, percentile } from './bench-harness.js';
import {
  type ColdProvider,
  cliCommand,
  cliTargets,
  coldProviders,
  measureCliRounds,
  sluiceBin,
  tableCell,
} from './cold-start.js';

const options = commandOptions(process.argv.slice(2));
const rounds = Number(options.rounds ?? '9');
const only = options.only === undefined ? coldProviders : (String(options.only).split(',') as ColdProvider[]);
const bin = options.bin === undefined ? sluiceBin : resolve(String(options.bin));

console.log(`cli-start: ${bin}, ${rounds} rounds of node -e and sluice run - on ${only.join(', ')}, interleaved`);
const measured = measureCliRounds(rounds, only, bin);
const anchor = percentile(measured.anchorMs, 50);
const lines = [
  `# sluice run - against node -e, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `Node ${process.version}, ${availableParallelism()} cores, load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(
      ' ',
    )} at the end, ${rounds} rounds (each: the anchor, then every provider once), ${bin === sluiceBin ? codeVersion() : bin}.`,
  '',
  '| command | median ms | min / max ms | ratio to the anchor | target | |',
  '|---|---|---|---|---|---|',
  `| \`node -e 'console.log(42)'\` | ${anchor.toFixed(0)} | ${Math.min(...measured.anchorMs).toFixed(0)} / ${Math.max(...measured.anchorMs).toFixed(0)} | 1.00× | | |`,
];
for (const provider of only) {
  const times = measured.providerMs[provider];
  const median = percentile(times, 50);
  const ratio = median / anchor;
  lines.push(
    `| \`${tableCell(cliCommand(provider))}\` | ${median.toFixed(0)} | ${Math.min(...times).toFixed(0)} / ${Math.max(...times).toFixed(0)} | ${ratio.toFixed(2)}× | ≤ ${cliTargets[provider]}× | ${ratio <= cliTargets[provider] ? 'met' : 'MISSED'} |`,
  );
}
const report = `${lines.join('\n')}\n`;
console.log(`\n${report}`);
const resultsDir = join(import.meta.dirname, '..', 'results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'cli-start.md'), report);
console.log(`cli-start: wrote ${join('packages', 'bench', 'results', 'cli-start.md')}`);
