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
    const compiled = await this.#compiler.compile(source, run.signal);
    if (run.ended) return;
    if (!compiled.ok) {
      run.finish({ ok: false, failure: compiled.failure });
      return;
    }
    await this.#execute(run, compiled.program, deterministic);
  }

  async #execute(
    run: RunController,
    program: CompiledProgram,
    deterministic: CodeRunDeterminism | undefined,
    refusedBefore = false,
  ): Promise<void> {
    const slot = await this.#pool.acquire(run);
    if (slot === undefined) return;
    if (run.ended) {
      this.#pool.release(slot);
      return;
    }
    slot.execute(run, program, deterministic, (reason) => {
      // Once: a second thread refusing too means no thread can make a context.
      if (refusedBefore) this.#failToStart(run, new Error(reason));
      else this.#execute(run, program, deterministic, true).catch((error: unknown) => this.#failToStart(run, error));
    });
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
