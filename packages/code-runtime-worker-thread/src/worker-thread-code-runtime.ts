import type { CodeRunDeterminism, CodeRuntimeDeterminism, CodeRuntimeLanguage } from '@sluice/code-runtime';
import { CodeRuntimeBase, type LaunchOptions, type RunController } from '@sluice/code-runtime-kit';
import {
  addressSpaceBytes,
  missingLayers,
  probeContainment,
  type WorkerProcessContainment,
} from './worker-process-spawn.js';
import { ProgramCompiler } from './worker-thread-compile.js';
import { workerThreadFingerprint } from './worker-thread-fingerprint.js';
import { WorkerPool } from './worker-thread-pool.js';
import {
  type ResolvedWorkerThreadSettings,
  resolveWorkerThreadSettings,
  type WorkerThreadCodeRuntimeSettings,
} from './worker-thread-settings.js';

const mebibyte = 1024 * 1024;

function mib(bytes: number): string {
  return `${Math.round((bytes / mebibyte) * 10) / 10} MiB`;
}

/**
 * The `isolation` sentence for a set of settings and the OS layers this machine allowed: what the
 * provider really applies, and what it does not.
 */
export function describeWorkerThreadIsolation(
  settings: ResolvedWorkerThreadSettings,
  containment: WorkerProcessContainment = probeContainment(),
): string {
  const memory = mib(settings.memoryBytes);
  const layers = [
    'an empty environment',
    'a private working directory removed afterwards',
    'no inherited file descriptors beyond its three pipes',
  ];
  if (containment.network) layers.push('its own network namespace with no interface up (no network)');
  if (containment.rlimits) {
    layers.push(
      `rlimits (address space ${mib(addressSpaceBytes(settings.memoryBytes))}, 256 open files, no file writes, no core dumps)`,
    );
  }
  if (containment.nice) layers.push("the program's thread at a lower priority (nice +5)");
  if (containment.permissions) {
    layers.push(
      "Node's permission model (no file reads beyond its own script and package.json, no file writes, no child processes, no addons)",
    );
  }
  const missing = missingLayers(containment);
  return (
    'Each run gets a fresh V8 context in the worker thread of a supervised child process that serves one run at a ' +
    "time; the context's only globals are the standard built-ins, console, timers, web-standard helpers written in " +
    'the context itself (URL, TextEncoder, atob, structuredClone, crypto.randomUUID, AbortController and the like) ' +
    'and the granted host functions (no require, import(), process, fetch, Buffer, WebAssembly or SharedArrayBuffer; eval and new ' +
    'Function disabled), and only JSON text crosses between the program and the host, where host calls are checked. ' +
    `The process has ${layers.join(', ')}. ` +
    `The worker's JavaScript heap is capped at ${memory} and ArrayBuffer/typed-array memory is metered against the ` +
    `same ${memory}; the ${settings.wallTimeMs} ms wall clock and ${settings.cpuTimeMs} ms busy-time budget are ` +
    'enforced by terminating the worker, and a process that does not comply is killed. An engine crash or a heap ' +
    'exhausted by one allocation ends only that process and its run. ' +
    (missing.length > 0 ? `Not applied on this machine: ${missing.join(', ')}. ` : '') +
    "It shares the host's kernel and user id, with no system-call filter: a kernel exploit or an engine exploit that " +
    'reaches native code escapes the process, and timing side channels are not addressed.'
  );
}

/**
 * Runs TypeScript and JavaScript programs in pooled worker processes, each run in a fresh V8
 * context in the process's worker thread. Create it with {@link createWorkerThreadCodeRuntime}.
 */
export class WorkerThreadCodeRuntime extends CodeRuntimeBase {
  readonly id = 'worker-thread';
  readonly language: CodeRuntimeLanguage = 'typescript';
  /** The settings in force, defaults filled in. */
  readonly settings: ResolvedWorkerThreadSettings;
  readonly #compiler = new ProgramCompiler();
  readonly #pool: WorkerPool;
  #isolation: string | undefined;
  #containment: WorkerProcessContainment | undefined;

  /**
   * @param containment The OS layers to apply; by default what this machine allows (probed once, on
   * first need). Tests pass fewer to see the runtime without them.
   */
  constructor(settings: ResolvedWorkerThreadSettings, containment?: WorkerProcessContainment) {
    super(settings);
    this.settings = settings;
    this.#containment = containment;
    this.#pool = new WorkerPool(settings, () => this.#layers());
  }

  /** What is really applied on this machine; found on first read (a few short probe commands), never throws. */
  get isolation(): string {
    this.#isolation ??= describeWorkerThreadIsolation(this.settings, this.#layers());
    return this.#isolation;
  }

  #layers(): WorkerProcessContainment {
    this.#containment ??= probeContainment();
    return this.#containment;
  }

  /**
   * Resolves once every worker stopped so far (killed at a deadline, cancelled, out of memory) and
   * every worker process killed so far has really exited: a kill is complete, not just requested.
   */
  quiet(): Promise<void> {
    return this.#pool.quiet();
  }

  /**
   * Every run can be deterministic (`request.deterministic`): a virtual clock, seeded randomness and
   * host results delivered in call order, set up per run inside its context. The fingerprint hashes
   * the scripts the worker processes load and the host side, with the Node, V8 and ICU versions.
   * Read on first use (it reads those files once per process).
   */
  get determinism(): CodeRuntimeDeterminism {
    return { fingerprint: workerThreadFingerprint() };
  }

  protected launch(run: RunController, program: string, options: LaunchOptions): void {
    void this.#launch(run, program, options.deterministic).catch((error: unknown) => {
      run.finish({
        ok: false,
        failure: {
          kind: 'substrate-exit',
          message: `The worker-thread runtime failed to start the program: ${error instanceof Error ? error.message : String(error)}`,
        },
      });
    });
  }

  /** Why no program may run, when `requireContainment` is on and this machine lacks a layer. */
  #containmentRefusal(): string | undefined {
    if (!this.settings.requireContainment) return undefined;
    const missing = missingLayers(this.#layers());
    if (missing.length === 0) return undefined;
    return `The requireContainment setting is on, and this machine cannot apply ${missing.join(', ')} to the worker processes; no program will run. Turn requireContainment off to run with the layers available.`;
  }

  async #launch(run: RunController, source: string, deterministic: CodeRunDeterminism | undefined): Promise<void> {
    const refusal = this.#containmentRefusal();
    if (refusal !== undefined) {
      run.finish({ ok: false, failure: { kind: 'substrate-exit', message: refusal } });
      return;
    }
    // The compile thread is substrate too: the first run waits for it to start, not the program.
    const [slot] = await Promise.all([this.#pool.acquire(run), this.#compiler.warm([source])]);
    if (slot === undefined) return;
    if (run.ended) {
      this.#pool.release(slot);
      return;
    }
    // The run holds its worker: from here the time is the program's, compiling it included.
    const program = await this.#compiler.compileFor(run, source, () => this.#pool.release(slot));
    if (program !== undefined) slot.execute(run, program, deterministic);
  }

  /**
   * Starts every worker process of the pool and the compile thread (not when `programs` are given
   * and none needs it); resolves once they are ready.
   */
  protected override async warm(programs?: readonly string[]): Promise<string | undefined> {
    const refusal = this.#containmentRefusal();
    if (refusal !== undefined) return refusal;
    const [problem] = await Promise.all([this.#pool.warm(), this.#compiler.warm(programs)]);
    return problem;
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
