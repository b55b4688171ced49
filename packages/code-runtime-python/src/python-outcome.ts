import type { CodeRunFailure } from '@sluice/code-runtime';
import type { RunOutcome, SubstrateUsage } from '@sluice/code-runtime-kit';
import type { PythonRuntimeConfig } from './python-settings.js';
import type { DoneFrame, ZygoteReport } from './wire-frames.js';

type ExitReport = Extract<ZygoteReport, { type: 'exit' }>;

/** Exit codes of the runner (python/sluice_runner.py) for a child that could not report. */
export const runnerExitCodes = { runnerFailed: 70, outOfMemory: 71 } as const;

const signalNames: Readonly<Record<number, string>> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  4: 'SIGILL',
  6: 'SIGABRT',
  7: 'SIGBUS',
  8: 'SIGFPE',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  13: 'SIGPIPE',
  15: 'SIGTERM',
  24: 'SIGXCPU',
  25: 'SIGXFSZ',
  31: 'SIGSYS',
};

/**
 * The address-space limit a child really ran under: `memoryBytes`, or the stricter limit it reported in
 * `started` (inherited from a `ulimit -v` around the host, which children cannot raise).
 */
export function appliedMemoryBytes(config: PythonRuntimeConfig, reportedBytes: number | null | undefined): number {
  return reportedBytes === null || reportedBytes === undefined
    ? config.memoryBytes
    : Math.min(reportedBytes, config.memoryBytes);
}

function memoryFailure(limitBytes: number, refusal: string | undefined): CodeRunFailure {
  const what =
    refusal === undefined || refusal === 'MemoryError' ? 'MemoryError' : `the allocation was refused: ${refusal}`;
  return {
    kind: 'memory',
    limitBytes,
    message: `The program ran out of memory (${what}) at its ${limitBytes}-byte address-space limit and was stopped. Hold less data at once: stream, filter or page it.`,
  };
}

/** What a `done` frame says, as the run's outcome and usage; `memoryBytes` is the limit that really applied. */
export function outcomeOfDone(
  done: DoneFrame,
  config: PythonRuntimeConfig,
  memoryBytes = config.memoryBytes,
): [RunOutcome, SubstrateUsage] {
  const usage: SubstrateUsage = done.usage === undefined ? {} : { ...done.usage };
  if (done.ok) return [done.value === undefined ? { ok: true } : { ok: true, value: done.value }, usage];
  const { error } = done;
  let failure: CodeRunFailure;
  switch (error.kind) {
    case 'memory':
      failure = memoryFailure(memoryBytes, error.message);
      break;
    case 'output-limit':
      failure = {
        kind: 'output-limit',
        limitBytes: config.limits.valueBytes,
        message: `The returned value is ${error.message}; the limit is ${config.limits.valueBytes} bytes. Return less: filter, summarise or page the data.`,
      };
      break;
    case 'invalid-output':
      failure = {
        kind: 'invalid-output',
        message: `The program returned a value that is not JSON: ${error.message}. A value may hold dicts with string keys, lists, tuples, strings, finite numbers, booleans and None; sets, generators, datetimes, paths, Decimals and exceptions are converted.`,
      };
      break;
    default:
      failure = {
        kind: 'exception',
        message: error.message,
        ...(error.name === undefined ? {} : { name: error.name }),
        ...(error.line === undefined ? {} : { line: error.line }),
        ...(error.column === undefined ? {} : { column: error.column }),
        ...(error.stack === undefined ? {} : { stack: error.stack }),
      };
  }
  return [{ ok: false, failure }, usage];
}

/** Why a child ended without a `done` frame, from the zygote's `exit` report (exit status and resource usage). */
export function failureOfExit(
  exit: ExitReport,
  config: PythonRuntimeConfig,
  memoryBytes = config.memoryBytes,
): [RunOutcome, SubstrateUsage] {
  const usage: SubstrateUsage = {
    ...(exit.cpuMs === undefined ? {} : { cpuMs: exit.cpuMs }),
    ...(exit.maxRssBytes === undefined ? {} : { peakMemoryBytes: exit.maxRssBytes }),
  };
  const signal = exit.signal ?? undefined;
  const cpuLimitMs = config.cpuSeconds * 1000;
  if (signal === 24 || (signal === 9 && (exit.cpuMs ?? 0) >= cpuLimitMs)) {
    const failure: CodeRunFailure = {
      kind: 'timeout',
      budget: 'cpu-time',
      limitMs: cpuLimitMs,
      message: `The program used more than its ${cpuLimitMs} ms CPU budget and was stopped. Do less work per run.`,
    };
    return [{ ok: false, failure }, usage];
  }
  if (exit.code === runnerExitCodes.outOfMemory)
    return [{ ok: false, failure: memoryFailure(memoryBytes, undefined) }, usage];
  return [{ ok: false, failure: { kind: 'substrate-exit', message: exitMessage(exit) } }, usage];
}

function exitMessage(exit: ExitReport): string {
  if (exit.error !== undefined) return `The Python child failed: ${exit.error}.`;
  if (exit.signal !== null && exit.signal !== undefined) {
    const name = signalNames[exit.signal] ?? `signal ${exit.signal}`;
    return `The Python process was killed by ${name} before the program reported a result.`;
  }
  if (exit.code === runnerExitCodes.runnerFailed) {
    return 'The Python runner failed before the program reported a result; its traceback is in the logs.';
  }
  return `The Python process exited with code ${exit.code} before the program reported a result (os._exit(), or file descriptor 3 closed?). End a program with return.`;
}

/** The message of a `protocol` failure: the child sent what the host refuses. */
export function protocolMessage(problem: string): string {
  return `The Python process broke the host protocol (${problem}) and was stopped. Talk to the host only through the bindings; never write to file descriptor 3.`;
}
