import { hasMarker, SluiceError, type SluiceErrorOptions } from './sluice-error.js';

const marker: unique symbol = Symbol.for('sluice.error.InvalidRequestError');

/** Options for {@link InvalidRequestError}. */
export interface InvalidRequestErrorOptions extends SluiceErrorOptions {
  /** Where in the request the problem is, as a path such as `bindings.tools.search` or `program`. */
  readonly field: string;
}

/**
 * Thrown by `start` and `run` when the request itself is malformed: the program is not a string, a
 * binding name is not a portable identifier, a binding is not a function. A program's own failure
 * is never this error; it is a result.
 */
export class InvalidRequestError extends SluiceError {
  readonly [marker] = true;
  /** Where in the request the problem is. */
  readonly field: string;

  constructor(options: InvalidRequestErrorOptions) {
    super(options);
    this.name = 'InvalidRequestError';
    this.field = options.field;
  }

  static override isInstance(error: unknown): error is InvalidRequestError {
    return hasMarker(error, marker);
  }
}
