import { SluiceError, type SluiceErrorOptions } from '@sluice/code-runtime';

const runStoreMarker: unique symbol = Symbol.for('sluice.error.RunStoreError');
const conflictMarker: unique symbol = Symbol.for('sluice.error.RunStoreConflictError');
const notFoundMarker: unique symbol = Symbol.for('sluice.error.RunStoreNotFoundError');
const expiredMarker: unique symbol = Symbol.for('sluice.error.RunStoreExpiredError');
const limitMarker: unique symbol = Symbol.for('sluice.error.RunStoreLimitError');
const leaseLostMarker: unique symbol = Symbol.for('sluice.error.RunStoreLeaseLostError');

function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
}

/**
 * What the caller did wrong with a run store: a value of the wrong shape, a store used after
 * `close()`, a database whose schema is newer than this package. The subclasses name the common
 * cases; failed connections and queries reject with the database client's own error instead.
 */
export class RunStoreError extends SluiceError {
  readonly [runStoreMarker] = true;

  constructor(options: SluiceErrorOptions) {
    super(options);
    this.name = 'RunStoreError';
  }

  /** Whether `error` is a {@link RunStoreError} (or a subclass) from any copy of this package. */
  static override isInstance(error: unknown): error is RunStoreError {
    return hasMarker(error, runStoreMarker);
  }
}

/** The run id or pause token is already taken, or the run already paused at that call. */
export class RunStoreConflictError extends RunStoreError {
  readonly [conflictMarker] = true;

  constructor(options: SluiceErrorOptions) {
    super(options);
    this.name = 'RunStoreConflictError';
  }

  static override isInstance(error: unknown): error is RunStoreConflictError {
    return hasMarker(error, conflictMarker);
  }
}

/** No such run, pause token or journal entry. */
export class RunStoreNotFoundError extends RunStoreError {
  readonly [notFoundMarker] = true;

  constructor(options: SluiceErrorOptions) {
    super(options);
    this.name = 'RunStoreNotFoundError';
  }

  static override isInstance(error: unknown): error is RunStoreNotFoundError {
    return hasMarker(error, notFoundMarker);
  }
}

/** The pause token's time ran out before a decision came. */
export class RunStoreExpiredError extends RunStoreError {
  readonly [expiredMarker] = true;

  constructor(options: SluiceErrorOptions) {
    super(options);
    this.name = 'RunStoreExpiredError';
  }

  static override isInstance(error: unknown): error is RunStoreExpiredError {
    return hasMarker(error, expiredMarker);
  }
}

/** A stored value, or a conversation's values together, would pass `storedValueLimits`. */
export class RunStoreLimitError extends RunStoreError {
  readonly [limitMarker] = true;

  constructor(options: SluiceErrorOptions) {
    super(options);
    this.name = 'RunStoreLimitError';
  }

  static override isInstance(error: unknown): error is RunStoreLimitError {
    return hasMarker(error, limitMarker);
  }
}

/**
 * A write carried a lease that no longer holds its run: another host claimed the run since (after
 * this one's lease lapsed, or because this host's own process claimed it again). Nothing was written.
 */
export class RunStoreLeaseLostError extends RunStoreError {
  readonly [leaseLostMarker] = true;

  constructor(options: SluiceErrorOptions) {
    super(options);
    this.name = 'RunStoreLeaseLostError';
  }

  static override isInstance(error: unknown): error is RunStoreLeaseLostError {
    return hasMarker(error, leaseLostMarker);
  }
}
