/**
 * Every way a run can fail, fixed for `code-runtime-v1` and pinned by a test. A provider reports
 * each failure as data in {@link CodeRunResult}; none of these is ever thrown.
 *
 * - `exception`: the program threw, or did not compile.
 * - `timeout`: the program ran past its wall-clock or CPU budget and was killed.
 * - `memory`: the program exhausted its memory budget and was killed.
 * - `abort`: the run was cancelled (by `cancel`, the request's signal, or `dispose`).
 * - `substrate-exit`: the engine running the program died unexpectedly. The one that should page someone.
 * - `invalid-output`: the program returned a value that is not lossless JSON.
 * - `output-limit`: the returned value was larger than its byte budget.
 * - `protocol`: the substrate sent something the host refuses (malformed, oversized, forged).
 * - `unavailable`: the runtime had no substrate free for the program within its `acquireTimeoutMs`
 *   (every one busy with other runs, or still starting). The program did not run; running it again is safe.
 */
export const failureKinds = [
  'exception',
  'timeout',
  'memory',
  'abort',
  'substrate-exit',
  'invalid-output',
  'output-limit',
  'protocol',
  'unavailable',
] as const;

/** One of {@link failureKinds}. */
export type FailureKind = (typeof failureKinds)[number];

/** Which budget a `timeout` failure ran out of: wall-clock time (including time spent waiting on host calls) or CPU time. */
export type TimeBudget = 'wall-time' | 'cpu-time';

/** Fields every failure has. */
export interface FailureBase<Kind extends FailureKind> {
  /** What kind of failure this is. Stable; branch on it. */
  readonly kind: Kind;
  /** Written for the model to read and act on: what happened, and what to change. Not stable; never parse it. */
  readonly message: string;
}

/** The program threw, or could not be compiled. */
export interface ExceptionFailure extends FailureBase<'exception'> {
  /** The error's class name as the program saw it (`TypeError`, `SyntaxError`, `ValueError`), when known. */
  readonly name?: string;
  /** 1-based line in the program's own source where the error was raised, when known. */
  readonly line?: number;
  /** 1-based column in the program's own source, when known. */
  readonly column?: number;
  /** The stack or traceback, showing only the program's own frames, when known. */
  readonly stack?: string;
}

/** The program ran out of time and was killed. */
export interface TimeoutFailure extends FailureBase<'timeout'> {
  /** The budget that ran out. */
  readonly budget: TimeBudget;
  /** That budget's limit, in milliseconds. */
  readonly limitMs: number;
}

/** The program ran out of memory and was killed. */
export interface MemoryFailure extends FailureBase<'memory'> {
  /** The memory budget in bytes, when the provider knows it. */
  readonly limitBytes?: number;
}

/** The run was cancelled before it finished. */
export interface AbortFailure extends FailureBase<'abort'> {
  /** Why: the reason given to `cancel`, the signal's reason, or the runtime's disposal. */
  readonly reason: string;
}

/** The returned value was larger than its byte budget. */
export interface OutputLimitFailure extends FailureBase<'output-limit'> {
  /** The budget, in UTF-8 bytes of the value's JSON text. */
  readonly limitBytes: number;
}

/**
 * The program never started: the runtime had no substrate free for it within `limitMs` (its
 * `acquireTimeoutMs` setting). Nothing the program would have done happened, so it is safe to run
 * again; the time waited is the result's `usage.queuedMs`.
 */
export interface UnavailableFailure extends FailureBase<'unavailable'> {
  /** How long a run may wait for a substrate, in milliseconds: the runtime's `acquireTimeoutMs`. */
  readonly limitMs: number;
}

/** The engine died unexpectedly, the value was not JSON, or the substrate broke the protocol. */
export type OtherFailure = FailureBase<'substrate-exit' | 'invalid-output' | 'protocol'>;

/** Why a run failed. Discriminated by `kind`. */
export type CodeRunFailure =
  | ExceptionFailure
  | TimeoutFailure
  | MemoryFailure
  | AbortFailure
  | OutputLimitFailure
  | UnavailableFailure
  | OtherFailure;
