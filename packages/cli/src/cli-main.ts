import { readFileSync } from 'node:fs';
import { parseCommandLine } from './cli-arguments.js';
import { commandHelpText, commandSpecs, overviewText } from './cli-commands.js';
import { type CliIo, exitSuccess, exitUsageError, UsageError } from './cli-io.js';

/**
 * Runs the `sluice` command with `argv` (the arguments after the command name) and resolves with
 * its exit code: 0 success, 1 the program failed, 2 bad input (one sentence on stderr), 3 a durable
 * run paused for an approval. Relative paths are resolved against `io.cwd`; `sluice run -` reads
 * `io.stdin`. Never calls `process.exit`; aborting `signal` cancels a running program. `sluice mcp`
 * serves over the process's own stdio, so the `sluice` executable runs it (`runMcpCommand` of
 * `@sluice/mcp`), not this.
 */
export async function runCli(argv: readonly string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  try {
    const command = parseCommandLine(argv);
    switch (command.command) {
      case 'help':
        io.stdout.write(await helpText(command.topic));
        return exitSuccess;
      case 'version':
        io.stdout.write(`${packageVersion()}\n`);
        return exitSuccess;
      // Each command loads what it needs when it runs (the CLI is built in chunks): `sluice run`
      // starts its runtime before code mode and the run store are loaded.
      case 'demo':
        return await (await import('./demo/demo-run.js')).runDemo(io);
      case 'run':
        return await (await import('./cli-run-command.js')).runCommand(command, io, signal);
      case 'resume':
        return await (await import('./cli-resume.js')).resumeCommand(command, io, signal);
      case 'declarations':
        return await (await import('./cli-declarations.js')).declarationsCommand(command, io);
      case 'mcp':
      case 'serve':
      case 'console':
        throw new UsageError(
          `sluice ${command.command} serves until the process is stopped; run it with the sluice command.`,
        );
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const named = commandSpecs.find((spec) => spec.name === argv[0]);
    const help = named === undefined ? 'sluice --help' : `sluice ${named.name} --help`;
    io.stderr.write(`sluice: ${error.message}\n${error.commandLine ? `Run "${help}" for usage.\n` : ''}`);
    return exitUsageError;
  }
}

async function helpText(topic: string | undefined): Promise<string> {
  const spec = commandSpecs.find((candidate) => candidate.name === topic);
  if (spec === undefined) return overviewText();
  if (spec.name !== 'mcp' && spec.name !== 'serve' && spec.name !== 'console') return commandHelpText(spec);
  // Loaded only for this: `sluice mcp`, `sluice serve` and `sluice console` document their own options.
  const { consoleUsage, mcpUsageText, serveUsage } = await import('@sluice/mcp');
  if (spec.name === 'console') return consoleUsage;
  return spec.name === 'mcp' ? mcpUsageText : serveUsage();
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
