/**
 * The frames the host and a worker process exchange: one JSON object per line, the host's on the
 * child's stdin, the child's on its stdout. The child holds one worker thread, which runs one
 * program at a time; `seq` names the run. Everything the child sends is checked by the host (the
 * child runs model code in one of its threads, so it is as hostile as the program).
 */

/** The child's start-up settings, passed as its one command-line argument (JSON). */
export interface WorkerProcessBoot {
  readonly memoryBytes: number;
  readonly logBytes: number;
  readonly valueBytes: number;
  /** A host call's argument budget: an iterator in an argument is read only up to it. */
  readonly hostCallBytes: number;
  readonly hostCalls: number;
  readonly timers: number;
  readonly wallTimeMs: number;
  readonly cpuTimeMs: number;
  /** Nesting at which a value crossing the boundary is refused (the contract's `jsonDepthLimit`). */
  readonly depthLimit: number;
  /** Nice value the program's worker thread gives itself (0: left as it is). */
  readonly niceness: number;
}

/** What the host sends the child. */
export type HostToProcess =
  | {
      readonly type: 'run';
      readonly seq: number;
      readonly code: string;
      readonly bindings: string;
      /** Present only for a deterministic run: its seed and start time. */
      readonly deterministic?: { readonly seed: number; readonly startTime: number };
    }
  | {
      readonly type: 'reply';
      readonly seq: number;
      readonly callId: number;
      readonly ok: boolean;
      readonly text: string;
    }
  /** The host ended run `seq` (wall clock, cancellation, a refused frame): terminate its worker now. */
  | { readonly type: 'stop'; readonly seq: number };

/** Why the child ended a run itself. */
export type StopCause = 'cpu-time' | 'heap' | 'external-memory' | 'protocol' | 'worker-exit';

/** What the child sends the host. */
export type ProcessToHost =
  /** A worker thread is up and idle: the next `run` may come. */
  | { readonly type: 'ready' }
  /** Lines the program printed, in order: `[level, text]` each. */
  | { readonly type: 'logs'; readonly seq: number; readonly lines: ReadonlyArray<readonly [string, string]> }
  /** A host call; `input` is the prelude's encoding (`T<json>` or `V<violation>`). */
  | {
      readonly type: 'call';
      readonly seq: number;
      readonly callId: number;
      readonly namespace: string;
      readonly name: string;
      readonly input: string;
      /** The program called positionally: `input` encodes the array of its arguments. */
      readonly positional: boolean;
    }
  /** The program finished by itself; `kind` and `payload` are the prelude's `done` entry, untouched. */
  | {
      readonly type: 'done';
      readonly seq: number;
      readonly kind: unknown;
      readonly payload: unknown;
      readonly cpuMs: number;
    }
  /** The child stopped the run: `detail` is the busy ms, the bytes, or the reason. */
  | {
      readonly type: 'stopped';
      readonly seq: number;
      readonly cause: StopCause;
      readonly detail: string | number;
      readonly cpuMs: number;
    }
  /** The worker of run `seq`, terminated, has exited: the kill is complete. */
  | { readonly type: 'retired'; readonly seq: number };
