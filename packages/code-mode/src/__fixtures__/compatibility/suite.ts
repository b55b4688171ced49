// Runs one compatibility program through run_code and judges it: the value it must return (or, for
// a program whose answer is its output, the lines it must print), or a failure whose message names
// the fix. A run that ends ok without a value passes only when its case expects printed lines.
import type { CodeRuntime } from '@sluice/code-runtime';
import type { PolicyDefinition, Tool } from '@sluice/permissions';
import { expect } from 'vitest';
import { createRunCodeTool, type RunCodeTool } from '../../run-code-tool.js';
import { compatibilityTools } from './tools.js';

/** One program as a model writes it, and what it must do. */
export interface CompatibilityCase {
  /** The shape it is written in, as the test's name. */
  readonly style: string;
  readonly program: string;
  /**
   * The value it returns (vitest asymmetric matchers allowed inside); the lines it prints, for a
   * program whose answer is its output (Anthropic's programmatic tool calling reads what the code
   * prints); or a regex the failure message must match.
   */
  readonly expect: { readonly value: unknown } | { readonly printed: readonly unknown[] } | { readonly fails: RegExp };
  /** The lines it logs, in order (matchers allowed), checked with its value when stated. */
  readonly logs?: readonly unknown[];
  /** The host calls it makes, in order, as `namespace.name`, checked with its value when stated. */
  readonly calls?: readonly string[];
  /** Why a failure is the right outcome for now. */
  readonly note?: string;
  /** Set while the case neither returns its value nor fails naming the fix: what it does instead. */
  readonly gap?: string;
}

/** How a run went, judged against its case. */
export type CompatibilityVerdict = 'value' | 'named-fix' | 'wrong';

export interface CompatibilityOutcome {
  readonly verdict: CompatibilityVerdict;
  /** What happened, for the report: the value, or the failure message, or the rendered text. */
  readonly detail: string;
}

const allowAll: PolicyDefinition = { default: 'allow', rules: [] };

/** The tools' own ledger: the name of each tool whose `execute` ran, in order, since the last run began. */
const executed: string[] = [];

/** The run_code tool over the suite's tools (or `tools`), on one runtime; each tool's `execute` writes the ledger. */
export function compatibilityTool(runtime: CodeRuntime, tools: readonly Tool[] = compatibilityTools): RunCodeTool {
  const ledgered = tools.map(
    (tool): Tool => ({
      ...tool,
      execute: (input, context) => {
        executed.push(tool.name);
        return tool.execute(input, context);
      },
    }),
  );
  return createRunCodeTool({ context: { codeRuntime: runtime }, tools: ledgered, policy: allowAll });
}

/** Runs the case and says whether it returned its value, failed naming its fix, or did neither. */
export async function judge(tool: RunCodeTool, testCase: CompatibilityCase): Promise<CompatibilityOutcome> {
  executed.length = 0;
  const { result, rendered } = await tool.run({ code: testCase.program });
  if (result === undefined) return { verdict: 'wrong', detail: rendered.text };
  const logs = result.logs.map((entry) => entry.text);
  const calls = result.calls.map((call) => `${call.namespace}.${call.name}`);
  const trace = `logs ${JSON.stringify(logs)}; calls ${JSON.stringify(calls)}; tools executed ${JSON.stringify(executed)}`;
  // Every call the run says succeeded reached a tool (Sluice's own `sluice.*` helpers aside), and no
  // tool ran without the run recording its call.
  const answered = result.calls.filter((call) => call.ok && call.namespace !== 'sluice').length;
  if (executed.length < answered || executed.length > result.calls.length) {
    return { verdict: 'wrong', detail: `the run's calls and the tools' ledger disagree: ${trace}` };
  }
  const logged = testCase.logs === undefined || matches(logs, testCase.logs);
  const called = testCase.calls === undefined || matches(calls, testCase.calls);
  if (!logged || !called) {
    const ending = result.ok ? 'ok' : `${result.failure.kind}: ${result.failure.message}`;
    return { verdict: 'wrong', detail: `${ending}; ${trace}` };
  }
  if (result.ok) {
    const answer = Object.hasOwn(result, 'value') ? `ok, value ${JSON.stringify(result.value)}` : 'ok without a value';
    const detail = `${answer}; ${trace}`;
    if ('fails' in testCase.expect) return { verdict: 'wrong', detail };
    const answered =
      'value' in testCase.expect
        ? Object.hasOwn(result, 'value') && matches(result.value, testCase.expect.value)
        : matches(logs, testCase.expect.printed);
    return { verdict: answered ? 'value' : 'wrong', detail };
  }
  const detail = `${result.failure.kind}: ${result.failure.message}`;
  if ('fails' in testCase.expect && testCase.expect.fails.test(result.failure.message)) {
    return { verdict: 'named-fix', detail };
  }
  return { verdict: 'wrong', detail };
}

function matches(actual: unknown, expected: unknown): boolean {
  try {
    expect(actual).toEqual(expected);
    return true;
  } catch {
    return false;
  }
}

/** The public code-mode peers whose conventions the suite's peer programs follow, as their styles begin. */
export const peerStyleFamilies = [
  'Cloudflare code mode',
  'Anthropic MCP code execution',
  'Anthropic PTC',
  'smolagents',
  'Monty',
  'LlamaIndex CodeAct',
  'Vercel AI SDK',
] as const;

export type PeerStyleFamily = (typeof peerStyleFamilies)[number];

/** The peer whose conventions a case follows (its style starts with the peer's name), or undefined for the suite's own shapes. */
export function styleFamily(testCase: CompatibilityCase): PeerStyleFamily | undefined {
  return peerStyleFamilies.find(
    (family) => testCase.style.startsWith(`${family}:`) || testCase.style.startsWith(`${family} `),
  );
}

interface TallyRow {
  total: number;
  expectValue: number;
  value: number;
  namedFix: number;
  wrong: string[];
}

const emptyRow = (): TallyRow => ({ total: 0, expectValue: 0, value: 0, namedFix: 0, wrong: [] });

function count(row: TallyRow, testCase: CompatibilityCase, outcome: CompatibilityOutcome): void {
  row.total += 1;
  if (!('fails' in testCase.expect)) row.expectValue += 1;
  if (outcome.verdict === 'value') row.value += 1;
  else if (outcome.verdict === 'named-fix') row.namedFix += 1;
  else row.wrong.push(`${testCase.style}: ${outcome.detail}`);
}

/**
 * Tallies outcomes per suite, and per peer style and provider: how many returned their value (ran
 * unchanged), failed naming the fix, or did neither.
 */
export class CompatibilityTally {
  readonly #rows = new Map<string, TallyRow>();
  /** Peer style → provider → row, in the order of `peerStyleFamilies`. */
  readonly #families = new Map<PeerStyleFamily, Map<string, TallyRow>>(
    peerStyleFamilies.map((family) => [family, new Map()]),
  );

  record(suite: string, provider: string, testCase: CompatibilityCase, outcome: CompatibilityOutcome): void {
    const row = this.#rows.get(suite) ?? emptyRow();
    count(row, testCase, outcome);
    this.#rows.set(suite, row);
    const family = styleFamily(testCase);
    if (family === undefined) return;
    const providers = this.#families.get(family) as Map<string, TallyRow>;
    const perProvider = providers.get(provider) ?? emptyRow();
    count(perProvider, testCase, outcome);
    providers.set(provider, perProvider);
  }

  /**
   * One line per suite: value/total with the percentage and how many cases expect a value, then the
   * failures that name a fix and those that do neither; then one line per peer style: how many of
   * its programs run unchanged on each provider.
   */
  report(): string {
    const lines: string[] = [];
    for (const [suite, row] of this.#rows) {
      const percent = ((100 * row.value) / row.total).toFixed(1);
      lines.push(
        `${suite}: ${row.value}/${row.total} return the right value (${percent}%; ${row.expectValue} are meant to), ${row.namedFix} fail naming the fix, ${row.wrong.length} neither`,
      );
      for (const wrong of row.wrong) lines.push(`  neither: ${wrong}`);
    }
    lines.push('peer styles, programs that run unchanged per provider:');
    let total = 0;
    let unchanged = 0;
    for (const [family, providers] of this.#families) {
      if (providers.size === 0) continue;
      const cells = [...providers].map(([provider, row]) => {
        total += row.total;
        unchanged += row.value;
        const extra = [
          row.namedFix > 0 ? `${row.namedFix} fail naming the fix` : '',
          row.wrong.length > 0 ? `${row.wrong.length} neither` : '',
        ].filter((part) => part !== '');
        return `${row.value}/${row.total} on ${provider}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`;
      });
      lines.push(`  ${family}: ${cells.join(', ')}`);
    }
    lines.push(`  all peer styles: ${unchanged}/${total} runs unchanged`);
    return lines.join('\n');
  }
}
