import type { CodeRuntimeLanguage } from '@sluice/code-runtime';
import { CodeRuntimeBase, type RunController } from '@sluice/code-runtime-kit';
import { ProgramCompiler } from './worker-thread-compile.js';
import { WorkerPool } from './worker-thread-pool.js';
import {
  type ResolvedWorkerThreadSettings,
  resolveWorkerThreadSettings,
  type WorkerThreadCodeRuntimeSettings,
} from './worker-thread-settings.js';

const mebibyte = 1024 * 1024;

/** The `isolation` sentence for a set of settings: what the provider really applies, and what it does not. */
export function describeWorkerThreadIsolation(settings: ResolvedWorkerThreadSettings): string {
  const memory = `${Math.round((settings.memoryBytes / mebibyte) * 10) / 10} MiB`;
  return (
    'Each run gets a fresh V8 context in a pooled Node worker thread of the host process, whose only globals are ' +
    'the standard built-ins, console, setTimeout/clearTimeout and the granted host functions (no require, import(), ' +
    'process, fetch, Buffer, WebAssembly or SharedArrayBuffer; eval and new Function disabled); only JSON text ' +
    'crosses between the program and the host, and host calls are checked on the host side. ' +
    `The worker's JavaScript heap is capped at ${memory} and ArrayBuffer/typed-array memory is metered against the ` +
    `same ${memory} where a program allocates it; the ${settings.wallTimeMs} ms wall clock and ` +
    `${settings.cpuTimeMs} ms busy-time budget are enforced by terminating the worker. ` +
    'It is not an OS boundary: it shares the host process, so a V8 or Node bug, or native memory outside those ' +
    'paths (for example Intl data), reaches the host, and timing side channels are not addressed.'
  );
}

/**
 * Runs TypeScript and JavaScript programs in pooled worker threads, each run in a fresh V8
 * context. Create it with {@link createWorkerThreadCodeRuntime}.
 */
export class WorkerThreadCodeRuntime extends CodeRuntimeBase {
  readonly id = 'worker-thread';
  readonly language: CodeRuntimeLanguage = 'typescript';
  readonly isolation: string;
  /** The settings in force, defaults filled in. */
  readonly settings: ResolvedWorkerThreadSettings;
  readonly #compiler = new ProgramCompiler();
  readonly #pool: WorkerPool;

  constructor(settings: ResolvedWorkerThreadSettings) {
    super(settings);
    this.settings = settings;
    this.isolation = describeWorkerThreadIsolation(settings);
    this.#pool = new WorkerPool(settings);
  }

  /**
   * Resolves once every worker retired so far (killed at a deadline, cancelled, out of memory) has
   * really exited: a kill is complete, not just requested.
   */
  quiet(): Promise<void> {
    return this.#pool.quiet();
  }

  protected launch(run: RunController, program: string): void {
    void this.#launch(run, program).catch((error: unknown) => {
      run.finish({
        ok: false,
        failure: {
          kind: 'substrate-exit',
          message: `The worker-thread runtime failed to start the program: ${error instanceof Error ? error.message : String(error)}`,
        },
      });
    });
  }

  async #launch(run: RunController, source: string): Promise<void> {
    const compiled = await this.#compiler.compile(source);
    if (run.ended) return;
    if (!compiled.ok) {
      run.finish({ ok: false, failure: compiled.failure });
      return;
    }
    const slot = await this.#pool.acquire(run);
    if (slot === undefined) return;
    if (run.ended) {
      this.#pool.release(slot);
      return;
    }
    slot.execute(run, compiled.program);
  }

  protected shutdown(): Promise<void> {
    return this.#pool.close();
  }
}

/**
 * Creates a worker-thread code runtime. Synchronous and free of I/O: every setting is validated
 * here (throwing `InvalidSettingsError` naming the first bad one), and workers start on the first run.
 *
 * @example
 * ```ts
 * const runtime = createWorkerThreadCodeRuntime({ wallTimeMs: 5_000 });
 * const result = await runtime.run({
 *   program: 'const r = await tools.add({ a: 1, b: 2 }); return r;',
 *   bindings: { tools: { add: async (input) => (input as { a: number; b: number }).a + (input as { a: number; b: number }).b } },
 * });
 * ```
 */
export function createWorkerThreadCodeRuntime(settings: WorkerThreadCodeRuntimeSettings = {}): WorkerThreadCodeRuntime {
  return new WorkerThreadCodeRuntime(resolveWorkerThreadSettings(settings));
}
