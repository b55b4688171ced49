import { SluiceError, type SluiceErrorOptions } from '@sluice/code-runtime';
import { hasMarker } from './has-marker.js';

const marker: unique symbol = Symbol.for('sluice.error.InvalidCapabilityError');

/** Options for {@link InvalidCapabilityError}. */
export interface InvalidCapabilityErrorOptions extends SluiceErrorOptions {
  /** The capability concerned, or the text given where a name was expected. */
  readonly capability: string;
}

/**
 * Thrown when a capability name is not an identifier, a provided value fails its capability's
 * check (a `codeRuntime` that does not speak `code-runtime-v1`), or a plugin has the wrong shape.
 */
export class InvalidCapabilityError extends SluiceError {
  readonly [marker] = true;
  /** The capability concerned. */
  readonly capability: string;

  constructor(options: InvalidCapabilityErrorOptions) {
    super(options);
    this.name = 'InvalidCapabilityError';
    this.capability = options.capability;
  }

  static override isInstance(error: unknown): error is InvalidCapabilityError {
    return hasMarker(error, marker);
  }
}
