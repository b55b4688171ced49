import { createRunCodeTool } from '@sluice/code-mode';
import { type CodeRuntimeLanguage, InvalidRequestError, InvalidSettingsError } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { createContext } from '@sluice/context';
import { type CliIo, exitSuccess, UsageError } from './cli-io.js';
import { allowEverything, loadPolicy } from './cli-run.js';
import { loadToolsModule } from './cli-tools-module.js';

/** Options of `sluice declarations`. */
export interface DeclarationsCommandOptions {
  readonly tools: string;
  readonly language: CodeRuntimeLanguage;
  readonly policy: string | undefined;
}

/**
 * `sluice declarations`: prints the `run_code` description the model would read for these tools,
 * declarations and limits included, and a note on stderr with its size. No program runs; the
 * runtime is created only to read its published limits.
 */
export async function declarationsCommand(options: DeclarationsCommandOptions, io: CliIo): Promise<number> {
  const tools = await loadToolsModule(options.tools, io.cwd);
  const policy = options.policy === undefined ? allowEverything : await loadPolicy(options.policy);
  const ctx = createContext();
  ctx.provide(
    'codeRuntime',
    options.language === 'python' ? createPythonCodeRuntime() : createWorkerThreadCodeRuntime(),
  );
  try {
    let runCode: ReturnType<typeof createRunCodeTool>;
    try {
      runCode = createRunCodeTool({ context: ctx, tools, policy });
    } catch (error) {
      if (InvalidRequestError.isInstance(error) || InvalidSettingsError.isInstance(error)) {
        throw new UsageError(error.message);
      }
      throw error;
    }
    const { declarations } = runCode;
    io.stdout.write(`${runCode.description}\n`);
    io.stderr.write(
      `sluice: ${tools.length} tool${tools.length === 1 ? '' : 's'}, ${declarations.mode} declarations, about ${declarations.estimatedTokens} tokens (UTF-8 bytes / 4).\n`,
    );
    return exitSuccess;
  } finally {
    await ctx.dispose();
  }
}
