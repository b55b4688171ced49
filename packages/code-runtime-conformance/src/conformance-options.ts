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
  /** Memory a run may use, in bytes: 128 MiB. */
  readonly memoryBytes: number;
  /** Programs running at once (the provider's `poolSize`): 4, and 1 for the queueing cases. */
  readonly poolSize: number;
  /**
   * How long a run may wait for a substrate before its program starts, in milliseconds (the
   * provider's `acquireTimeoutMs`): 60,000, and 1,500 for the case that runs out of it.
   */
  readonly acquireTimeoutMs: number;
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
  poolSize: 4,
  acquireTimeoutMs: 60_000,
});

/** The budgets of the timeout cases: a short wall clock, so a loop is stopped quickly. */
export const conformanceTimeoutBudgets: ConformanceBudgets = Object.freeze({
  ...conformanceBudgets,
  wallTimeMs: 3_000,
});

/**
 * The budgets of the queueing cases: one program at a time, and a wall clock shorter than the
 * queue the cases build, so a provider that charged the wait to the program would time it out.
 */
export const conformanceQueueBudgets: ConformanceBudgets = Object.freeze({
  ...conformanceBudgets,
  wallTimeMs: 4_000,
  poolSize: 1,
});

/** The budgets of the case that waits past `acquireTimeoutMs`: one program at a time, a short wait. */
export const conformanceAcquireBudgets: ConformanceBudgets = Object.freeze({
  ...conformanceBudgets,
  poolSize: 1,
  acquireTimeoutMs: 1_500,
});

/** The budgets of the cold-start cases: a wall clock far shorter than a substrate may take to start on a loaded machine. */
export const conformanceColdStartBudgets: ConformanceBudgets = Object.freeze({
  ...conformanceBudgets,
  wallTimeMs: 1_000,
});

/** How long one case may take before vitest gives up on it, in milliseconds. */
export const caseTimeoutMs = 30_000;
