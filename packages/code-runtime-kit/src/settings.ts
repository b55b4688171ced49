import { InvalidSettingsError } from '@sluice/code-runtime';

/** Bounds for one integer setting. */
export interface IntegerBounds {
  readonly min: number;
  readonly max: number;
}

/**
 * Reads an optional integer setting: its default when absent, otherwise an integer within
 * `bounds`, or an {@link InvalidSettingsError} naming the setting and saying what is allowed.
 */
export function integerSetting(
  settings: object,
  name: string,
  defaultValue: number,
  bounds: IntegerBounds = { min: 1, max: Number.MAX_SAFE_INTEGER },
): number {
  const value = (settings as Record<string, unknown>)[name];
  if (value === undefined) return defaultValue;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw new InvalidSettingsError({
      message: `Setting ${name} must be an integer from ${bounds.min} to ${bounds.max}, got ${describe(value)}.`,
      setting: name,
    });
  }
  return value;
}

/** Reads an optional boolean setting. */
export function booleanSetting(settings: object, name: string, defaultValue: boolean): boolean {
  const value = (settings as Record<string, unknown>)[name];
  if (value === undefined) return defaultValue;
  if (typeof value !== 'boolean') {
    throw new InvalidSettingsError({
      message: `Setting ${name} must be true or false, got ${describe(value)}.`,
      setting: name,
    });
  }
  return value;
}

/** Reads an optional non-empty string setting. */
export function stringSetting(settings: object, name: string): string | undefined {
  const value = (settings as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new InvalidSettingsError({
      message: `Setting ${name} must be a non-empty string, got ${describe(value)}.`,
      setting: name,
    });
  }
  return value;
}

/**
 * Throws {@link InvalidSettingsError} for a settings value that is not a plain object, or that has
 * a key outside `known` — a misspelt budget must not silently fall back to its default.
 */
export function checkSettingsObject(settings: unknown, known: readonly string[]): asserts settings is object {
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
    throw new InvalidSettingsError({
      message: `Settings must be an object, got ${describe(settings)}.`,
      setting: '(settings)',
    });
  }
  for (const key of Object.keys(settings)) {
    if (!known.includes(key)) {
      throw new InvalidSettingsError({
        message: `Unknown setting ${JSON.stringify(key)}. Known settings: ${[...known].sort().join(', ')}.`,
        setting: key,
      });
    }
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
