import type { CodeRuntime } from '@sluice/code-runtime';
import { formatBytes } from './result-render.js';

/**
 * The budgets a runtime enforces on every run, as its provider publishes them (the settings both
 * providers share). A field is absent when the runtime does not publish it; nothing is guessed.
 */
export interface RuntimeLimits {
  readonly wallTimeMs?: number;
  readonly cpuTimeMs?: number;
  readonly memoryBytes?: number;
  readonly logBytes?: number;
  readonly valueBytes?: number;
  readonly hostCallBytes?: number;
  readonly hostCalls?: number;
  readonly concurrentHostCalls?: number;
  readonly sourceBytes?: number;
}

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
 * The limits `runtime` publishes: positive integers under the names of {@link RuntimeLimits}, read
 * from its `settings` (the resolved settings a provider exposes, such as the worker-thread
 * runtime's) and then its `limits`. Anything else is ignored; a runtime with neither publishes nothing.
 */
export function readRuntimeLimits(runtime: CodeRuntime): RuntimeLimits {
  const limits: Record<string, number> = {};
  for (const source of ['settings', 'limits']) {
    const published = (runtime as unknown as Record<string, unknown>)[source];
    if (typeof published !== 'object' || published === null) continue;
    for (const name of runtimeLimitNames) {
      const value = (published as Record<string, unknown>)[name];
      if (limits[name] === undefined && typeof value === 'number' && Number.isSafeInteger(value) && value > 0) {
        limits[name] = value;
      }
    }
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
