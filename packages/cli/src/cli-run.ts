import { createRunCodeTool, summaryLine } from '@sluice/code-mode';
import {
  type CodeRunEvent,
  type CodeRuntimeLanguage,
  InvalidRequestError,
  InvalidSettingsError,
  type LogEntry,
} from '@sluice/code-runtime';
import { createContext } from '@sluice/context';
import type { Policy, PolicyDefinition, Tool } from '@sluice/permissions';
import type { Verbosity } from './cli-arguments.js';
import { type BudgetSettings, createBudgetedRuntime, type TypeScriptRuntimeName } from './cli-budgets.js';
import { loadPolicy, programLanguage, readProgram } from './cli-inputs.js';
import { type CliIo, exitProgramFailure, exitSuccess, UsageError } from './cli-io.js';
import { ProgressLine } from './cli-progress.js';
import { callLines, describeFailure, roundedResult, runtimeLines } from './cli-report.js';
import { loadToolsModule } from './cli-tools-module.js';

/** Without `--policy`, every tool in the module is allowed: the operator chose them by naming the module. */
export const allowEverything: PolicyDefinition = { default: 'allow', rules: [] };

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
}

/** `sluice run`: runs one program and prints what happened. Resolves with the exit code. */
export async function runCommand(options: RunCommandOptions, io: CliIo, signal?: AbortSignal): Promise<number> {
  const language = programLanguage(options.program, options.language, io.cwd);
  // Budgets are checked (by the provider) before anything is read or loaded.
  const runtime = createBudgetedRuntime(language, options.budgets, options.runtime);
  const ctx = createContext();
  ctx.provide('codeRuntime', runtime);
  const progress = new ProgressLine(options.verbosity === 'quiet' ? { write: () => {} } : io.stderr);
  let runCode: ReturnType<typeof buildRunCodeTool> | undefined;
  try {
    if (options.verbosity === 'verbose') io.stderr.write(runtimeLines(runtime));
    const code = await readProgram(options.program, io, signal);
    const tools = options.tools === undefined ? [] : await loadToolsModule(options.tools, io.cwd);
    const policy = options.policy === undefined ? allowEverything : loadPolicy(options.policy, io.cwd);
    runCode = buildRunCodeTool(ctx, tools, policy);
    const onEvent = (event: CodeRunEvent) => {
      if (event.type === 'host-call-start') progress.hostCall();
      if (event.type === 'log' && !options.json) printLog(io, progress, event);
    };
    const { result } = await runCode.run({ code }, { onEvent, ...(signal === undefined ? {} : { signal }) });
    progress.stop();
    if (result === undefined) {
      throw new UsageError(`The program ${options.program === '-' ? 'on stdin' : options.program} is empty.`);
    }
    if (options.json) {
      io.stdout.write(`${JSON.stringify(roundedResult(result), null, 2)}\n`);
    } else {
      if (result.ok && result.value !== undefined) io.stdout.write(`${JSON.stringify(result.value, null, 2)}\n`);
      if (!result.ok) io.stderr.write(describeFailure(result.failure));
    }
    if (options.verbosity === 'verbose') io.stderr.write(callLines(result.calls));
    if (!options.json && options.verbosity !== 'quiet') io.stderr.write(`sluice: ${summaryLine(result)}\n`);
    return result.ok ? exitSuccess : exitProgramFailure;
  } finally {
    progress.stop();
    // The full text of a cut result is of no use once the command ends: nothing is left in the temp folder.
    runCode?.dispose();
    // Disposing kills the sandbox: a cancelled run leaves no worker or child behind.
    await ctx.dispose();
  }
}

function printLog(io: CliIo, progress: ProgressLine, entry: LogEntry): void {
  const target = entry.level === 'warn' || entry.level === 'error' ? io.stderr : io.stdout;
  progress.print(target, `${entry.text}\n`);
}

/** The `run_code` tool over these tools; a tool set or policy code mode refuses is a {@link UsageError}. */
export function buildRunCodeTool(
  ctx: ReturnType<typeof createContext>,
  tools: Tool[],
  policy: Policy | PolicyDefinition,
): ReturnType<typeof createRunCodeTool> {
  try {
    return createRunCodeTool({ context: ctx, tools, policy });
  } catch (error) {
    if (InvalidRequestError.isInstance(error) || InvalidSettingsError.isInstance(error)) {
      throw new UsageError(error.message);
    }
    throw error;
  }
}
