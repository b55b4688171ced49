import type { CodeRuntimeLimits } from '@sluice/code-runtime';

/**
 * A runtime's budgets. The run controller enforces wall time, logs, values, host calls, source
 * size and the wait for a substrate (`acquireTimeoutMs`) itself; a provider enforces `cpuTimeMs`
 * and `memoryBytes` in its substrate.
 */
export type RunLimits = CodeRuntimeLimits;

const limitNames = [
  'wallTimeMs',
  'cpuTimeMs',
  'memoryBytes',
  'logBytes',
  'valueBytes',
  'hostCallBytes',
  'hostCalls',
  'concurrentHostCalls',
  'sourceBytes',
  'acquireTimeoutMs',
] as const satisfies readonly (keyof RunLimits)[];

/** Just the budgets of `source` (which may carry other settings too), frozen: what a runtime publishes as `limits`. */
export function pickRunLimits(source: RunLimits): RunLimits {
  const limits: Record<string, number> = {};
  for (const name of limitNames) {
    const value = source[name];
    if (value !== undefined) limits[name] = value;
  }
  return Object.freeze(limits) as unknown as RunLimits;
}

/** The defaults both providers start from. Each is a provider setting; a request can never change them. */
export const defaultRunLimits: RunLimits = {
  wallTimeMs: 30_000,
  logBytes: 64 * 1024,
  valueBytes: 1024 * 1024,
  hostCallBytes: 1024 * 1024,
  hostCalls: 1_000,
  concurrentHostCalls: 16,
  sourceBytes: 256 * 1024,
  acquireTimeoutMs: 30_000,
};
