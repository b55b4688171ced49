// The `run_code` description's build time against catalogue size, for TypeScript and Python: part
// of `pnpm --filter @sluice/bench scale` (alone: `-- --only=declarations`). The bench does not depend
// on @sluice/code-mode, so its source and its test catalogue are imported by path.

import { scaledCatalogue } from '../../code-mode/src/__fixtures__/large-catalogue.js';
import { generateDeclarations, runCodeDescription } from '../../code-mode/src/index.js';
import { percentile } from './bench-harness.js';

export type DeclarationsLanguage = 'typescript' | 'python';

/**
 * The catalogue: copies in the services' 31 namespaces; the same with every other tool deferred (left
 * out until loaded); or each copy in namespaces of its own (620 at 10 000 tools).
 */
export type DeclarationsCatalogue = '31 namespaces' | 'half deferred' | 'namespace per copy';

/** One size of one catalogue in one language: the median build time and what was built. */
export interface DeclarationsPoint {
  readonly language: DeclarationsLanguage;
  readonly catalogue: DeclarationsCatalogue;
  readonly tools: number;
  readonly medianMs: number;
  /** CPU time of the process (all its threads, collector included): what other load on the machine changes least. */
  readonly medianCpuMs: number;
  readonly runs: number;
  /** Tokens of the declarations (the budget is 3 000; namespaces and counts past it are not cut). */
  readonly tokens: number;
  readonly inlined: number;
}

export const declarationsSizes = [100, 1_000, 10_000] as const;
const catalogues: readonly DeclarationsCatalogue[] = ['31 namespaces', 'half deferred', 'namespace per copy'];

const gc = () => (globalThis as { gc?: () => void }).gc?.();

function catalogue(kind: DeclarationsCatalogue, size: number) {
  const tools = scaledCatalogue(size, { namespacePerCopy: kind === 'namespace per copy' });
  return kind === 'half deferred' ? tools.map((tool, index) => ({ ...tool, deferred: index % 2 === 0 })) : tools;
}

function buildOnce(tools: ReturnType<typeof catalogue>, language: DeclarationsLanguage) {
  const declarations = generateDeclarations(tools, { language });
  runCodeDescription({ language, declarations, limits: {} });
  return declarations;
}

/**
 * Builds the description of each size of each catalogue, after warming up on the 500-tool one:
 * at least 3 runs and about 3 s per size (a collection before each), reporting the median.
 */
export function measureDeclarations(
  languages: readonly DeclarationsLanguage[],
  sizes: readonly number[],
  onPoint: (point: DeclarationsPoint) => void,
): DeclarationsPoint[] {
  const points: DeclarationsPoint[] = [];
  for (const language of languages) {
    for (let index = 0; index < 5; index += 1) buildOnce(catalogue('31 namespaces', 500), language);
    for (const kind of catalogues) {
      for (const size of sizes) {
        const tools = catalogue(kind, size);
        const times: number[] = [];
        const cpuTimes: number[] = [];
        let built: ReturnType<typeof buildOnce> | undefined;
        while (times.length < 3 || (times.length < 50 && times.reduce((sum, value) => sum + value, 0) < 3_000)) {
          gc();
          const cpu = process.cpuUsage();
          const start = performance.now();
          built = buildOnce(tools, language);
          times.push(performance.now() - start);
          const used = process.cpuUsage(cpu);
          cpuTimes.push((used.user + used.system) / 1000);
        }
        const point: DeclarationsPoint = {
          language,
          catalogue: kind,
          tools: size,
          medianMs: percentile(times, 50),
          medianCpuMs: percentile(cpuTimes, 50),
          runs: times.length,
          tokens: built!.estimatedTokens,
          inlined: built!.inlined.length,
        };
        points.push(point);
        onPoint(point);
      }
    }
  }
  return points;
}

/** Heading of the declarations section in results/scale.md. */
export const declarationsHeading = '## Declarations build time';

/** Growth per 10× at or above this is called superlinear (10× is linear). */
const superlinearStep = 13;

/** The section for results/scale.md: when and where it was measured, a table, and the steps past linear. */
export function declarationsSection(points: readonly DeclarationsPoint[], environment: string): string {
  const lines = [
    declarationsHeading,
    '',
    environment,
    '',
    '`generateDeclarations` and `runCodeDescription` for `scaledCatalogue(n)` (`packages/code-mode/src/__fixtures__/large-catalogue.ts`: the 500-tool catalogue, then copies of it as further accounts of each service whose descriptions name the account, so that same-named shapes differ between copies) at the default 3 000-token budget. The copies go into the services’ 31 namespaces (`github__list_issues_2`), the same with every other tool deferred, or into namespaces of their own (`github_2__list_issues`: 620 at 10 000 tools, whose namespace lines alone pass the budget, so no tool is declared in full). Median of at least 3 builds (about 3 s per size, a collection before each) after 5 warm-up builds of 500 tools. wall: caller-seen; CPU: the CPU time of the process (every thread, the collector included), which other load on the machine changes less. Growth: against the 10× smaller size; 10× is linear. Below 10× is fixed cost shared out, and the layout first trying every tool in full up to 2 000 tools, which 10 000 skip.',
    '',
    '| language | catalogue | tools | wall ms | CPU ms | CPU µs per tool | wall growth /10× | CPU growth /10× | runs | tokens | in full |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const steps: string[] = [];
  let previous: DeclarationsPoint | undefined;
  for (const point of points) {
    const before =
      previous !== undefined && previous.language === point.language && previous.catalogue === point.catalogue
        ? previous
        : undefined;
    const growth = before === undefined ? undefined : point.medianMs / before.medianMs;
    const cpuGrowth = before === undefined ? undefined : point.medianCpuMs / before.medianCpuMs;
    lines.push(
      `| ${[
        point.language,
        point.catalogue,
        point.tools.toLocaleString('en-US').replaceAll(',', ' '),
        point.medianMs.toFixed(1),
        point.medianCpuMs.toFixed(1),
        ((point.medianCpuMs * 1000) / point.tools).toFixed(0),
        growth === undefined ? '–' : `${growth.toFixed(1)}×`,
        cpuGrowth === undefined ? '–' : `${cpuGrowth.toFixed(1)}×`,
        String(point.runs),
        String(point.tokens),
        String(point.inlined),
      ].join(' | ')} |`,
    );
    if (cpuGrowth !== undefined && cpuGrowth >= superlinearStep) {
      steps.push(
        `- ${point.language}, ${point.catalogue}: ${before!.medianCpuMs.toFixed(0)} → ${point.medianCpuMs.toFixed(0)} CPU ms from ${before!.tools} to ${point.tools} tools (${cpuGrowth.toFixed(1)}× for 10×)`,
      );
    }
    previous = point;
  }
  lines.push(
    '',
    `CPU steps of ${superlinearStep}× or more per 10× (wall time also counts waiting for a core, so on a loaded machine read the CPU columns):`,
    '',
    ...(steps.length === 0 ? ['- none'] : steps),
  );
  return `${lines.join('\n')}\n`;
}
