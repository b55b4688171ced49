import type { CodeRuntime, CodeRuntimeLimits } from '@sluice/code-runtime';
import { formatBytes } from './result-render.js';

/**
 * The budgets a runtime enforces on every run, as its provider publishes them in the contract's
 * `limits`. A field is absent when the runtime does not publish it; nothing is guessed.
 */
export type RuntimeLimits = Partial<CodeRuntimeLimits>;

/** The names of {@link RuntimeLimits}, in the order the description lists them. */
export const runtimeLimitNames = [
  'wallTimeMs',
  'cpuTimeMs',
  'memoryBytes',
  'hostCalls',
  'concurrentHostCalls',
  'hostCallBytes',
  'valueBytes',
  'logBytes',
  'sourceBytes',
] as const satisfies readonly (keyof RuntimeLimits)[];

/**
 * The limits `runtime` publishes as its contract `limits`: positive integers only, so a runtime
 * that publishes nothing, or something malformed, yields no line rather than a guessed one.
 */
export function readRuntimeLimits(runtime: CodeRuntime): RuntimeLimits {
  const limits: Record<string, number> = {};
  const published: unknown = runtime.limits;
  if (typeof published !== 'object' || published === null) return limits;
  for (const name of runtimeLimitNames) {
    const value = (published as Record<string, unknown>)[name];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) limits[name] = value;
  }
  return limits;
}

/** One bullet line per published limit, in words a model can act on; empty when none is published. */
export function describeLimits(limits: RuntimeLimits): string[] {
  const lines: string[] = [];
  const line = (value: number | undefined, text: (value: number) => string) => {
    if (value !== undefined) lines.push(`- ${text(value)}`);
  };
  line(limits.wallTimeMs, (ms) => `Wall clock: ${formatMs(ms)} per run, time spent waiting on tools included.`);
  line(limits.cpuTimeMs, (ms) => `CPU time: ${formatMs(ms)} per run.`);
  line(limits.memoryBytes, (bytes) => `Memory: ${formatBytes(bytes)}.`);
  line(limits.hostCalls, (count) => `Tool calls: ${count} per run.`);
  line(limits.concurrentHostCalls, (count) => `Tool calls in flight at once: ${count}; more wait their turn.`);
  line(limits.hostCallBytes, (bytes) => `Each tool call's argument, and its result: ${formatBytes(bytes)} of JSON.`);
  line(limits.valueBytes, (bytes) => `Returned value: ${formatBytes(bytes)} of JSON.`);
  line(limits.logBytes, (bytes) => `Logs: ${formatBytes(bytes)}; later output is dropped, and the result says so.`);
  line(limits.sourceBytes, (bytes) => `Program source: ${formatBytes(bytes)}.`);
  return lines;
}

/** `30000` → `30 s`, `1500` → `1500 ms`. */
export function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
