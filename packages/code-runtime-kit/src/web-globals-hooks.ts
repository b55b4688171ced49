/**
 * What a provider hands each maker of web globals. Everything in it was created in the run's
 * context (or is a function of the guest's own): the provider's own timers, its way to fail the
 * run, and built-ins captured before the program ran (the worker-thread prelude captures them after
 * its memory meter, so buffers made for the program are charged).
 */
export interface WebHooks {
  /** The provider's `setTimeout`: counted against the `timers` budget. */
  readonly setTimeout: (callback: () => void, ms: number) => number;
  readonly clearTimeout: (id: number) => void;
  /** Ends the run with `error` as its exception, as an uncaught error in a callback would. */
  readonly fail: (error: unknown) => void;
  /** `Date.now` and `Math.random` as they were before the program ran. */
  readonly now: () => number;
  readonly random: () => number;
  /** When the current run began (`Date.now()`), for `performance.now`. */
  readonly startedAt: () => number;
  /** Makes `console` print an instance of `prototype` as the plain object `describer` returns for it. */
  readonly describe: (prototype: object, describer: (value: object) => object) => void;
}

/** Globals a maker adds, and internal helpers later makers use (never globals). */
export interface WebMade {
  readonly globals: Record<string, unknown>;
  readonly internal: Record<string, unknown>;
}
