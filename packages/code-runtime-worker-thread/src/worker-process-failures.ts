import type { CodeRunFailure } from '@sluice/code-runtime';
import type { StopCause } from './worker-process-frames.js';
import type { ResolvedWorkerThreadSettings } from './worker-thread-settings.js';

// What V8 prints when a heap or a single allocation cannot be satisfied, and the process aborts.
const outOfMemoryPattern =
  /heap out of memory|Reached heap limit|Fatal JavaScript invalid size error|Allocation failed|Fatal process out of memory|FatalProcessOutOfMemory/;

/** How a process ended, in words: `was killed by SIGKILL`, `exited with code 3`. */
export function exitHow(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
}

/**
 * The failure of a run whose worker process died under it: `memory` when V8's last words on stderr
 * say it ran out of heap (one allocation too large is fatal for the whole process), otherwise
 * `substrate-exit` with how it ended and what the host knows of why.
 */
export function exitFailure(
  settings: ResolvedWorkerThreadSettings,
  stderr: string,
  code: number | null,
  signal: NodeJS.Signals | null,
  problem: string | undefined,
): CodeRunFailure {
  if (outOfMemoryPattern.test(stderr)) {
    const limitBytes = settings.memoryBytes;
    return {
      kind: 'memory',
      limitBytes,
      message: `The program ran out of its ${limitBytes}-byte memory budget (one allocation or the heap was too large) and was stopped. Keep less data in memory at once, and build large values in pieces.`,
    };
  }
  return {
    kind: 'substrate-exit',
    message: `The worker process running the program ${exitHow(code, signal)} unexpectedly${problem ? `: ${problem}` : ''}.`,
  };
}

/** The busy time a frame reported, when it is a plausible number. */
export function cpuUsage(cpuMs: unknown): { cpuMs?: number } {
  return typeof cpuMs === 'number' && Number.isFinite(cpuMs) && cpuMs >= 0 ? { cpuMs } : {};
}

/** The failure for a run the child stopped, in the host's own words; `undefined` for a cause it does not know. */
export function stopFailure(
  settings: ResolvedWorkerThreadSettings,
  cause: StopCause,
  detail: unknown,
): CodeRunFailure | undefined {
  const limitBytes = settings.memoryBytes;
  switch (cause) {
    case 'cpu-time': {
      const limitMs = settings.cpuTimeMs;
      return {
        kind: 'timeout',
        budget: 'cpu-time',
        limitMs,
        message: `The program kept its worker busy past its ${limitMs} ms CPU budget and was stopped. Do less computation per run, or move heavy work into host functions.`,
      };
    }
    case 'heap':
      return {
        kind: 'memory',
        limitBytes,
        message: `The program ran out of its ${limitBytes}-byte memory budget (the worker's heap filled up) and was stopped. Keep less data in memory at once.`,
      };
    case 'external-memory': {
      const bytes = typeof detail === 'number' && Number.isFinite(detail) ? Math.round(detail) : 'unknown';
      return {
        kind: 'memory',
        limitBytes,
        message: `The program allocated memory outside the JavaScript heap (ArrayBuffers, typed arrays or engine objects: ${bytes} bytes) past its ${limitBytes}-byte budget and was stopped.`,
      };
    }
    case 'protocol':
      return {
        kind: 'protocol',
        message: `The worker running the program sent something the host refuses (${typeof detail === 'string' ? detail.slice(0, 200) : 'unknown'}); the worker was stopped.`,
      };
    case 'worker-exit':
      return { kind: 'substrate-exit', message: 'The worker thread running the program exited unexpectedly.' };
    default:
      return undefined;
  }
}
