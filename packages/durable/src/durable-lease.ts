import type { RunLease, RunStore } from '@sluice/run-store';
import { storeCall } from './durable-run-error.js';

/**
 * The lease one execution holds on its run: renewed every third of `leaseMs` while the execution
 * lasts, keeping its fencing token. `holds()` answers by this host's clock, counting from when the
 * last successful claim or renewal was sent, so it turns false no later than the store's lease
 * lapses, even in a process that was stopped (SIGSTOP) and has not heard from the store since.
 * A renewal that finds the run claimed by another execution calls `onLost` once.
 */
export class HeldLease {
  readonly #store: RunStore;
  readonly #leaseMs: number;
  readonly #onLost: () => void;
  readonly #timer: ReturnType<typeof setInterval>;
  #lease: RunLease;
  #heldUntil: number;
  #renewing = false;
  #lost = false;

  /** `sentAt`: `performance.now()` when the claim that gave `lease` was sent. */
  constructor(store: RunStore, lease: RunLease, leaseMs: number, sentAt: number, onLost: () => void) {
    this.#store = store;
    this.#lease = lease;
    this.#leaseMs = leaseMs;
    this.#heldUntil = sentAt + leaseMs;
    this.#onLost = onLost;
    this.#timer = setInterval(() => this.#renew(), Math.max(50, Math.floor(leaseMs / 3)));
    this.#timer.unref();
  }

  get lease(): RunLease {
    return this.#lease;
  }

  /** Whether the lease surely still holds: renewed less than `leaseMs` ago and not found lost. */
  holds(): boolean {
    return !this.#lost && performance.now() < this.#heldUntil;
  }

  #renew(): void {
    if (this.#renewing || this.#lost) return;
    this.#renewing = true;
    this.#renewOnce().then(
      () => {
        this.#renewing = false;
      },
      () => {
        this.#renewing = false;
      },
    );
  }

  /** Never rejects: a store that is away leaves the lease to lapse by the clock; only a claim by another execution loses it. */
  async #renewOnce(): Promise<void> {
    const sentAt = performance.now();
    let renewed: RunLease | undefined;
    try {
      renewed = await storeCall(() => this.#store.renewRun(this.#lease, this.#leaseMs));
    } catch {
      return;
    }
    if (renewed !== undefined) {
      this.#lease = renewed;
      this.#heldUntil = sentAt + this.#leaseMs;
      return;
    }
    this.#lost = true;
    try {
      this.#onLost();
    } catch {
      // The execution is stopped by its own path; a throwing hook must not escape a timer.
    }
  }

  /** Stops renewing; with `release`, gives the run up so another host can claim it at once. */
  async end(release: boolean): Promise<void> {
    clearInterval(this.#timer);
    // A failure to let the run go is harmless: the lease lapses on its own.
    if (release && !this.#lost) await storeCall(() => this.#store.releaseRun(this.#lease)).catch(() => {});
  }
}
