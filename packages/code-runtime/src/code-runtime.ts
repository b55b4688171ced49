import type { CodeRunEvent } from './code-run-event.js';
import type { CodeRunResult } from './code-run-result.js';
import type { JsonValue } from './json-value.js';

/** The version of this contract, carried by every runtime so a registry can tell contracts apart. */
export const specificationVersion = 'code-runtime-v1';

/** The language a runtime's programs are written in, as the model knows it. */
export type CodeRuntimeLanguage = 'typescript' | 'python';

/** What a host function learns about the call it is serving. */
export interface HostCallContext {
  /** The run that made the call. */
  readonly runId: string;
  /** Unique within the run. */
  readonly callId: string;
  /**
   * Aborted when the run ends for any reason: success, failure, cancellation or a budget. Thread it
   * into whatever the function starts; a result that arrives after it is aborted is dropped.
   */
  readonly signal: AbortSignal;
  /**
   * The program's arguments in order, present only when it called positionally: one argument that
   * is not a plain object, or several (`f('oslo')`, `f(5, 3)`). `input` is then the keyword object of
   * a Python call that also passed keywords, else the only argument, else the array of them. Absent
   * for no argument, one plain object, or keywords only. A binding that knows a schema maps it.
   */
  readonly positional?: readonly JsonValue[];
  /**
   * A key that is the same on every execution of this call, present when the call belongs to a
   * durable run (`<runId>/<seq>`, from `@sluice/durable`): a replayed or resumed run that makes the
   * call again passes the same key. Hand it to the service the function calls (an HTTP
   * `Idempotency-Key` header, a unique database key), so a call that runs a second time after a
   * crash takes effect once. Absent for an ordinary run.
   */
  readonly idempotencyKey?: string;
}

/**
 * A function the host offers a program. It receives the program's argument as JSON (a program that
 * passes nothing sends `null`; see {@link HostCallContext.positional} for positional calls) and
 * resolves with JSON. A rejection reaches the program as a
 * catchable error carrying the rejection's message.
 */
export type HostFunction = (input: JsonValue, context: HostCallContext) => Promise<JsonValue> | JsonValue;

/**
 * The host functions a run may call, by namespace and then by name: `{ tools: { search } }` is
 * `tools.search(...)` in the program. Both levels must be valid binding names (see
 * {@link validateBindingName}); a function's name may be a reserved word (`{ lab: { delete } }` is
 * `lab.delete(...)`), a namespace's may not. Only own enumerable keys count.
 */
export type Bindings = Readonly<Record<string, Readonly<Record<string, HostFunction>>>>;

/** One program to run. Budgets are not here on purpose: they are the provider's settings, which a request cannot raise. */
export interface CodeRunRequest {
  /** The program's source, untrusted text as the model wrote it. */
  readonly program: string;
  /** What the program may call. Absent means nothing. */
  readonly bindings?: Bindings;
  /** Aborting it cancels the run, exactly like {@link CodeRun.cancel} with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Receives {@link CodeRunEvent}s in order while the run is going. A listener that throws is ignored. */
  readonly onEvent?: (event: CodeRunEvent) => void;
  /**
   * Runs the program deterministically (what durable replay needs): only on a runtime that has
   * {@link CodeRuntime.determinism}; elsewhere `start` throws `InvalidRequestError`.
   */
  readonly deterministic?: CodeRunDeterminism;
}

/**
 * What makes one run repeatable. Given the same program, the same determinism and the same host
 * results, a deterministic run makes the same calls with the same arguments, in the same order, and
 * prints and returns the same, byte for byte.
 */
export interface CodeRunDeterminism {
  /** Seeds every source of randomness the program can read. An integer in [0, 2^32). */
  readonly seed: number;
  /**
   * Milliseconds since the Unix epoch that the program's clock reads at its start. The clock then
   * advances only with the program's timers and its host calls' results, never with real time.
   */
  readonly startTime: number;
}

/** What a runtime that can run programs deterministically says about it. */
export interface CodeRuntimeDeterminism {
  /**
   * Names the engine and everything that decides what a program sees for given host results (the
   * engine's version, the globals' implementation, the provider's version). Replaying a journal
   * recorded under another fingerprint is unsafe; a durable host refuses it.
   */
  readonly fingerprint: string;
}

/** A run in progress. */
export interface CodeRun {
  /** Unique per runtime instance; also `runId` in events, results and host-call contexts. */
  readonly id: string;
  /** Resolves once with how the run ended. Never rejects. */
  readonly result: Promise<CodeRunResult>;
  /**
   * Stops the run. It then resolves with an `abort` failure carrying `reason`, unless it had already
   * ended. Idempotent, and safe to call after the end.
   */
  cancel(reason?: string): void;
}

/**
 * The budgets a runtime enforces on every run, fixed by its provider's settings when it was
 * created. A model-facing tool states them to the model; a request can never change them.
 */
export interface CodeRuntimeLimits {
  /**
   * Wall-clock milliseconds per run, time spent waiting on host calls included. The clock starts
   * when the program starts, not while the run waits for a substrate (see `acquireTimeoutMs`).
   */
  readonly wallTimeMs: number;
  /**
   * Milliseconds a run may wait for a substrate before its program starts (every one busy with
   * other runs, or starting); past it the run ends as `unavailable` and the program did not run. An
   * operator's bound on queueing, not a budget of the program. Absent when the provider does not
   * queue runs.
   */
  readonly acquireTimeoutMs?: number;
  /** CPU (or busy) milliseconds per run, when the provider enforces such a budget. */
  readonly cpuTimeMs?: number;
  /** Memory budget in bytes, when the provider enforces one; its README says what it covers. */
  readonly memoryBytes?: number;
  /** UTF-8 bytes of logs kept per run; later output is dropped and the result says so. */
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

/** What {@link CodeRuntime.ready} readies a runtime for. */
export interface CodeRuntimeReadyOptions {
  /**
   * The programs about to run, when they are known (a command that runs one program). The runtime
   * then starts only what they need: a TypeScript runtime starts no compile thread for plain
   * JavaScript that needs no parser; an empty list starts the substrate alone. Absent: everything
   * any program could need.
   */
  readonly programs?: readonly string[];
}

/** What {@link CodeRuntime.ready} resolves with: whether a run would now start without waiting for a substrate. */
export type CodeRuntimeReadiness =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /** Why no run can start at once (no interpreter, a substrate that fails to boot, a disposed runtime). */
      readonly message: string;
    };

/**
 * Something that runs programs. Create it with a provider's synchronous factory; it starts its
 * substrate lazily, at the first run, unless {@link CodeRuntime.ready} is called first.
 */
export interface CodeRuntime {
  /** Always `'code-runtime-v1'` for this contract. */
  readonly specificationVersion: typeof specificationVersion;
  /** The provider's stable id, kebab-case: `'worker-thread'`, `'python'`. */
  readonly id: string;
  /** The language its programs are written in. */
  readonly language: CodeRuntimeLanguage;
  /**
   * One honest sentence or two on what isolates a program from the host, computed from what was
   * really applied on this machine. Operators read it before deciding what to let an agent do.
   */
  readonly isolation: string;
  /**
   * The budgets every run gets, when the provider publishes them (providers built on
   * `@sluice/code-runtime-kit` always do). Read them to tell a model its real limits.
   */
  readonly limits?: CodeRuntimeLimits;
  /**
   * Present when the runtime can run a program deterministically (see
   * {@link CodeRunRequest.deterministic}); absent when it cannot, which is an honest answer.
   */
  readonly determinism?: CodeRuntimeDeterminism;
  /**
   * Starts a run. Throws only for misuse: a request that is malformed ({@link InvalidRequestError})
   * or a disposed runtime ({@link RuntimeDisposedError}). Everything the program does is in the result.
   */
  start(request: CodeRunRequest): CodeRun;
  /** `start(request).result`. Rejects only where `start` would throw. */
  run(request: CodeRunRequest): Promise<CodeRunResult>;
  /**
   * Starts the substrate now, as a server does before it says it is ready (a provider built on
   * `@sluice/code-runtime-kit`: the whole pool, the compile thread, the zygote), and resolves once a
   * run would start without waiting for one to start. Idempotent and cheap once ready; never
   * rejects: a substrate that cannot start resolves `{ ok: false, message }`, and runs fail the same
   * way. Optional: a runtime without it starts its substrate at the first run. With
   * `options.programs`, readies it for those programs only (see {@link CodeRuntimeReadyOptions}).
   */
  ready?(options?: CodeRuntimeReadyOptions): Promise<CodeRuntimeReadiness>;
  /**
   * Ends every run in flight with an `abort` failure, stops the substrate, and resolves once it is
   * quiet. Idempotent; a later `start` throws {@link RuntimeDisposedError}.
   */
  dispose(): Promise<void>;
}
