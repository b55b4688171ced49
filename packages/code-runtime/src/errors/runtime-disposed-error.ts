import { hasMarker, SluiceError, type SluiceErrorOptions } from './sluice-error.js';

const marker: unique symbol = Symbol.for('sluice.error.RuntimeDisposedError');

/** Thrown by `start` and `run` after `dispose()` was called on the runtime. Create a new runtime instead. */
export class RuntimeDisposedError extends SluiceError {
  readonly [marker] = true;

  constructor(options: SluiceErrorOptions) {
    super(options);
    this.name = 'RuntimeDisposedError';
  }

  static override isInstance(error: unknown): error is RuntimeDisposedError {
    return hasMarker(error, marker);
  }
}
