import type { CodeRuntimeLanguage } from '@sluice/code-runtime';
import type { Verbosity } from './cli-arguments.js';
import { type BudgetSettings, createBudgetedRuntime, type TypeScriptRuntimeName } from './cli-budgets.js';
import { programLanguage } from './cli-inputs.js';
import type { CliIo } from './cli-io.js';

// `sluice run` in two parts, so the substrate starts while the CLI loads: this module (and the one
// provider the run needs) loads first and starts the runtime; code mode, the context, the run store
// and the printers load after, from cli-run.ts, while the worker or the zygote boots.

/** Options of `sluice run`. Paths are relative to the `cwd` of the {@link CliIo}; `-` is stdin. */
export interface RunCommandOptions {
  readonly program: string;
  readonly tools: string | undefined;
  readonly policy: string | undefined;
  readonly language: CodeRuntimeLanguage | undefined;
  /** The provider of a TypeScript/JavaScript program; worker-thread when absent. Refused for Python. */
  readonly runtime?: TypeScriptRuntimeName | undefined;
  readonly json: boolean;
  readonly verbosity: Verbosity;
  readonly budgets: BudgetSettings;
  /** A directory or `postgres://` URL: the run is durable, kept there, and pauses on a policy `ask`. */
  readonly runStore?: string | undefined;
  /** With `runStore`: the conversation whose stored values the program reads and writes. */
  readonly conversation?: string | undefined;
}

/** `sluice run`: runs one program and prints what happened. Resolves with the exit code. */
export async function runCommand(options: RunCommandOptions, io: CliIo, signal?: AbortSignal): Promise<number> {
  const language = programLanguage(options.program, options.language, io.cwd);
  // Budgets are checked (by the provider) before anything is read or loaded.
  const runtime = await createBudgetedRuntime(language, options.budgets, options.runtime);
  // Started now, while the rest of the CLI loads and the program and tools are read, so the run finds its substrate ready.
  runtime.ready?.().catch(() => {});
  let rest: typeof import('./cli-run.js');
  try {
    rest = await import('./cli-run.js');
  } catch (error) {
    await runtime.dispose();
    throw error;
  }
  return rest.runProgram(runtime, options, io, signal);
}
