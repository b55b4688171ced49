import { FifoQueue } from './fifo-queue.js';
import type { RunController } from './run-controller.js';

interface Waiter {
  readonly run: RunController;
  readonly admit: (admitted: boolean) => void;
}

/**
 * Lets at most `size` runs through at once, in arrival order: a provider whose substrate is made
 * per run (a forked child) bounds how many run together with it. A run holds its place until it
 * ends, for any reason; a run that ends while it waits leaves the queue.
 */
export class RunGate {
  readonly #size: number;
  readonly #waiting = new FifoQueue<Waiter>();
  #inside = 0;

  constructor(size: number) {
    this.#size = size;
  }

  /** Resolves `true` once `run` may go on, or `false` if it ended first. Never rejects. */
  enter(run: RunController): Promise<boolean> {
    if (run.ended) return Promise.resolve(false);
    if (this.#inside < this.#size) {
      this.#hold(run);
      return Promise.resolve(true);
    }
    return new Promise((admit) => {
      this.#waiting.push({ run, admit });
      run.signal.addEventListener('abort', () => admit(false), { once: true });
    });
  }

  #hold(run: RunController): void {
    this.#inside += 1;
    run.signal.addEventListener(
      'abort',
      () => {
        this.#inside -= 1;
        this.#next();
      },
      { once: true },
    );
  }

  #next(): void {
    while (this.#inside < this.#size) {
      const waiter = this.#waiting.shift();
      if (waiter === undefined) return;
      if (waiter.run.ended) continue;
      this.#hold(waiter.run);
      waiter.admit(true);
    }
  }
}
