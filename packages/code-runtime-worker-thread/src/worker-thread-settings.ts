import {
  booleanSetting,
  checkSettingsObject,
  defaultRunLimits,
  integerSetting,
  type RunLimits,
  type SharedRunLimitSettings,
  sharedRunLimitSettings,
} from '@sluice/code-runtime-kit';

/**
 * Settings of {@link createWorkerThreadCodeRuntime}. Every budget is optional and has a default; a
 * request can never change them. Integers only; a value out of range, or an unknown key, throws
 * `InvalidSettingsError` naming the setting.
 */
export interface WorkerThreadCodeRuntimeSettings extends SharedRunLimitSettings {
  /**
   * Busy-time budget per run in ms: time the run's worker thread spent running rather than idle,
   * measured from outside the worker, so nothing the program does can pause it. Default 10 000.
   */
  readonly cpuTimeMs?: number;
  /**
   * Memory budget per run in bytes. The worker's V8 heap is capped at it, and ArrayBuffer and
   * typed-array memory (outside the heap) is metered against it separately. Default 128 MiB;
   * at least 16 MiB.
   */
  readonly memoryBytes?: number;
  /** `setTimeout` and `setInterval` calls per run, together. Default 1 000. */
  readonly timers?: number;
  /**
   * Worker processes kept alive, one worker thread each; also how many runs execute at once (the
   * rest wait, up to `acquireTimeoutMs`, their wall clock not yet running). Started as runs need
   * them, or all at once by `ready()`. A run waiting on a host call keeps its process (about 16 MiB
   * resident each). Default 4.
   */
  readonly poolSize?: number;
  /**
   * Refuse to run any program unless every OS layer (network namespace, rlimits, lower priority,
   * Node's permission model) can be applied to the worker processes on this machine: runs then end
   * as `substrate-exit` naming what is missing. Default false (run with the layers available;
   * `isolation` says which).
   */
  readonly requireContainment?: boolean;
}

/** Settings after validation, every field present. */
export interface ResolvedWorkerThreadSettings extends RunLimits {
  readonly cpuTimeMs: number;
  readonly memoryBytes: number;
  readonly timers: number;
  readonly poolSize: number;
  readonly requireContainment: boolean;
}

const mebibyte = 1024 * 1024;

/** The defaults, as documented on {@link WorkerThreadCodeRuntimeSettings}. */
export const workerThreadDefaults: ResolvedWorkerThreadSettings = {
  ...defaultRunLimits,
  cpuTimeMs: 10_000,
  memoryBytes: 128 * mebibyte,
  timers: 1_000,
  poolSize: 4,
  requireContainment: false,
};

const settingNames = [
  'wallTimeMs',
  'cpuTimeMs',
  'memoryBytes',
  'logBytes',
  'valueBytes',
  'hostCallBytes',
  'hostCalls',
  'concurrentHostCalls',
  'sourceBytes',
  'acquireTimeoutMs',
  'timers',
  'poolSize',
  'requireContainment',
] as const;

const maxTimerMs = 2_147_483_647;

/** Validates every setting at once and fills in defaults. Throws `InvalidSettingsError` for the first bad one. */
export function resolveWorkerThreadSettings(settings: unknown): ResolvedWorkerThreadSettings {
  const given = settings === undefined ? {} : settings;
  checkSettingsObject(given, settingNames);
  const defaults = workerThreadDefaults;
  return {
    ...sharedRunLimitSettings(given, defaults),
    cpuTimeMs: integerSetting(given, 'cpuTimeMs', defaults.cpuTimeMs, { min: 1, max: maxTimerMs }),
    memoryBytes: integerSetting(given, 'memoryBytes', defaults.memoryBytes, {
      min: 16 * mebibyte,
      max: 16 * 1024 * mebibyte,
    }),
    timers: integerSetting(given, 'timers', defaults.timers, { min: 0, max: 1_000_000 }),
    poolSize: integerSetting(given, 'poolSize', defaults.poolSize, { min: 1, max: 256 }),
    requireContainment: booleanSetting(given, 'requireContainment', defaults.requireContainment),
  };
}
