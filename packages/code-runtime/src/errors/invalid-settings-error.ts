import { hasMarker, SluiceError, type SluiceErrorOptions } from './sluice-error.js';

const marker: unique symbol = Symbol.for('sluice.error.InvalidSettingsError');

/** Options for {@link InvalidSettingsError}. */
export interface InvalidSettingsErrorOptions extends SluiceErrorOptions {
  /** The name of the offending setting, as spelled in the settings object. */
  readonly setting: string;
}

/** Thrown by a provider's factory when a setting is missing, of the wrong type or out of range. */
export class InvalidSettingsError extends SluiceError {
  readonly [marker] = true;
  /** The name of the offending setting. */
  readonly setting: string;

  constructor(options: InvalidSettingsErrorOptions) {
    super(options);
    this.name = 'InvalidSettingsError';
    this.setting = options.setting;
  }

  static override isInstance(error: unknown): error is InvalidSettingsError {
    return hasMarker(error, marker);
  }
}
