import { foreignText, SluiceError, type SluiceErrorOptions } from '@sluice/code-runtime';

const durableRunMarker: unique symbol = Symbol.for('sluice.error.DurableRunError');

/** A durable run cannot be started, resumed or decided: the message says why and what to do. */
export class DurableRunError extends SluiceError {
  readonly [durableRunMarker] = true;

  constructor(options: SluiceErrorOptions) {
    super(options);
    this.name = 'DurableRunError';
  }

  /** Whether `error` is a {@link DurableRunError} from any copy of this package. */
  static override isInstance(error: unknown): error is DurableRunError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[durableRunMarker] === true;
  }
}

/** Bytes of a store's own error message kept in a {@link DurableRunError}. */
const storeMessageBytes = 4 * 1024;

/**
 * `operation()`, which calls the run store, as a promise that rejects whether the store rejects or
 * throws: a store is foreign code here, and a synchronous throw must not escape a timer or a `finally`.
 */
export function storeCall<T>(operation: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve) => resolve(operation()));
}

/** The {@link DurableRunError} for a store that failed while `doing` something; `advice` says what the caller can do. */
export function storeFailure(doing: string, advice: string, error: unknown): DurableRunError {
  if (DurableRunError.isInstance(error)) return error;
  return new DurableRunError({
    message: `The run store failed while ${doing}: ${foreignText(error, storeMessageBytes)} ${advice}`,
    cause: error,
  });
}

/** {@link storeCall}, its failure turned into a {@link storeFailure}. */
export async function fromStore<T>(doing: string, advice: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await storeCall(operation);
  } catch (error) {
    throw storeFailure(doing, advice, error);
  }
}
