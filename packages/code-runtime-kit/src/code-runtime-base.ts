import {
  type CodeRun,
  type CodeRunDeterminism,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeRuntime,
  type CodeRuntimeLanguage,
  type CodeRuntimeReadiness,
  type CodeRuntimeReadyOptions,
  foreignText,
  InvalidRequestError,
  normalizeBindings,
  RuntimeDisposedError,
  specificationVersion,
  utf8ByteLength,
} from '@sluice/code-runtime';
import { RunController } from './run-controller.js';
import { pickRunLimits, type RunLimits } from './run-limits.js';

/** What {@link CodeRuntimeBase.launch} gets besides the program: the request's determinism, when asked for. */
export interface LaunchOptions {
  readonly deterministic?: CodeRunDeterminism;
}

/**
 * The part of a provider that is the same for every backend: request validation, the run
 * controller, source-size budget, the set of runs in flight, and dispose to quiescence. A provider
 * extends it and implements {@link launch} (start the program in a substrate) and {@link shutdown}.
 */
export abstract class CodeRuntimeBase implements CodeRuntime {
  readonly specificationVersion = specificationVersion;
  abstract readonly id: string;
  abstract readonly language: CodeRuntimeLanguage;
  abstract readonly isolation: string;

  readonly #active = new Set<RunController>();
  #disposal: Promise<void> | undefined;

  /** The budgets every run gets, as the settings fixed them: the contract's `limits`. */
  readonly limits: RunLimits;

  protected constructor(limits: RunLimits) {
    this.limits = pickRunLimits(limits);
  }

  /**
   * Starts `program` for `run` in a substrate. Called only for a run that has not ended. The
   * provider calls `run.begin()` once the run holds a substrate ready for it (the wall clock starts
   * there; the wait before it is `usage.queuedMs`, bounded by `acquireTimeoutMs`), must eventually
   * call `run.finish(...)`, and must kill the substrate when `run.signal` aborts before it finished
   * the run itself. A throw here ends the run as `substrate-exit`.
   */
  protected abstract launch(run: RunController, program: string, options: LaunchOptions): void;

  /** Stops every substrate and resolves once they are gone. Called once, after every run has ended. */
  protected abstract shutdown(): Promise<void>;

  /**
   * Starts every substrate a run could need (the pool, a compile thread, a zygote) and resolves
   * once a run would start without waiting: `undefined`, or why one cannot. Must not reject, and
   * is called again on each {@link ready}, so it must be idempotent. The default has nothing to start.
   * `programs`: those about to run, when known (`CodeRuntimeReadyOptions.programs`).
   */
  protected warm(_programs?: readonly string[]): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  /** Whether {@link dispose} has been called. */
  protected get disposed(): boolean {
    return this.#disposal !== undefined;
  }

  start(request: CodeRunRequest): CodeRun {
    if (this.disposed) {
      throw new RuntimeDisposedError({
        message: `This ${this.id} code runtime was disposed; create a new one to run more programs.`,
      });
    }
    const { program, bindings, signal, onEvent, deterministic } = validateRequest(request, this);
    const run = new RunController({
      bindings: normalizeBindings(bindings),
      limits: this.limits,
      signal,
      onEvent,
      runtimeId: this.id,
      language: this.language,
    });
    if (run.ended) return run.run;

    const sourceBytes = utf8ByteLength(program);
    if (sourceBytes > this.limits.sourceBytes) {
      run.finish({
        ok: false,
        failure: {
          kind: 'exception',
          message: `The program is ${sourceBytes} bytes; the limit is ${this.limits.sourceBytes} bytes. Write a shorter program.`,
        },
      });
      return run.run;
    }
    this.#active.add(run);
    const forget = () => this.#active.delete(run);
    run.result.then(forget, forget);
    try {
      this.launch(run, program, deterministic === undefined ? {} : { deterministic });
    } catch (error) {
      run.finish({
        ok: false,
        failure: {
          kind: 'substrate-exit',
          message: `The ${this.id} runtime could not start the program: ${foreignText(error, this.limits.hostCallBytes)}`,
        },
      });
    }
    return run.run;
  }

  run(request: CodeRunRequest): Promise<CodeRunResult> {
    try {
      return this.start(request).result;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Starts the substrate now instead of at the first run, and resolves once a run would start
   * without waiting for it: `{ ok: true }`, or `{ ok: false, message }` saying why runs cannot start
   * (then they fail with the same reason). Never rejects; idempotent.
   */
  async ready(options?: CodeRuntimeReadyOptions): Promise<CodeRuntimeReadiness> {
    if (this.disposed) return { ok: false, message: `This ${this.id} code runtime was disposed.` };
    let problem: string | undefined;
    try {
      problem = await this.warm(options?.programs);
    } catch (error) {
      problem = foreignText(error, this.limits.hostCallBytes);
    }
    return problem === undefined ? { ok: true } : { ok: false, message: problem };
  }

  dispose(): Promise<void> {
    this.#disposal ??= (async () => {
      const runs = [...this.#active];
      for (const run of runs) run.cancel('the code runtime was disposed');
      await Promise.all(runs.map((run) => run.result));
      await this.shutdown();
    })();
    return this.#disposal;
  }
}

function validateRequest(request: CodeRunRequest, runtime: CodeRuntime): CodeRunRequest {
  if (typeof request !== 'object' || request === null) {
    throw new InvalidRequestError({
      message: 'The request must be an object with a `program` string.',
      field: 'request',
    });
  }
  if (typeof request.program !== 'string') {
    throw new InvalidRequestError({
      message: `request.program must be a string of source code, got ${typeof request.program}.`,
      field: 'program',
    });
  }
  const { signal, onEvent } = request;
  if (signal !== undefined && !(typeof signal === 'object' && signal !== null && typeof signal.aborted === 'boolean')) {
    throw new InvalidRequestError({ message: 'request.signal must be an AbortSignal.', field: 'signal' });
  }
  if (onEvent !== undefined && typeof onEvent !== 'function') {
    throw new InvalidRequestError({ message: 'request.onEvent must be a function.', field: 'onEvent' });
  }
  if (request.deterministic !== undefined) checkDeterminism(request.deterministic, runtime);
  return request;
}

function checkDeterminism(deterministic: CodeRunDeterminism, runtime: CodeRuntime): void {
  if (runtime.determinism === undefined) {
    throw new InvalidRequestError({
      message: `The ${runtime.id} code runtime cannot run a program deterministically; leave out request.deterministic, or use a runtime that has \`determinism\` (the quickjs, worker-thread and python providers).`,
      field: 'deterministic',
    });
  }
  if (typeof deterministic !== 'object' || deterministic === null) {
    throw new InvalidRequestError({
      message: 'request.deterministic must be an object like { seed: 7, startTime: 1764547200000 }.',
      field: 'deterministic',
    });
  }
  const { seed, startTime } = deterministic;
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new InvalidRequestError({
      message: `request.deterministic.seed must be an integer in [0, 2^32), got ${String(seed)}.`,
      field: 'deterministic.seed',
    });
  }
  if (!Number.isSafeInteger(startTime) || startTime < 0) {
    throw new InvalidRequestError({
      message: `request.deterministic.startTime must be milliseconds since the Unix epoch (a non-negative integer), got ${String(startTime)}.`,
      field: 'deterministic.startTime',
    });
  }
}
