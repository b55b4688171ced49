// A run store that fails on purpose: wraps a real store and makes one chosen call fail, the way a
// database that goes away mid-run does.
import type { RunStore } from '@sluice/run-store';

/** How the chosen call fails: it rejects, throws before returning a promise, or hangs for a while and then goes through. */
export type StoreFault = 'reject' | 'throw' | 'stall';

/** The store method a fault targets. */
export type StoreMethod = Exclude<keyof RunStore, 'kind'>;

/** A {@link faultyRunStore}: the store to hand out and the levers of the test. */
export interface FaultyRunStore {
  readonly store: RunStore;
  /** Every call made, by method name, in order. */
  readonly calls: string[];
  /**
   * Makes the `nth` call (from 1, counted from now) of `method`, and every later one until
   * {@link heal}, fail with `fault`; a `stall` waits for {@link release} instead, once.
   */
  failOn(method: StoreMethod, nth: number, fault: StoreFault): void;
  /** Resolves when the fault has struck. */
  readonly struck: Promise<void>;
  /** Lets a stalled call through. */
  release(): void;
  /** How the stalled call settled once let through: its value, or its error (never rejects). */
  readonly stalled: Promise<unknown>;
  /** The store works again. */
  heal(): void;
}

/** The message every injected failure carries, so a test can find it in the errors it sees. */
export const storeFaultMessage = 'the database connection was lost';

export function faultyRunStore(real: RunStore): FaultyRunStore {
  const calls: string[] = [];
  let plan: { method: string; remaining: number; fault: StoreFault } | undefined;
  let struck = deferred();
  let gate = deferred();
  let stalled: Promise<unknown> = Promise.resolve(undefined);
  const store = new Proxy(real, {
    get(target, key) {
      const value = Reflect.get(target, key) as unknown;
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      return (...args: unknown[]) => {
        calls.push(key);
        const forward = () => (value as (...values: unknown[]) => Promise<unknown>).apply(target, args);
        if (plan?.method !== key || --plan.remaining > 0) return forward();
        struck.resolve();
        if (plan.fault === 'throw') throw new Error(storeFaultMessage);
        if (plan.fault === 'reject') return Promise.reject(new Error(storeFaultMessage));
        plan = undefined;
        const late = gate.promise.then(forward);
        stalled = late.then(
          (value) => value,
          (error: unknown) => error,
        );
        return late;
      };
    },
  });
  return {
    store,
    calls,
    failOn(method, nth, fault) {
      plan = { method, remaining: nth, fault };
      struck = deferred();
      gate = deferred();
    },
    get struck() {
      return struck.promise;
    },
    release: () => gate.resolve(),
    get stalled() {
      return stalled;
    },
    heal() {
      plan = undefined;
      gate.resolve();
    },
  };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
