import { InvalidSettingsError } from '@sluice/code-runtime';
import {
  checkSettingsObject,
  defaultRunLimits,
  integerSetting,
  type RunLimits,
  type SharedRunLimitSettings,
  sharedRunLimitSettings,
} from '@sluice/code-runtime-kit';

/** Deterministic mode: a virtual clock and seeded randomness, so a run can be repeated exactly. */
export interface QuickJsDeterministicSettings {
  /** Seeds `Math.random`, `crypto.getRandomValues` and `crypto.randomUUID`. An integer in [0, 2^32). */
  readonly seed: number;
  /** What `Date.now()` reads when the run starts, in ms since the epoch. */
  readonly startTime: number;
}

/**
 * Settings of {@link createQuickJsCodeRuntime}. Every budget is optional and has a default; a
 * request can never change them. An unknown key or a value out of range throws `InvalidSettingsError`.
 */
export interface QuickJsCodeRuntimeSettings extends SharedRunLimitSettings {
  /** Time the interpreter spent running the program, in ms, checked by its interrupt handler. Default 10 000. */
  readonly cpuTimeMs?: number;
  /** QuickJS's allocation limit per run, and (plus 24 MiB) the cap of the worker's WebAssembly memory. Default 64 MiB; 8 MiB to 1 GiB. */
  readonly memoryBytes?: number;
  /** QuickJS's stack limit per run, in bytes. Default 256 KiB; 32 KiB to 256 KiB (past that the WebAssembly stack runs out first). */
  readonly stackBytes?: number;
  /** `setTimeout` and `setInterval` calls per run, together. Default 1 000. */
  readonly timers?: number;
  /**
   * Worker threads, and so runs executing at once; other runs wait in order, up to
   * `acquireTimeoutMs`, their wall clock not yet running. Started as runs need them, or all at once
   * by `ready()`. A run waiting on a host call keeps its thread (about 8–9 MiB resident each).
   * Default 4; 1 to 256.
   */
  readonly poolSize?: number;
  /** Run with a virtual clock and seeded randomness (see {@link QuickJsDeterministicSettings}). Default off. */
  readonly deterministic?: QuickJsDeterministicSettings;
}

/** Settings after validation, every field present. */
export interface ResolvedQuickJsSettings extends RunLimits {
  readonly cpuTimeMs: number;
  readonly memoryBytes: number;
  readonly stackBytes: number;
  readonly timers: number;
  readonly poolSize: number;
  readonly deterministic: QuickJsDeterministicSettings | undefined;
}

const mebibyte = 1024 * 1024;

/** The defaults, as documented on {@link QuickJsCodeRuntimeSettings}. */
export const quickJsDefaults: ResolvedQuickJsSettings = {
  ...defaultRunLimits,
  cpuTimeMs: 10_000,
  memoryBytes: 64 * mebibyte,
  stackBytes: 256 * 1024,
  timers: 1_000,
  poolSize: 4,
  deterministic: undefined,
};

const settingNames = [
  'wallTimeMs',
  'cpuTimeMs',
  'memoryBytes',
  'stackBytes',
  'logBytes',
  'valueBytes',
  'hostCallBytes',
  'hostCalls',
  'concurrentHostCalls',
  'sourceBytes',
  'acquireTimeoutMs',
  'timers',
  'poolSize',
  'deterministic',
] as const;

const maxTimerMs = 2_147_483_647;

/** Validates every setting and fills in defaults. Throws `InvalidSettingsError` for the first bad one. */
export function resolveQuickJsSettings(settings: unknown): ResolvedQuickJsSettings {
  const given = settings === undefined ? {} : settings;
  checkSettingsObject(given, settingNames);
  const defaults = quickJsDefaults;
  return {
    ...sharedRunLimitSettings(given, defaults),
    cpuTimeMs: integerSetting(given, 'cpuTimeMs', defaults.cpuTimeMs, { min: 1, max: maxTimerMs }),
    memoryBytes: integerSetting(given, 'memoryBytes', defaults.memoryBytes, {
      min: 8 * mebibyte,
      max: 1024 * mebibyte,
    }),
    stackBytes: integerSetting(given, 'stackBytes', defaults.stackBytes, { min: 32 * 1024, max: 256 * 1024 }),
    timers: integerSetting(given, 'timers', defaults.timers, { min: 0, max: 1_000_000 }),
    poolSize: integerSetting(given, 'poolSize', defaults.poolSize, { min: 1, max: 256 }),
    deterministic: deterministicSetting((given as Record<string, unknown>).deterministic),
  };
}

function deterministicSetting(value: unknown): QuickJsDeterministicSettings | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidSettingsError({
      message: 'The setting deterministic must be an object { seed, startTime }.',
      setting: 'deterministic',
    });
  }
  checkSettingsObject(value, ['seed', 'startTime']);
  const record = value as Record<string, unknown>;
  if (record.seed === undefined || record.startTime === undefined) {
    throw new InvalidSettingsError({
      message: 'The setting deterministic needs both seed and startTime.',
      setting: 'deterministic',
    });
  }
  return Object.freeze({
    seed: integerSetting(record, 'seed', 0, { min: 0, max: 4_294_967_295 }),
    startTime: integerSetting(record, 'startTime', 0, { min: 0, max: 8_640_000_000_000_000 }),
  });
}
