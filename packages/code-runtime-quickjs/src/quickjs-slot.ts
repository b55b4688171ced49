import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CodeRunDeterminism } from '@sluice/code-runtime';
import { type CompiledProgram, mapProgramPositions, type RunController } from '@sluice/code-runtime-kit';
import { describeQuickJsEnding } from './quickjs-failures.js';
import type { QuickJsRunConfig, QuickJsToHost, QuickJsWorkerBoot, WasmModule } from './quickjs-frames.js';
import type { ResolvedQuickJsSettings } from './quickjs-settings.js';

export const workerScript = fileURLToPath(new URL('../dist/quickjs-worker-main.js', import.meta.url));
const levelNames = ['log', 'log', 'info', 'debug', 'warn', 'error'] as const;
// A run the interrupt handler cannot stop (a long native operation) is ended by terminating the thread.
const backstopMs = 250;
// QuickJS checks its stack limit (`stackBytes`, at most 256 KiB) on the emscripten shadow stack, but
// wasm frames use this thread's V8 stack: the parser's recursion (5 000 nested parentheses in
// `eval`) takes about 18 times as much V8 stack as shadow stack, and needed 4–5 MiB at 256 KiB.
// Room for three times that keeps the engine's own catchable error first; a trap would end the run
// as `substrate-exit`. Only the pages a deep recursion touches become resident.
const workerStackMb = 16;

interface ActiveRun {
  readonly controller: RunController;
  readonly program: CompiledProgram;
  readonly seq: number;
  /** Gives the run to another thread: this one refused it before it started, for `reason`. */
  readonly retry: (reason: string) => void;
  backstop?: ReturnType<typeof setTimeout>;
}

/**
 * One QuickJS worker thread and the run it serves. Logs, calls and the ending it reports are fed
 * to the run's controller; when the controller ends the run first (wall clock, cancel, dispose),
 * the thread is told to stop through shared memory, and terminated if it does not answer in time.
 */
export class QuickJsSlot {
  readonly #worker: Worker;
  readonly #control: Int32Array;
  readonly #onFree: (slot: QuickJsSlot, reusable: boolean) => void;
  readonly #settings: ResolvedQuickJsSettings;
  readonly exited: Promise<void>;
  #state: 'starting' | 'idle' | 'busy' | 'gone' = 'starting';
  #seq = 0;
  #run: ActiveRun | undefined;
  #startFailure: string | undefined;
  #terminating = false;

  constructor(
    wasmModule: WasmModule,
    settings: ResolvedQuickJsSettings,
    config: QuickJsRunConfig,
    onFree: (slot: QuickJsSlot, reusable: boolean) => void,
    script = workerScript,
  ) {
    this.#onFree = onFree;
    this.#settings = settings;
    const control = new SharedArrayBuffer(4);
    this.#control = new Int32Array(control);
    const boot: QuickJsWorkerBoot = { wasmModule, control, config };
    this.#worker = new Worker(script, {
      workerData: boot,
      env: {},
      argv: [],
      execArgv: [],
      stdin: false,
      stdout: false,
      stderr: false,
      name: 'sluice-quickjs',
      // The program's heap is in WebAssembly memory; this thread's own heap holds only strings in transit.
      resourceLimits: {
        maxOldGenerationSizeMb: 64 + Math.ceil((4 * config.memoryBytes) / (1024 * 1024)),
        stackSizeMb: workerStackMb,
      },
    });
    this.#worker.on('message', (message: QuickJsToHost) => this.#onMessage(message));
    // The exit event that follows ends the run.
    this.#worker.on('error', () => {});
    this.exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()));
    // A bug of ours in the exit handler must not become an unhandled rejection that ends the host.
    void this.exited.then(() => this.#onExit()).catch(() => {});
  }

  get state(): 'starting' | 'idle' | 'busy' | 'gone' {
    return this.#state;
  }

  /** Why the thread ended before it was ready, if it did: what it said, or that it exited. */
  get startFailure(): string | undefined {
    return this.#startFailure;
  }

  /**
   * Runs `program` for `controller`. Only on an idle slot. If the thread refuses the run before it
   * starts (its engine failed while it waited), `retry` is called to give the run to another thread.
   */
  execute(
    controller: RunController,
    program: CompiledProgram,
    deterministic: CodeRunDeterminism | undefined,
    retry: (reason: string) => void,
  ): void {
    this.#state = 'busy';
    this.#seq += 1;
    const run: ActiveRun = { controller, program, seq: this.#seq, retry };
    this.#run = run;
    controller.signal.addEventListener('abort', () => this.#stop(run), { once: true });
    const bindings = [...controller.bindings.keys()];
    this.#worker.postMessage({
      type: 'run',
      seq: run.seq,
      code: program.code,
      bindings,
      ...(deterministic === undefined
        ? {}
        : { deterministic: { seed: deterministic.seed, startTime: deterministic.startTime } }),
    });
  }

  /**
   * Terminates the thread. Idempotent; resolves when it has exited. Also for a slot already `gone`
   * (its run retired the engine, or the thread refused a run): `gone` says the pool was told, not
   * that the thread has ended.
   */
  retire(): Promise<void> {
    this.#state = 'gone';
    if (!this.#terminating) {
      this.#terminating = true;
      void this.#worker.terminate().catch(() => {});
    }
    return this.exited;
  }

  #stop(run: ActiveRun): void {
    if (this.#run !== run) return;
    Atomics.store(this.#control, 0, run.seq);
    this.#worker.postMessage({ type: 'stop', seq: run.seq });
    run.backstop = setTimeout(() => {
      if (this.#run === run) {
        this.#run = undefined;
        this.#onFree(this, false);
      }
    }, backstopMs);
  }

  #onMessage(message: QuickJsToHost): void {
    if (message.type === 'failed') {
      this.#startFailure = message.reason;
      return;
    }
    if (message.type === 'ready') {
      if (this.#state === 'starting') {
        this.#state = 'idle';
        this.#onFree(this, true);
      }
      return;
    }
    const run = this.#run;
    if (run === undefined || message.seq !== run.seq) return;
    if (message.type === 'refused') {
      clearTimeout(run.backstop);
      this.#run = undefined;
      this.#state = 'gone';
      this.#onFree(this, false);
      if (!run.controller.ended) run.retry(message.reason);
      return;
    }
    const { controller } = run;
    if (message.type === 'log') {
      const text = mapProgramPositions(run.program, message.text);
      if (text !== undefined) controller.log(levelNames[message.level] ?? 'log', text);
    } else if (message.type === 'call') {
      let input: unknown;
      try {
        input = JSON.parse(message.input);
      } catch {
        input = null;
      }
      // check-promises: call() never rejects; a late reply is dropped by the seq check.
      controller
        .call(
          message.namespace,
          message.name,
          message.positional ? null : input,
          message.positional ? input : undefined,
        )
        .then(
          (reply) => {
            if (reply === undefined || this.#run !== run) return;
            const text = reply.ok ? JSON.stringify(reply.value) : reply.error;
            this.#worker.postMessage({ type: 'reply', seq: run.seq, callId: message.callId, ok: reply.ok, text });
          },
          () => {},
        );
    } else if (message.type === 'done') {
      clearTimeout(run.backstop);
      this.#run = undefined;
      controller.finish(describeQuickJsEnding(run.program, message.ending, this.#settings), {
        cpuMs: message.cpuMs,
        peakMemoryBytes: message.peakMemoryBytes,
      });
      if (message.retire) {
        this.#state = 'gone';
        this.#onFree(this, false);
      } else {
        this.#state = 'idle';
        this.#onFree(this, true);
      }
    }
  }

  #onExit(): void {
    const run = this.#run;
    this.#run = undefined;
    if (this.#state === 'starting') this.#startFailure ??= 'the thread exited before it was ready';
    const wasGone = this.#state === 'gone';
    this.#state = 'gone';
    if (run !== undefined) {
      clearTimeout(run.backstop);
      run.controller.finish({
        ok: false,
        failure: {
          kind: 'substrate-exit',
          message: 'The QuickJS worker thread ended unexpectedly while running the program.',
        },
      });
    }
    if (!wasGone || run !== undefined) this.#onFree(this, false);
  }
}
