/** A compiled `WebAssembly.Module` (the lib in use has no WebAssembly types). */
export type WasmModule = object;

/** A `WebAssembly.Memory`, as far as it is used here. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

/** The parts of the `WebAssembly` global used here. */
export interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}

/** The host's `WebAssembly` global. */
export const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Start-up data of a QuickJS worker thread. */
export interface QuickJsWorkerBoot {
  /** The QuickJS-ng WebAssembly module, compiled once by the host and shared by every worker. */
  readonly wasmModule: WasmModule;
  /** Int32 slot 0: the seq of a run the host wants stopped; the interrupt handler reads it. */
  readonly control: SharedArrayBuffer;
  /** Budgets every run of this worker gets. */
  readonly config: QuickJsRunConfig;
}

/** The per-run budgets and modes the worker enforces inside QuickJS. */
export interface QuickJsRunConfig {
  readonly cpuTimeMs: number;
  readonly memoryBytes: number;
  readonly stackBytes: number;
  readonly logBytes: number;
  /** Characters of the returned value's JSON past which it is refused unread (the host then counts bytes). */
  readonly valueChars: number;
  readonly hostCallBytes: number;
  readonly hostCalls: number;
  readonly timers: number;
  readonly maxDelayMs: number;
  readonly deterministic?: { readonly seed: number; readonly startTime: number } | undefined;
}

/** What the host sends a worker. */
export type HostToQuickJs =
  | {
      readonly type: 'run';
      readonly seq: number;
      readonly code: string;
      readonly bindings: readonly string[];
      /** This run's determinism, in place of the runtime's setting. */
      readonly deterministic?: { readonly seed: number; readonly startTime: number };
    }
  | {
      readonly type: 'reply';
      readonly seq: number;
      readonly callId: number;
      readonly ok: boolean;
      readonly text: string;
    }
  | { readonly type: 'stop'; readonly seq: number };

/** Why the worker stopped a run itself. */
export type QuickJsStopCause = 'cpu-time' | 'memory' | 'interrupted' | 'stack' | 'trap';

/** What a worker sends the host. */
export type QuickJsToHost =
  | { readonly type: 'ready' }
  /** The thread could not instantiate the engine (it exits next). */
  | { readonly type: 'failed'; readonly reason: string }
  /** The thread cannot run `seq` (its engine failed before the run started): run it elsewhere. */
  | { readonly type: 'refused'; readonly seq: number; readonly reason: string }
  | { readonly type: 'log'; readonly seq: number; readonly level: number; readonly text: string }
  | {
      readonly type: 'call';
      readonly seq: number;
      readonly callId: number;
      readonly namespace: string;
      readonly name: string;
      /** JSON text of the input (the argument array when `positional`). */
      readonly input: string;
      readonly positional: boolean;
    }
  | {
      readonly type: 'done';
      readonly seq: number;
      readonly ending: QuickJsEnding;
      readonly cpuMs: number;
      readonly peakMemoryBytes: number;
      /** The worker's engine is no longer trustworthy (a trap, a runtime that would not free): it exits after this. */
      readonly retire: boolean;
    };

/** How a run ended, as the worker saw it. */
export type QuickJsEnding =
  | { readonly kind: 'none' }
  | { readonly kind: 'value'; readonly json: string }
  | { readonly kind: 'not-json'; readonly message: string }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'error'; readonly name?: string; readonly message: string; readonly stack?: string }
  | { readonly kind: 'stopped'; readonly cause: QuickJsStopCause; readonly detail: string };
