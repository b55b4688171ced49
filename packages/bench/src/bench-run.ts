// `pnpm bench`: runs every suite in bench-suites.ts in its own Node process, prints one table
// with the anchors side by side and the ratios against the targets, and writes it to results/.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { ensureAnchors } from './bench-anchors.js';
import { type BenchRow, codeVersion, commandOptions } from './bench-harness.js';
import { formatReport } from './bench-report.js';
import { benchSuites } from './bench-suites.js';
import { coldStartSection } from './cold-start-report.js';
import { quickJsSection } from './quickjs-report.js';

const packageDir = join(import.meta.dirname, '..');
const options = commandOptions(process.argv.slice(2));
const scale = Number(options.scale ?? '1');
const only = options.only === undefined ? undefined : String(options.only).split(',');

const anchorProblems = options['no-anchors'] === 'true' ? {} : ensureAnchors();
for (const [name, problem] of Object.entries(anchorProblems)) console.log(`bench: skipping anchor ${name}: ${problem}`);

const rows: BenchRow[] = [];
for (const modulePath of benchSuites) {
  if (only !== undefined && !only.some((name) => modulePath.includes(name))) continue;
  if (options['no-anchors'] === 'true' && modulePath.includes('anchor-')) continue;
  console.log(`bench: ${modulePath} (scale ${scale})`);
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', '--no-node-snapshot', '--import', 'tsx', join('src', 'bench-child.ts'), modulePath, String(scale)],
    { cwd: packageDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
  );
  const line = child.stdout.split('\n').find((text) => text.startsWith('ROWS '));
  if (line === undefined) {
    const how = child.signal ?? `exit ${child.status}`;
    rows.push({ substrate: modulePath, note: `failed (${how}): ${child.stdout.slice(-300).replaceAll('\n', ' ')}` });
    continue;
  }
  const reported = JSON.parse(line.slice(5)) as BenchRow[];
  // Some native anchors crash while their process exits; the figures were complete before that.
  const ending = child.status === 0 ? '' : ` (its process then ended with ${child.signal ?? `exit ${child.status}`})`;
  rows.push(...reported.map((row) => ({ ...row, note: `${row.note ?? ''}${ending}` })));
}

const machine = `Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), load average ${loadavg()
  .map((value) => value.toFixed(2))
  .join(' ')} at the end, scale ${scale}, ${codeVersion()}`;
const resultsDir = join(packageDir, 'results');
const report = `${formatReport(rows, machine, new Date())}${quickJsSection(rows)}${coldStartSection(rows)}${lastSoak(join(resultsDir, 'soak.md'))}`;
console.log(`\n${report}`);
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'latest.md'), report);
console.log(`bench: wrote ${join('packages', 'bench', 'results', 'latest.md')}`);

/** The summary of the last soak (it takes minutes, so `pnpm bench` quotes it rather than running it). */
function lastSoak(path: string): string {
  const intro = '\n## Host survives: the last soak\n\n';
  if (!existsSync(path)) return `${intro}No soak has run here yet: \`pnpm --filter @sluice/bench soak\`.\n`;
  const lines = readFileSync(path, 'utf8').split('\n');
  const checks = lines.filter((line) => /^- (pass|FAIL): /.test(line));
  const heading = lines[0]?.replace(/^# /, '') ?? '';
  return `${intro}From \`results/soak.md\`, run separately with \`pnpm --filter @sluice/bench soak\`. ${heading}: ${lines[2] ?? ''}\n\n${checks.join('\n')}\n`;
}
