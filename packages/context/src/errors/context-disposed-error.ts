import { SluiceError, type SluiceErrorOptions } from '@sluice/code-runtime';
import { hasMarker } from './has-marker.js';

const marker: unique symbol = Symbol.for('sluice.error.ContextDisposedError');

/** Thrown by every method of a context except `dispose` once `dispose()` was called. Create a new context instead. */
export class ContextDisposedError extends SluiceError {
  readonly [marker] = true;

  constructor(options: SluiceErrorOptions) {
    super(options);
    this.name = 'ContextDisposedError';
  }

  static override isInstance(error: unknown): error is ContextDisposedError {
    return hasMarker(error, marker);
  }
}
