import { SluiceError, type SluiceErrorOptions } from '@sluice/code-runtime';
import { hasMarker } from './has-marker.js';

const marker: unique symbol = Symbol.for('sluice.error.CapabilityConflictError');

/** Options for {@link CapabilityConflictError}. */
export interface CapabilityConflictErrorOptions extends SluiceErrorOptions {
  /** The capability whose name is taken. */
  readonly capability: string;
}

/**
 * Thrown by `provide` and `plugin` when the capability is already provided and `replace` was not
 * asked for, or when a capability name would hide a member of the context itself (`get`, `then`).
 */
export class CapabilityConflictError extends SluiceError {
  readonly [marker] = true;
  /** The capability whose name is taken. */
  readonly capability: string;

  constructor(options: CapabilityConflictErrorOptions) {
    super(options);
    this.name = 'CapabilityConflictError';
    this.capability = options.capability;
  }

  static override isInstance(error: unknown): error is CapabilityConflictError {
    return hasMarker(error, marker);
  }
}
