import { describe } from 'vitest';
import { describeCancellationCases } from './cases-cancellation.js';
import { describeDeterminismCases } from './cases-determinism.js';
import { describeEventCases } from './cases-events.js';
import { describeHostCallCases } from './cases-host-calls.js';
import { describeHostFaultCases } from './cases-host-faults.js';
import { describeIsolationCases } from './cases-isolation.js';
import { describeJsonBoundaryCases } from './cases-json-boundary.js';
import { describeLimitCases } from './cases-limits.js';
import { describeQueueingCases } from './cases-queueing.js';
import { describeResultCases } from './cases-results.js';
import { describeRuntimeCases } from './cases-runtime.js';
import { describeTimeoutCases } from './cases-timeout.js';
import type { ConformanceSuite } from './conformance-harness.js';
import type { CodeRuntimeConformanceOptions } from './conformance-options.js';
import { conformancePrograms } from './programs.js';

/**
 * Registers the conformance suite for one provider with vitest: call it at the top level of a test
 * file. Every case asserts on result data (kinds, fields, order, counts), never on message wording.
 * Each group of cases gets a fresh runtime from `options.create` and disposes it afterwards.
 *
 * @example
 * ```ts
 * describeCodeRuntimeConformance({
 *   name: 'worker-thread',
 *   language: 'typescript',
 *   create: (budgets) => createWorkerThreadCodeRuntime(budgets),
 * });
 * ```
 */
export function describeCodeRuntimeConformance(options: CodeRuntimeConformanceOptions): void {
  const { name, language, create } = options;
  const programs = conformancePrograms[language];
  if (programs === undefined) {
    throw new TypeError(
      `describeCodeRuntimeConformance: language must be 'typescript' or 'python', got ${String(language)}.`,
    );
  }
  if (typeof create !== 'function') {
    throw new TypeError('describeCodeRuntimeConformance: create must be a function returning a fresh runtime.');
  }
  const suite: ConformanceSuite = { language, programs, create };
  describe(`${name} (${language}) conforms to code-runtime-v1`, () => {
    describeRuntimeCases(suite);
    describeResultCases(suite);
    describeHostCallCases(suite);
    describeHostFaultCases(suite);
    describeJsonBoundaryCases(suite);
    describeEventCases(suite);
    describeLimitCases(suite);
    describeTimeoutCases(suite);
    describeQueueingCases(suite);
    describeCancellationCases(suite);
    describeIsolationCases(suite);
    describeDeterminismCases(suite);
  });
}
