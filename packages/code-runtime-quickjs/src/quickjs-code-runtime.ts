import type { CodeRunDeterminism, CodeRuntimeDeterminism, CodeRuntimeLanguage } from '@sluice/code-runtime';
import {
  CodeRuntimeBase,
  type CompiledProgram,
  type LaunchOptions,
  ProgramCompiler,
  type RunController,
} from '@sluice/code-runtime-kit';
import { quickJsFingerprint } from './quickjs-fingerprint.js';
import { QuickJsPool } from './quickjs-pool.js';
import {
  type QuickJsCodeRuntimeSettings,
  type ResolvedQuickJsSettings,
  resolveQuickJsSettings,
} from './quickjs-settings.js';
import type { QuickJsSlot } from './quickjs-slot.js';

const mebibyte = 1024 * 1024;

/** The `isolation` sentence for a set of settings: what this provider really applies, and what it does not. */
export function describeQuickJsIsolation(settings: ResolvedQuickJsSettings): string {
  return (
    'Each run gets a fresh QuickJS-ng runtime and context, interpreted inside a WebAssembly module in a worker thread ' +
    "of the host process (one run at a time per thread); the program's heap lives in that module's linear memory, " +
    `capped at ${Math.round(settings.memoryBytes / mebibyte)} MiB of QuickJS allocations and a WebAssembly memory ` +
    `maximum ${24} MiB above it, so running out is an error inside the guest. The guest's only globals are the ` +
    'standard built-ins (no SharedArrayBuffer, Atomics or WebAssembly), console, timers, performance.now, crypto ' +
    'and the granted host functions, built through the QuickJS API, and web-standard helpers (URL, TextEncoder, ' +
    'atob, structuredClone, AbortController and the like) made from plain JavaScript inside the guest on first use: ' +
    'no host object, file, network, process or ' +
    'module loader is reachable, and only JSON text crosses, checked on the host. ' +
    `The ${settings.wallTimeMs} ms wall clock and ${settings.cpuTimeMs} ms CPU budget are enforced by the ` +
    "interpreter's interrupt handler, with termination of the thread as the backstop" +
    (settings.deterministic === undefined
      ? '. '
      : `; deterministic mode: a virtual clock from ${settings.deterministic.startTime} and randomness seeded with ${settings.deterministic.seed}. `) +
    "It shares the host's process, kernel and user id: an exploit that escapes the WebAssembly sandbox (a V8 bug) " +
    'reaches the host, and timing side channels are not addressed.'
  );
}

/**
 * Runs TypeScript and JavaScript programs in QuickJS compiled to WebAssembly, a fresh runtime per
 * run in pooled worker threads. Create it with {@link createQuickJsCodeRuntime}.
 */
export class QuickJsCodeRuntime extends CodeRuntimeBase {
  readonly id = 'quickjs';
  readonly language: CodeRuntimeLanguage = 'typescript';
  /** The settings in force, defaults filled in. */
  readonly settings: ResolvedQuickJsSettings;
  readonly isolation: string;
  readonly #compiler = new ProgramCompiler();
  readonly #pool: QuickJsPool;

  /** `workerScript` replaces the worker threads' script (tests); create a runtime with {@link createQuickJsCodeRuntime}. */
  constructor(settings: ResolvedQuickJsSettings, workerScript?: string) {
    super(settings);
    this.settings = settings;
    this.isolation = describeQuickJsIsolation(settings);
    this.#pool = new QuickJsPool(settings, workerScript);
  }

  /**
   * Every run can be deterministic (`request.deterministic`, or the `deterministic` setting): the
   * guest's clock and randomness come from the host. The fingerprint hashes the WebAssembly engine,
   * the worker's guest code and the web globals' source, so it changes when any of them does.
   */
  get determinism(): CodeRuntimeDeterminism {
    return { fingerprint: quickJsFingerprint() };
  }

  protected launch(run: RunController, program: string, options: LaunchOptions): void {
    this.#launch(run, program, options.deterministic ?? this.settings.deterministic).catch((error: unknown) =>
      this.#failToStart(run, error),
    );
  }

  #failToStart(run: RunController, error: unknown): void {
    run.finish({
      ok: false,
      failure: {
        kind: 'substrate-exit',
        message: `The QuickJS runtime failed to start the program: ${error instanceof Error ? error.message : String(error)}`,
      },
    });
  }

  async #launch(run: RunController, source: string, deterministic: CodeRunDeterminism | undefined): Promise<void> {
    // The compile thread is substrate too: the first run waits for it to start, not the program.
    const [slot] = await Promise.all([this.#acquire(run), this.#compiler.warm([source])]);
    if (slot === undefined) return;
    // The run holds its thread: from here the time is the program's, compiling it included.
    const program = await this.#compiler.compileFor(run, source, () => this.#pool.release(slot));
    if (program !== undefined) this.#execute(run, slot, program, deterministic);
  }

  /** A free thread for `run`, or `undefined` once the run has ended (any thread got is given back). */
  async #acquire(run: RunController): Promise<QuickJsSlot | undefined> {
    const slot = await this.#pool.acquire(run);
    if (slot !== undefined && run.ended) {
      this.#pool.release(slot);
      return undefined;
    }
    return slot;
  }

  #execute(
    run: RunController,
    slot: QuickJsSlot,
    program: CompiledProgram,
    deterministic: CodeRunDeterminism | undefined,
    refusedBefore = false,
  ): void {
    slot.execute(run, program, deterministic, (reason) => {
      // Once: a second thread refusing too means no thread can make a context.
      if (refusedBefore) {
        this.#failToStart(run, new Error(reason));
        return;
      }
      this.#acquire(run)
        .then((next) => {
          if (next !== undefined) this.#execute(run, next, program, deterministic, true);
        })
        .catch((error: unknown) => this.#failToStart(run, error));
    });
  }

  /**
   * Loads the WebAssembly module, starts every thread of the pool and the compile thread (not when
   * `programs` are given and none needs it); resolves once they are ready.
   */
  protected override async warm(programs?: readonly string[]): Promise<string | undefined> {
    const [problem] = await Promise.all([this.#pool.warm(), this.#compiler.warm(programs)]);
    return problem;
  }

  protected shutdown(): Promise<void> {
    return this.#pool.close();
  }
}

/**
 * Creates a QuickJS code runtime. Synchronous and free of I/O: every setting is validated here
 * (throwing `InvalidSettingsError` naming the first bad one); the module and workers load on the first run.
 *
 * @example
 * ```ts
 * const runtime = createQuickJsCodeRuntime({ wallTimeMs: 5_000, deterministic: { seed: 7, startTime: 0 } });
 * const result = await runtime.run({ program: 'return Math.random();' });
 * ```
 */
export function createQuickJsCodeRuntime(settings: QuickJsCodeRuntimeSettings = {}): QuickJsCodeRuntime {
  return new QuickJsCodeRuntime(resolveQuickJsSettings(settings));
}
