import { InvalidSettingsError } from '@sluice/code-runtime';
import {
  booleanSetting,
  checkSettingsObject,
  integerSetting,
  type RunLimits,
  type SharedRunLimitSettings,
  sharedRunLimitSettings,
  stringSetting,
} from '@sluice/code-runtime-kit';

/** Settings of {@link createPythonCodeRuntime}. Every field is optional; budgets cannot be changed per run. */
export interface PythonCodeRuntimeSettings extends SharedRunLimitSettings {
  /**
   * The Python interpreter to run: a path or a command on `PATH`. Default: the environment variable
   * `SLUICE_PYTHON_EXECUTABLE`, then `python3`. It must be CPython 3.10 or newer. A command that is not
   * the interpreter's own file (a wrapper that sets a `ulimit` or starts `bwrap`, a shim) starts the
   * zygote, so what it applies holds for every child; it gets only the host's `PATH`.
   */
  readonly pythonExecutable?: string;
  /** CPU budget per run in milliseconds, rounded up to whole seconds (`RLIMIT_CPU`). Default 10,000. */
  readonly cpuTimeMs?: number;
  /** Address space per run in bytes (`RLIMIT_AS`). Default 512 MiB; must fit the output budgets (see README). */
  readonly memoryBytes?: number;
  /** Whether the interpreter's site-packages are importable (the interpreter then starts without `-S`). Default `false`. */
  readonly allowSitePackages?: boolean;
  /**
   * Whether to refuse to run (every run fails with `substrate-exit`) when this machine cannot apply
   * a containment layer: Landlock, the seccomp filter, or dropping capabilities. Default `false`:
   * run with what is available, and say so in `isolation`.
   */
  readonly requireContainment?: boolean;
  /**
   * Programs running at once, each in its own child forked from the zygote; later runs wait in
   * order, up to `acquireTimeoutMs`, their wall clock not yet running. Default 8; 1 to 256.
   */
  readonly poolSize?: number;
  /**
   * Modules to make importable and import ahead in the zygote, so a run that imports them pays nothing
   * (`['numpy', 'pandas', 'matplotlib']`): dotted names, at most 64. Their site-packages become
   * importable (`allowSitePackages` defaults to `true` with them; `false` with them is refused), and
   * the read-only paths they need are found from the modules (package directories, matplotlib's data
   * and font directories). A module that fails to import fails every run at boot, naming it. Default none.
   */
  readonly preloadModules?: readonly string[];
  /** Absolute paths every child may read besides the interpreter's, system libraries and the preloaded modules' own. Default none. */
  readonly readPaths?: readonly string[];
  /**
   * Threads of the numeric libraries' pools per run (OpenBLAS, OpenMP, MKL, BLIS, numexpr, Accelerate):
   * set in the zygote's environment before anything is imported. Default 1, so one run cannot take every core; 1 to 64.
   */
  readonly numericThreads?: number;
  /** The most matplotlib figures one run sends back as PNG images (see README, "Data analysis"). Default 8; 0 sends none. */
  readonly figureLimit?: number;
  /** UTF-8 bytes of base64 PNG one run's figures may take in its value, in total; at most `valueBytes`. Default 512 KiB. */
  readonly figureBytes?: number;
}

/** Validated settings, with defaults filled in. */
export interface PythonRuntimeConfig {
  /** The interpreter command as configured, and where it came from. */
  readonly executable: string;
  readonly executableSource: 'setting' | 'environment' | 'default';
  readonly limits: RunLimits;
  readonly cpuSeconds: number;
  readonly memoryBytes: number;
  readonly allowSitePackages: boolean;
  readonly requireContainment: boolean;
  /** Programs running at once. */
  readonly poolSize: number;
  /** Modules the zygote imports ahead (see {@link PythonCodeRuntimeSettings.preloadModules}). */
  readonly preloadModules: readonly string[];
  readonly readPaths: readonly string[];
  readonly numericThreads: number;
  readonly figureLimit: number;
  readonly figureBytes: number;
  /** What the budget gate demands of the address-space limit a child really gets. */
  readonly requiredBytes: number;
  /** The longest line the host accepts from a child on fd 3. */
  readonly lineBytes: number;
}

/** The environment variable naming the interpreter when the setting does not. */
export const pythonExecutableVariable = 'SLUICE_PYTHON_EXECUTABLE';

/**
 * Address space reserved for the interpreter before the output budgets claim any: the budget gate's
 * baseline, 64 MiB (a child forked from the zygote has about 20 MiB mapped before its program runs).
 */
export const interpreterBaselineBytes = 64 * 1024 * 1024;

/**
 * How many times its JSON size an output may cost in address space while it is built, checked, encoded
 * and framed (a value the program returns or passes to a host function) or received and parsed (a host
 * function's result). 56: the worst shape measured, lists nested in lists (80 bytes of Python for 2 of
 * JSON), needs 48.75 times its JSON; an ordinary list of records about 30 times, of numbers 7 to 12
 * (`scripts/measure-value-memory.py`, docs/decisions/2026-11-30-python-value-memory.md).
 */
export const outputSafetyMultiple = 56;

/** The deepest nesting of arrays and objects a value crossing fd 3 may have. */
export const valueDepthLimit = 64;

const mebibyte = 1024 * 1024;
const envelopeBytes = 64 * 1024;

const settingNames = [
  'pythonExecutable',
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
  'allowSitePackages',
  'requireContainment',
  'poolSize',
  'preloadModules',
  'readPaths',
  'numericThreads',
  'figureLimit',
  'figureBytes',
] as const;

const moduleName = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Reads and checks `settings`, throwing {@link InvalidSettingsError} naming the first bad one. No I/O. */
export function resolvePythonSettings(
  settings: unknown,
  environment: Readonly<Record<string, string | undefined>>,
): PythonRuntimeConfig {
  checkSettingsObject(settings, settingNames);
  const limits = sharedRunLimitSettings(settings);
  const cpuTimeMs = integerSetting(settings, 'cpuTimeMs', 10_000, { min: 1, max: 86_400_000 });
  const memoryBytes = integerSetting(settings, 'memoryBytes', 512 * mebibyte, {
    min: interpreterBaselineBytes,
    max: 2 ** 48,
  });
  const requiredBytes = requiredAddressSpace(limits);
  if (requiredBytes > memoryBytes) {
    throw new InvalidSettingsError({
      message: `Setting memoryBytes is ${memoryBytes}, but the output budgets need at least ${requiredBytes} bytes: ${interpreterBaselineBytes} for the interpreter plus ${outputSafetyMultiple} times the largest of valueBytes, hostCallBytes and logBytes. Raise memoryBytes or lower those budgets.`,
      setting: 'memoryBytes',
    });
  }
  const configured = stringSetting(settings, 'pythonExecutable');
  const fromEnvironment = environment[pythonExecutableVariable];
  const [executable, executableSource] =
    configured !== undefined
      ? ([configured, 'setting'] as const)
      : fromEnvironment !== undefined && fromEnvironment !== ''
        ? ([fromEnvironment, 'environment'] as const)
        : (['python3', 'default'] as const);
  const cpuSeconds = Math.ceil(cpuTimeMs / 1000);
  const preloadModules = stringListSetting(settings, 'preloadModules', (name) =>
    moduleName.test(name) ? undefined : 'a dotted module name such as numpy or matplotlib.pyplot',
  );
  const readPaths = stringListSetting(settings, 'readPaths', (path) =>
    path.startsWith('/') && !path.includes('\0') ? undefined : 'an absolute path',
  );
  const allowSitePackages = booleanSetting(settings, 'allowSitePackages', preloadModules.length > 0);
  if (preloadModules.length > 0 && !allowSitePackages) {
    throw new InvalidSettingsError({
      message:
        'Setting allowSitePackages is false, but preloadModules names modules, which live in site-packages. Leave allowSitePackages unset (it is then true) or set it to true.',
      setting: 'allowSitePackages',
    });
  }
  const figureBytes = integerSetting(settings, 'figureBytes', Math.min(512 * 1024, limits.valueBytes), {
    min: 0,
    max: limits.valueBytes,
  });
  return {
    executable,
    executableSource,
    // As enforced: the CPU budget in whole seconds, the address space per child.
    limits: { ...limits, cpuTimeMs: cpuSeconds * 1000, memoryBytes },
    cpuSeconds,
    memoryBytes,
    allowSitePackages,
    requireContainment: booleanSetting(settings, 'requireContainment', false),
    poolSize: integerSetting(settings, 'poolSize', 8, { min: 1, max: 256 }),
    preloadModules,
    readPaths,
    numericThreads: integerSetting(settings, 'numericThreads', 1, { min: 1, max: 64 }),
    figureLimit: integerSetting(settings, 'figureLimit', 8, { min: 0, max: 64 }),
    figureBytes,
    requiredBytes,
    lineBytes: Math.max(limits.valueBytes, limits.hostCallBytes) + envelopeBytes,
  };
}

/** A list of strings, each checked by `problem` (which names what it must be); `[]` when unset. */
function stringListSetting(settings: object, name: string, problem: (item: string) => string | undefined): string[] {
  const value = (settings as Record<string, unknown>)[name];
  if (value === undefined) return [];
  const refuse = (what: string): never => {
    throw new InvalidSettingsError({ message: `Setting ${name} ${what}.`, setting: name });
  };
  if (!Array.isArray(value)) return refuse('must be an array of strings');
  if (value.length > 64) refuse(`has ${value.length} entries; at most 64`);
  return value.map((item: unknown, index) => {
    if (typeof item !== 'string') return refuse(`[${index}] must be a string`);
    const wrong = problem(item);
    return wrong === undefined ? item : refuse(`[${index}] is ${JSON.stringify(item)}; it must be ${wrong}`);
  });
}

/** The budget gate: the interpreter's baseline plus a safety multiple of the largest output budget. */
export function requiredAddressSpace(limits: Pick<RunLimits, 'valueBytes' | 'hostCallBytes' | 'logBytes'>): number {
  return (
    interpreterBaselineBytes + outputSafetyMultiple * Math.max(limits.valueBytes, limits.hostCallBytes, limits.logBytes)
  );
}
