import type { CodeRuntimeLanguage } from '@sluice/code-runtime';
import type { Verbosity } from './cli-arguments.js';
import { type BudgetSettings, createBudgetedRuntime, type TypeScriptRuntimeName } from './cli-budgets.js';
import { programLanguage, readProgram } from './cli-inputs.js';
import type { CliIo } from './cli-io.js';
import { runtimeLines } from './cli-report.js';

// `sluice run` in two parts, so the substrate starts while the CLI loads: this module (and the one
// provider the run needs) loads first, reads the program and starts the runtime for it; code mode,
// the context, the run store and the printers load after, from cli-run.ts, while the worker or the
// zygote boots.

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
  let rest: typeof import('./cli-run.js');
  let code: string;
  try {
    // Started now, while the program is read, the rest of the CLI loads and the tools are read, so
    // the run finds its substrate ready: first without a compile thread, which plain JavaScript does
    // not need, then for the program read, which starts one only if it needs it.
    runtime.ready?.({ programs: [] }).catch(() => {});
    if (options.verbosity === 'verbose') io.stderr.write(runtimeLines(runtime));
    code = await readProgram(options.program, io, signal);
    runtime.ready?.({ programs: [code] }).catch(() => {});
    rest = await import('./cli-run.js');
  } catch (error) {
    await runtime.dispose();
    throw error;
  }
  return rest.runProgram(runtime, options, code, io, signal);
}
