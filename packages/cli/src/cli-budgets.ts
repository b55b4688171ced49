import {
  type CodeRuntime,
  type CodeRuntimeLanguage,
  type CodeRuntimeLimits,
  InvalidSettingsError,
} from '@sluice/code-runtime';
import type { PythonCodeRuntimeSettings } from '@sluice/code-runtime-python';
import type { QuickJsCodeRuntimeSettings } from '@sluice/code-runtime-quickjs';
import type { WorkerThreadCodeRuntimeSettings } from '@sluice/code-runtime-worker-thread';
import { UsageError } from './cli-io.js';

/** One budget flag: the kebab-case spelling of the provider setting it sets, unit included. */
export interface BudgetFlag {
  /** The flag without its dashes, such as `wall-time-ms`. */
  readonly flag: string;
  /** The provider setting it sets, such as `wallTimeMs`. */
  readonly setting: keyof CodeRuntimeLimits;
  /** One line for `--help`: what it bounds, its unit and default. */
  readonly help: string;
}

/**
 * The budget flags of `sluice run` and `sluice declarations`, one per provider budget. The value is
 * handed to the provider's factory as is, so the provider's own validation decides what is allowed.
 */
export const budgetFlags: readonly BudgetFlag[] = [
  { flag: 'wall-time-ms', setting: 'wallTimeMs', help: 'Wall clock per run in ms, host calls included (30000).' },
  {
    flag: 'cpu-time-ms',
    setting: 'cpuTimeMs',
    help: 'CPU time per run in ms (10000; Python rounds up to whole seconds).',
  },
  {
    flag: 'memory-bytes',
    setting: 'memoryBytes',
    help: 'Memory per run in bytes: the heap for .ts/.js (128 MiB, at least 16 MiB; QuickJS 64 MiB, 8 MiB to 1 GiB), the address space for .py (512 MiB).',
  },
  { flag: 'log-bytes', setting: 'logBytes', help: 'UTF-8 bytes of log text kept per run (65536).' },
  { flag: 'value-bytes', setting: 'valueBytes', help: "UTF-8 bytes of the returned value's JSON (1048576)." },
  {
    flag: 'host-call-bytes',
    setting: 'hostCallBytes',
    help: "UTF-8 bytes of one host call's argument, and of its result, as JSON (1048576).",
  },
  {
    flag: 'host-calls',
    setting: 'hostCalls',
    help: 'Host calls per run, refused ones included; 0 forbids calls (1000).',
  },
  { flag: 'concurrent-host-calls', setting: 'concurrentHostCalls', help: 'Host calls in flight at once (16).' },
  { flag: 'source-bytes', setting: 'sourceBytes', help: 'UTF-8 bytes of program source (262144).' },
];

/** Budget settings as read from the command line: a number where the text is one, else the text itself. */
export type BudgetSettings = Readonly<Partial<Record<keyof CodeRuntimeLimits, number | string>>>;

const decimal = /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * The budget settings among parsed option values. Text that is not a decimal number is kept as text,
 * so the provider's validation refuses it with its usual message instead of this parser guessing.
 */
export function readBudgetFlags(values: Readonly<Record<string, unknown>>): BudgetSettings {
  const settings: Record<string, number | string> = {};
  for (const { flag, setting } of budgetFlags) {
    const text = values[flag];
    if (typeof text !== 'string') continue;
    settings[setting] = decimal.test(text.trim()) ? Number(text) : text;
  }
  return settings;
}

/** The providers that run TypeScript and JavaScript programs, as `--runtime` names them; the first is the default. */
export const typescriptRuntimes = ['worker-thread', 'quickjs'] as const;

/** A provider `--runtime` can choose for a TypeScript or JavaScript program. */
export type TypeScriptRuntimeName = (typeof typescriptRuntimes)[number];

/**
 * Resolves with the runtime for `language` with the budgets given on the command line: Python's, or the
 * TypeScript provider `runtime` names (worker-thread when absent). `--runtime` with a Python program
 * is a {@link UsageError}. The runtime keeps one worker or child (`poolSize: 1`): a command runs one
 * program. The provider's factory validates the budgets (it does no I/O); a setting
 * it refuses becomes a {@link UsageError} naming the flag, followed by the provider's own message.
 */
export async function createBudgetedRuntime(
  language: CodeRuntimeLanguage,
  budgets: BudgetSettings,
  runtime?: TypeScriptRuntimeName,
): Promise<CodeRuntime> {
  if (language === 'python' && runtime !== undefined) {
    throw new UsageError(`--runtime ${runtime} runs TypeScript and JavaScript; Python programs have one runtime.`, {
      commandLine: true,
    });
  }
  // Only the chosen provider is loaded: a command's start-up is on the clock of its one run.
  const create = await providerFactory(language, runtime);
  try {
    // A command runs one program: one worker or child is all it needs, and starting more would cost the start-up.
    return create({ ...(budgets as ProviderSettings), poolSize: 1 });
  } catch (error) {
    if (!InvalidSettingsError.isInstance(error)) throw error;
    const flag = budgetFlags.find((entry) => entry.setting === error.setting)?.flag;
    throw new UsageError(flag === undefined ? error.message : `Bad --${flag}: ${error.message}`, {
      commandLine: true,
    });
  }
}

type ProviderSettings = PythonCodeRuntimeSettings & QuickJsCodeRuntimeSettings & WorkerThreadCodeRuntimeSettings;

async function providerFactory(
  language: CodeRuntimeLanguage,
  runtime: TypeScriptRuntimeName | undefined,
): Promise<(settings: ProviderSettings) => CodeRuntime> {
  if (language === 'python') return (await import('@sluice/code-runtime-python')).createPythonCodeRuntime;
  if (runtime === 'quickjs') return (await import('@sluice/code-runtime-quickjs')).createQuickJsCodeRuntime;
  return (await import('@sluice/code-runtime-worker-thread')).createWorkerThreadCodeRuntime;
}
