import { SluiceError, type SluiceErrorOptions } from '@sluice/code-runtime';
import { hasMarker } from './has-marker.js';

const marker: unique symbol = Symbol.for('sluice.error.CapabilityMissingError');

/** Options for {@link CapabilityMissingError}. */
export interface CapabilityMissingErrorOptions extends SluiceErrorOptions {
  /** The capability that was asked for, such as `codeRuntime`. */
  readonly capability: string;
  /** Packages that provide it, any one of which will do; empty when nobody declared the capability. */
  readonly install: readonly string[];
}

/**
 * Thrown when a consumer asks a context for a capability that nobody provided. The message names
 * the packages to install and how to plug one in at the composition root.
 */
export class CapabilityMissingError extends SluiceError {
  readonly [marker] = true;
  /** The capability that was asked for. */
  readonly capability: string;
  /** Packages that provide it, any one of which will do. */
  readonly install: readonly string[];

  constructor(options: CapabilityMissingErrorOptions) {
    super(options);
    this.name = 'CapabilityMissingError';
    this.capability = options.capability;
    this.install = options.install;
  }

  static override isInstance(error: unknown): error is CapabilityMissingError {
    return hasMarker(error, marker);
  }
}
