import type { CodeRuntime, CodeRuntimeLanguage } from '@sluice/code-runtime';

/**
 * The budgets the suite asks `create` to honour. Each uses the same name as the provider setting
 * for the same budget, so `create` can usually pass them straight through.
 */
export interface ConformanceBudgets {
  /** Wall-clock budget per run, in milliseconds: 3,000 for the timeout cases, 20,000 elsewhere. */
  readonly wallTimeMs: number;
  /** UTF-8 bytes of log text kept per run: 4,096. */
  readonly logBytes: number;
  /** UTF-8 bytes of a returned value's JSON text: 65,536. */
  readonly valueBytes: number;
  /** Memory a run may use, in bytes: 64 MiB. */
  readonly memoryBytes: number;
}

/** What {@link describeCodeRuntimeConformance} needs to know about the provider under test. */
export interface CodeRuntimeConformanceOptions {
  /** A label for the `describe` block, usually the provider's id: `'worker-thread'`. */
  readonly name: string;
  /** The language the runtime runs; picks the suite's programs. */
  readonly language: CodeRuntimeLanguage;
  /**
   * Returns a fresh runtime honouring `budgets`. Called once per group of cases, and once more by
   * the dispose case; the suite disposes every runtime it gets.
   */
  readonly create: (budgets: ConformanceBudgets) => CodeRuntime | Promise<CodeRuntime>;
}

/** The budgets of every group except the timeout cases. Generous, so a loaded 2-core machine does not flake. */
export const conformanceBudgets: ConformanceBudgets = Object.freeze({
  wallTimeMs: 20_000,
  logBytes: 4 * 1024,
  valueBytes: 64 * 1024,
  memoryBytes: 128 * 1024 * 1024,
});

/** The budgets of the timeout cases: a short wall clock, so a loop is stopped quickly. */
export const conformanceTimeoutBudgets: ConformanceBudgets = Object.freeze({
  ...conformanceBudgets,
  wallTimeMs: 3_000,
});

/** How long one case may take before vitest gives up on it, in milliseconds. */
export const caseTimeoutMs = 30_000;
