/** The budgets the run controller enforces itself. A provider enforces CPU time and memory in its substrate. */
export interface RunLimits {
  /** Wall-clock budget in milliseconds, time spent waiting on host calls included. */
  readonly wallTimeMs: number;
  /** UTF-8 bytes of log text kept per run (one byte per line for the newline included). */
  readonly logBytes: number;
  /** UTF-8 bytes of the returned value's JSON text. */
  readonly valueBytes: number;
  /** UTF-8 bytes of one host call's argument, and separately of its result, as JSON text. */
  readonly hostCallBytes: number;
  /** Host calls per run, refused ones included. */
  readonly hostCalls: number;
  /** Host calls in flight at once; later calls wait their turn. */
  readonly concurrentHostCalls: number;
  /** UTF-8 bytes of program source. */
  readonly sourceBytes: number;
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
};
