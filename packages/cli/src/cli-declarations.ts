import type { ToolDeclarations } from '@sluice/code-mode';
import type { CodeRuntimeLanguage } from '@sluice/code-runtime';
import { createContext } from '@sluice/context';
import type { Verbosity } from './cli-arguments.js';
import { type BudgetSettings, createBudgetedRuntime, type TypeScriptRuntimeName } from './cli-budgets.js';
import { loadPolicy } from './cli-inputs.js';
import { type CliIo, exitSuccess } from './cli-io.js';
import { allowEverything, buildRunCodeTool } from './cli-run.js';
import { loadToolsModule } from './cli-tools-module.js';

/** Options of `sluice declarations`. Paths are relative to the `cwd` of the {@link CliIo}. */
export interface DeclarationsCommandOptions {
  readonly tools: string;
  readonly language: CodeRuntimeLanguage;
  /** The provider whose limits and program surface are described; worker-thread when absent. Refused for Python. */
  readonly runtime?: TypeScriptRuntimeName | undefined;
  readonly policy: string | undefined;
  readonly verbosity: Verbosity;
  readonly budgets: BudgetSettings;
}

/**
 * `sluice declarations`: prints the `run_code` description the model would read for these tools,
 * declarations and limits included, and a note on stderr with its size. No program runs; the
 * runtime is created only to read its published limits.
 */
export async function declarationsCommand(options: DeclarationsCommandOptions, io: CliIo): Promise<number> {
  const runtime = await createBudgetedRuntime(options.language, options.budgets, options.runtime);
  const ctx = createContext();
  ctx.provide('codeRuntime', runtime);
  try {
    const tools = await loadToolsModule(options.tools, io.cwd);
    const policy = options.policy === undefined ? allowEverything : loadPolicy(options.policy, io.cwd);
    const runCode = buildRunCodeTool(ctx, tools, policy);
    const { declarations } = runCode;
    io.stdout.write(`${runCode.description}\n`);
    if (options.verbosity !== 'quiet') {
      io.stderr.write(
        `sluice: ${tools.length} tool${tools.length === 1 ? '' : 's'}, ${declarationsShape(declarations)}, ${declarations.estimatedTokens} tokens of declarations.\n`,
      );
    }
    return exitSuccess;
  } finally {
    await ctx.dispose();
  }
}

/** `all declared in full`, or how many are in full, summarised, counted and deferred. */
function declarationsShape(declarations: ToolDeclarations): string {
  if (declarations.mode === 'full') return 'all declared in full';
  const parts = [
    `${declarations.inlined.length} in full`,
    `${declarations.summarized.length} summarised`,
    `${declarations.counted.length} counted`,
    ...(declarations.deferred.length > 0 ? [`${declarations.deferred.length} deferred`] : []),
  ];
  return parts.join(', ');
}
