import { readFileSync } from 'node:fs';
import { parseCommandLine } from './cli-arguments.js';
import { declarationsCommand } from './cli-declarations.js';
import { type CliIo, exitSuccess, exitUsageError, UsageError, usageText } from './cli-io.js';
import { runCommand } from './cli-run.js';
import { runDemo } from './demo/demo-run.js';

/**
 * Runs the `sluice` command with `argv` (the arguments after the command name) and resolves with
 * its exit code: 0 success, 1 the program failed, 2 bad input (one sentence on stderr). Never
 * calls `process.exit`; aborting `signal` cancels a running program.
 */
export async function runCli(argv: readonly string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  try {
    const command = parseCommandLine(argv);
    switch (command.command) {
      case 'help':
        io.stdout.write(usageText);
        return exitSuccess;
      case 'version':
        io.stdout.write(`${packageVersion()}\n`);
        return exitSuccess;
      case 'demo':
        return await runDemo(io);
      case 'run':
        return await runCommand(command, io, signal);
      case 'declarations':
        return await declarationsCommand(command, io);
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`sluice: ${error.message}\n${error.commandLine ? 'Run "sluice --help" for usage.\n' : ''}`);
    return exitUsageError;
  }
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
