import { readFile } from 'node:fs/promises';
import { FifoQueue, type RunController } from '@sluice/code-runtime-kit';
import { quickJsWasmPath } from './quickjs-fingerprint.js';
import { type QuickJsRunConfig, type WasmModule, wasmApi } from './quickjs-frames.js';
import type { ResolvedQuickJsSettings } from './quickjs-settings.js';
import { QuickJsSlot } from './quickjs-slot.js';

let compiled: Promise<WasmModule> | undefined;

/** The QuickJS-ng WebAssembly module, compiled once per process and shared by every worker of every runtime. */
function wasmModule(): Promise<WasmModule> {
  compiled ??= readFile(quickJsWasmPath).then((bytes) => wasmApi.compile(bytes));
  return compiled;
}

interface Waiter {
  readonly run: RunController;
  readonly resolve: (slot: QuickJsSlot | undefined) => void;
}

/**
 * Up to `poolSize` long-lived QuickJS worker threads, each serving one run at a time with a fresh
 * QuickJS runtime. Threads start as runs need them (one run starts one thread), or all at once on
 * {@link warm}. A thread that trapped, was terminated or grew its memory is replaced; runs wait in
 * arrival order for a free thread, and one that ends while waiting leaves the queue. An arriving
 * run gets the thread freed last, which is still warm, while the others stay asleep.
 */
export class QuickJsPool {
  readonly #settings: ResolvedQuickJsSettings;
  readonly #config: QuickJsRunConfig;
  readonly #slots = new Set<QuickJsSlot>();
  readonly #idle: QuickJsSlot[] = [];
  readonly #waiters = new FifoQueue<Waiter>();
  readonly #script: string | undefined;
  /** Told when no thread is starting any more: {@link warm}'s callers, with why none could, if so. */
  readonly #readyWaiters: Array<(problem: string | undefined) => void> = [];
  /** How many threads the pool keeps: raised by demand and by {@link warm}, up to `poolSize`. */
  #target = 0;
  #closed = false;
  #filling = false;
  /** Threads in a row that ended before they were ready. */
  #startFailures = 0;
  /** Set when threads keep failing to start: no thread is started again until the next run asks. */
  #halted = false;

  /** `script` replaces the worker's script (tests). */
  constructor(settings: ResolvedQuickJsSettings, script?: string) {
    this.#settings = settings;
    this.#script = script;
    this.#config = {
      cpuTimeMs: settings.cpuTimeMs,
      memoryBytes: settings.memoryBytes,
      stackBytes: settings.stackBytes,
      logBytes: settings.logBytes,
      valueChars: settings.valueBytes,
      hostCallBytes: settings.hostCallBytes,
      hostCalls: settings.hostCalls,
      timers: settings.timers,
      maxDelayMs: settings.wallTimeMs,
      deterministic: settings.deterministic,
    };
  }

  /** Resolves with an idle thread for `run`, or `undefined` if the run ended first. */
  acquire(run: RunController): Promise<QuickJsSlot | undefined> {
    const idle = this.#idle.pop();
    if (idle !== undefined) return Promise.resolve(idle);
    this.#halted = false;
    return new Promise((resolve) => {
      this.#waiters.push({ run, resolve });
      run.signal.addEventListener('abort', () => resolve(undefined), { once: true });
      // One more thread only when those already starting cannot serve every waiting run.
      if (this.#waiters.length > this.#starting()) this.#target = Math.min(this.#settings.poolSize, this.#target + 1);
      this.#fill();
    });
  }

  /**
   * Loads the module, starts every thread up to `poolSize` and resolves once none is starting:
   * `undefined`, or why they cannot start. Never rejects.
   */
  warm(): Promise<string | undefined> {
    if (this.#closed) return Promise.resolve('the code runtime was disposed');
    this.#target = this.#settings.poolSize;
    this.#halted = false;
    this.#fill();
    return new Promise((resolve) => {
      this.#readyWaiters.push(resolve);
      this.#tellReady(undefined);
    });
  }

  /** Gives back a thread acquired for a run that ended before it started. */
  release(slot: QuickJsSlot): void {
    this.#onFree(slot, slot.state === 'idle');
  }

  /** Terminates every thread and resolves once they have all exited. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#waiters.drain()) waiter.resolve(undefined);
    this.#tellReady('the code runtime was disposed');
    await Promise.all([...this.#slots].map((slot) => slot.retire()));
  }

  #starting(): number {
    let starting = 0;
    for (const slot of this.#slots) if (slot.state === 'starting') starting += 1;
    return starting;
  }

  /**
   * Resolves {@link warm}'s callers once the pool has its threads and none is starting, or with
   * `problem` when they cannot start (or the pool closed).
   */
  #tellReady(problem: string | undefined): void {
    if (this.#readyWaiters.length === 0) return;
    if (problem === undefined && (this.#filling || this.#slots.size < this.#target || this.#starting() > 0)) return;
    for (const tell of this.#readyWaiters.splice(0)) tell(problem);
  }

  #fill(): void {
    if (this.#filling || this.#closed || this.#halted) return;
    this.#filling = true;
    wasmModule().then(
      (module) => {
        this.#filling = false;
        while (!this.#closed && !this.#halted && this.#slots.size < this.#target) {
          this.#slots.add(
            new QuickJsSlot(
              module,
              this.#settings,
              this.#config,
              (slot, reusable) => this.#onFree(slot, reusable),
              this.#script,
            ),
          );
        }
        this.#tellReady(undefined);
      },
      (error: unknown) => {
        this.#filling = false;
        compiled = undefined;
        this.#failWaiters(
          `The QuickJS WebAssembly module could not be loaded (${error instanceof Error ? error.message : String(error)}); nothing ran.`,
        );
      },
    );
  }

  #failWaiters(message: string): void {
    this.#tellReady(message);
    for (const waiter of this.#waiters.drain()) {
      waiter.run.finish({ ok: false, failure: { kind: 'substrate-exit', message } });
      waiter.resolve(undefined);
    }
  }

  #onFree(slot: QuickJsSlot, reusable: boolean): void {
    if (!reusable || this.#closed) {
      if (!this.#slots.delete(slot)) return;
      const failure = slot.startFailure;
      if (failure !== undefined && !this.#closed) {
        this.#startFailures += 1;
        // Two threads in a row could not start: the next would fail alike, so the runs waiting
        // fail now instead of waiting out their wall clock; the next run tries again.
        if (this.#startFailures >= 2) {
          this.#startFailures = 0;
          this.#halted = true;
          this.#failWaiters(`The QuickJS worker threads could not start (${failure}); nothing ran.`);
        }
      }
      const index = this.#idle.indexOf(slot);
      if (index !== -1) this.#idle.splice(index, 1);
      void slot
        .retire()
        .then(() => {
          if (!this.#closed && this.#waiters.length > 0) this.#fill();
        })
        // A failure to refill must not become an unhandled rejection; the next run refills.
        .catch(() => {});
      if (!this.#closed) this.#fill();
      return;
    }
    this.#startFailures = 0;
    let waiter = this.#waiters.shift();
    while (waiter?.run.ended) waiter = this.#waiters.shift();
    if (waiter !== undefined) waiter.resolve(slot);
    else this.#idle.push(slot);
    this.#tellReady(undefined);
  }
}
