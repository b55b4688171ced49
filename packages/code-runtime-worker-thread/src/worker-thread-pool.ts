import { FifoQueue, type RunController } from '@sluice/code-runtime-kit';
import { WorkerProcess } from './worker-process.js';
import type { WorkerProcessContainment } from './worker-process-spawn.js';
import type { ResolvedWorkerThreadSettings } from './worker-thread-settings.js';

interface Waiter {
  readonly run: RunController;
  readonly resolve: (slot: WorkerProcess | undefined) => void;
}

const maxBootFailures = 3;

/**
 * Long-lived worker processes, up to `poolSize` of them, each serving one run at a time with its
 * one worker thread. Processes start as runs need them (one run starts one process), or all at once
 * on {@link warm}. A process whose worker was replaced (after a run ended any way other than the
 * program finishing by itself) comes back when it says it is ready; a process that died is
 * replaced in the background. Runs wait in arrival order for a free process; a run that ends while
 * waiting (acquire timeout, cancellation) leaves the queue. An arriving run gets the process freed
 * last, which is still warm, while the others stay asleep.
 */
export class WorkerPool {
  readonly #settings: ResolvedWorkerThreadSettings;
  readonly #containment: () => WorkerProcessContainment;
  readonly #slots = new Set<WorkerProcess>();
  readonly #idle: WorkerProcess[] = [];
  readonly #waiters = new FifoQueue<Waiter>();
  readonly #exits = new Set<Promise<void>>();
  /** Told when no process is starting any more: {@link warm}'s callers. */
  readonly #readyWaiters: Array<() => void> = [];
  /** How many processes the pool keeps: raised by demand and by {@link warm}, up to `poolSize`. */
  #target = 0;
  #bootFailures = 0;
  #lastProblem: string | undefined;
  #closed = false;

  constructor(settings: ResolvedWorkerThreadSettings, containment: () => WorkerProcessContainment) {
    this.#settings = settings;
    this.#containment = containment;
  }

  /** Resolves with an idle worker for `run`, or `undefined` if the run ended first (the run is then already finished). */
  acquire(run: RunController): Promise<WorkerProcess | undefined> {
    const idle = this.#idle.pop();
    if (idle !== undefined) return Promise.resolve(idle);
    this.#bootFailures = 0;
    return new Promise((resolve) => {
      const waiter: Waiter = { run, resolve };
      this.#waiters.push(waiter);
      // One more process only when those already on their way cannot serve every waiting run.
      if (this.#waiters.length > this.#coming()) this.#target = Math.min(this.#settings.poolSize, this.#target + 1);
      this.#fill();
      run.signal.addEventListener(
        'abort',
        () => {
          // Left in the queue and skipped when reached: removing it here would cost a scan per run.
          resolve(undefined);
        },
        { once: true },
      );
    });
  }

  /**
   * Starts every process up to `poolSize` and resolves once none is starting: `undefined`, or why
   * they fail to boot. Never rejects.
   */
  warm(): Promise<string | undefined> {
    if (this.#closed) return Promise.resolve('the code runtime was disposed');
    this.#target = this.#settings.poolSize;
    this.#bootFailures = 0;
    this.#fill();
    return new Promise((resolve) => {
      this.#readyWaiters.push(() =>
        resolve(
          this.#idle.length > 0 || this.#slots.size > 0
            ? undefined
            : (this.#lastProblem ?? 'no worker process started'),
        ),
      );
      this.#tellReady();
    });
  }

  /** Gives back a worker acquired for a run that ended before it could start. */
  release(slot: WorkerProcess): void {
    this.#onFree(slot, slot.state === 'idle');
  }

  /** Resolves once every worker stopped so far, and every process killed so far, has exited. */
  async quiet(): Promise<void> {
    await Promise.all([...this.#slots].map((slot) => slot.settled()));
    while (this.#exits.size > 0) await Promise.all([...this.#exits]);
  }

  /** Terminates every worker and resolves once they have all exited. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#waiters.drain()) waiter.resolve(undefined);
    this.#tellReady();
    await Promise.all([...this.#slots].map((slot) => slot.retire()));
    await this.quiet();
  }

  /** Processes that will be free without a run ending: starting, or having their worker replaced. */
  #coming(): number {
    let coming = 0;
    for (const slot of this.#slots) if (slot.state === 'starting' || slot.state === 'recycling') coming += 1;
    return coming;
  }

  /** Resolves {@link warm}'s callers once no process is starting (or the pool closed, or boots keep failing). */
  #tellReady(): void {
    if (this.#readyWaiters.length === 0) return;
    const settled =
      this.#closed ||
      this.#bootFailures >= maxBootFailures ||
      (this.#slots.size >= this.#target && ![...this.#slots].some((slot) => slot.state === 'starting'));
    if (settled) for (const tell of this.#readyWaiters.splice(0)) tell();
  }

  #fill(): void {
    while (!this.#closed && this.#slots.size < this.#target && this.#bootFailures < maxBootFailures) {
      const slot = new WorkerProcess(
        this.#settings,
        (free, reusable) => this.#onFree(free, reusable),
        this.#containment(),
      );
      this.#slots.add(slot);
    }
  }

  #onFree(slot: WorkerProcess, reusable: boolean): void {
    if (!reusable || this.#closed) {
      if (!this.#slots.delete(slot)) return;
      const exit = slot.retire();
      this.#exits.add(exit);
      const forget = () => this.#exits.delete(exit);
      exit.then(forget, forget);
      const idleIndex = this.#idle.indexOf(slot);
      if (idleIndex !== -1) this.#idle.splice(idleIndex, 1);
      if (this.#closed) return;
      if (slot.state === 'gone' && !slot.booted) {
        this.#bootFailures += 1;
        this.#lastProblem = slot.problem;
      }
      if (this.#bootFailures >= maxBootFailures) {
        this.#failWaiters(slot.problem);
        this.#tellReady();
        return;
      }
      // Refill once the old worker has exited: spawning takes the host thread and a core for
      // tens of milliseconds, which would otherwise slow the kill itself.
      const refill = () =>
        setImmediate(() => {
          if (this.#waiters.length > 0 || this.#slots.size > 0) this.#fill();
        });
      exit.then(refill, refill);
      return;
    }
    this.#bootFailures = 0;
    let waiter = this.#waiters.shift();
    while (waiter?.run.ended) waiter = this.#waiters.shift();
    if (waiter !== undefined) waiter.resolve(slot);
    else this.#idle.push(slot);
    this.#tellReady();
  }

  #failWaiters(problem: string | undefined): void {
    for (const waiter of this.#waiters.drain()) {
      waiter.run.finish({
        ok: false,
        failure: {
          kind: 'substrate-exit',
          message: `No worker process could be started to run the program; the worker-thread runtime is failing to boot them.${problem === undefined ? '' : ` ${problem}`}`,
        },
      });
      waiter.resolve(undefined);
    }
  }
}
