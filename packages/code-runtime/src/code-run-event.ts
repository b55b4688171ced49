import type { JsonValue } from './json-value.js';

/** How loudly a line was logged. JavaScript's `console` methods map one to one; Python's stdout is `log`, stderr is `error`. */
export type LogLevel = 'debug' | 'info' | 'log' | 'warn' | 'error';

/** One line the program logged, as text already formatted by the provider. */
export interface LogEntry {
  readonly level: LogLevel;
  /** The formatted text, without a trailing newline. */
  readonly text: string;
}

/** The program logged a line. Delivered as it happens, so a killed run still reports what it said. */
export interface LogEvent extends LogEntry {
  readonly type: 'log';
  readonly runId: string;
}

/** The program called a host function. Every call gets one, refused calls included; its `host-call-end` follows. */
export interface HostCallStartEvent {
  readonly type: 'host-call-start';
  readonly runId: string;
  /** Unique within the run. */
  readonly callId: string;
  /** The binding namespace, e.g. `tools`. */
  readonly namespace: string;
  /** The function's name within the namespace. */
  readonly name: string;
  /** The input exactly as the host function receives it. */
  readonly input: JsonValue;
}

/** A host call finished: it resolved, rejected, was refused, or was cut off by the end of the run. */
export interface HostCallEndEvent {
  readonly type: 'host-call-end';
  readonly runId: string;
  readonly callId: string;
  readonly namespace: string;
  readonly name: string;
  /** Whether the program received a result (`true`) or an error (`false`). */
  readonly ok: boolean;
  /** Milliseconds from the call to its end. */
  readonly ms: number;
  /** The error message the program saw, when `ok` is `false`. */
  readonly error?: string;
}

/** What `onEvent` receives while a run is going, in the order it happened. */
export type CodeRunEvent = LogEvent | HostCallStartEvent | HostCallEndEvent;
