import { InvalidSettingsError } from '@sluice/code-runtime';
import { defaultRunLimits, type RunLimits } from './run-limits.js';

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

/**
 * The budget settings every provider shares, read by {@link sharedRunLimitSettings}. A provider's
 * settings interface extends it and adds `cpuTimeMs` and `memoryBytes`, documented for what they
 * bound in its substrate. All optional; a request can never change them.
 */
export interface SharedRunLimitSettings {
  /** Wall-clock budget per run in ms, time waiting on host calls included. Default 30 000; at most 2 147 483 647. */
  readonly wallTimeMs?: number;
  /** UTF-8 bytes of log text kept per run. Default 64 KiB; at most 16 MiB. */
  readonly logBytes?: number;
  /** UTF-8 bytes of the returned value's JSON. Default 1 MiB; at most 1 GiB. */
  readonly valueBytes?: number;
  /** UTF-8 bytes of one host call's argument, and of its result, as JSON. Default 1 MiB; at most 1 GiB. */
  readonly hostCallBytes?: number;
  /** Host calls per run, refused ones included. Default 1 000; 0 forbids calls. */
  readonly hostCalls?: number;
  /** Host calls in flight at once per run; later ones wait their turn. Default 16. */
  readonly concurrentHostCalls?: number;
  /** UTF-8 bytes of program source. Default 256 KiB; at most 16 MiB. */
  readonly sourceBytes?: number;
  /**
   * Milliseconds a run may wait for a substrate (every one busy, or starting) before its program
   * starts; past it the run ends as `unavailable`, its program not started. Not charged to the
   * program: its wall clock starts when it starts. Default 30 000; at most 2 147 483 647.
   */
  readonly acquireTimeoutMs?: number;
}

const mebibyte = 1024 * 1024;
/** The largest delay a Node timer honours; a longer wall clock would fire at once. */
const maxTimerMs = 2_147_483_647;

/**
 * Reads the budgets every provider shares (`wallTimeMs`, `logBytes`, `valueBytes`, `hostCallBytes`,
 * `hostCalls`, `concurrentHostCalls`, `sourceBytes`, `acquireTimeoutMs`) from `settings`, filling in `defaults`, with the
 * same bounds in every provider. `cpuTimeMs` and `memoryBytes` are the provider's to read: what they
 * bound differs by substrate.
 */
export function sharedRunLimitSettings(settings: object, defaults: RunLimits = defaultRunLimits): RunLimits {
  return {
    wallTimeMs: integerSetting(settings, 'wallTimeMs', defaults.wallTimeMs, { min: 1, max: maxTimerMs }),
    logBytes: integerSetting(settings, 'logBytes', defaults.logBytes, { min: 1, max: 16 * mebibyte }),
    valueBytes: integerSetting(settings, 'valueBytes', defaults.valueBytes, { min: 1, max: 1024 * mebibyte }),
    hostCallBytes: integerSetting(settings, 'hostCallBytes', defaults.hostCallBytes, { min: 1, max: 1024 * mebibyte }),
    hostCalls: integerSetting(settings, 'hostCalls', defaults.hostCalls, { min: 0, max: 1_000_000 }),
    concurrentHostCalls: integerSetting(settings, 'concurrentHostCalls', defaults.concurrentHostCalls, {
      min: 1,
      max: 10_000,
    }),
    sourceBytes: integerSetting(settings, 'sourceBytes', defaults.sourceBytes, { min: 1, max: 16 * mebibyte }),
    acquireTimeoutMs: integerSetting(settings, 'acquireTimeoutMs', defaults.acquireTimeoutMs ?? 30_000, {
      min: 1,
      max: maxTimerMs,
    }),
  };
}
