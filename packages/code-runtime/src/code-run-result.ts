import type { LogEntry } from './code-run-event.js';
import type { CodeRunFailure } from './code-run-failure.js';
import type { JsonValue } from './json-value.js';

/** One host call the program made, in the order calls were made. */
export interface HostCallRecord {
  /** Unique within the run; matches the `callId` of its events and its host-function context. */
  readonly callId: string;
  readonly namespace: string;
  readonly name: string;
  /** Whether the program received a result (`true`) or an error (`false`, including refused calls). */
  readonly ok: boolean;
  /** Milliseconds from the call to its end; for a call still pending when the run ended, until the end. */
  readonly ms: number;
  /** The error message the program saw, when `ok` is `false`. */
  readonly error?: string;
}

/** What a run consumed. Fields a provider cannot measure are absent, never guessed. */
export interface CodeRunUsage {
  /**
   * Wall-clock milliseconds from the program's start to the result, including time in host calls:
   * what the `wallTimeMs` budget is checked against. `0` for a run whose program never started.
   */
  readonly wallMs: number;
  /**
   * Milliseconds from `start` until the program started: time spent waiting for a free substrate
   * (every one busy) or for one to start or be replaced. Not charged to any budget of the program;
   * bounded by the runtime's `acquireTimeoutMs`. Present when the provider measures it (every
   * provider built on `@sluice/code-runtime-kit` does).
   */
  readonly queuedMs?: number;
  /** CPU milliseconds the program's substrate spent, when the provider can measure it. */
  readonly cpuMs?: number;
  /** Peak memory of the program's substrate in bytes, when the provider can measure it. */
  readonly peakMemoryBytes?: number;
  /** Host calls the program made, refused ones included. */
  readonly hostCalls: number;
  /** UTF-8 bytes of logs kept plus the returned value's JSON text. */
  readonly outputBytes: number;
}

/** Fields every result has, whether the run succeeded or failed. */
export interface CodeRunResultBase {
  /** The run's id, as on {@link CodeRun.id}. */
  readonly runId: string;
  /** Every line the program logged, in order, up to the log budget; kept on failure too. */
  readonly logs: readonly LogEntry[];
  /** `true` when the log budget cut the logs. The last entry then says so in its text. */
  readonly logsTruncated: boolean;
  /** Every host call the program made, in order. */
  readonly calls: readonly HostCallRecord[];
  readonly usage: CodeRunUsage;
}

/** The program finished and returned a value. */
export interface CodeRunSuccess extends CodeRunResultBase {
  readonly ok: true;
  /** What the program returned; absent when it returned nothing (`undefined` in JavaScript). Python's `None` is `null`. */
  readonly value?: JsonValue;
}

/** The program did not finish normally. */
export interface CodeRunFailed extends CodeRunResultBase {
  readonly ok: false;
  readonly failure: CodeRunFailure;
}

/** How a run ended. Every outcome of the program is one of these; none is thrown. */
export type CodeRunResult = CodeRunSuccess | CodeRunFailed;
