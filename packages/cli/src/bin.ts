#!/usr/bin/env node
import { foreignText } from '@sluice/code-runtime';
import { runCli } from './cli-main.js';

const controller = new AbortController();
process.once('SIGINT', () => {
  controller.abort('interrupted with Ctrl-C');
  process.once('SIGINT', () => process.exit(130));
});
process.once('SIGTERM', () => controller.abort('received SIGTERM'));

const [command, ...rest] = process.argv.slice(2);
try {
  if (command === 'mcp') {
    // Loaded only for `sluice mcp`: the MCP SDK is not needed to run a program.
    const { runMcpCommand } = await import('@sluice/mcp');
    process.exitCode = await runMcpCommand(
      rest,
      { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
      controller.signal,
    );
    // An upstream server that ignores its shutdown must not keep `sluice mcp` alive.
    process.exit();
  }
  process.exitCode = await runCli(
    process.argv.slice(2),
    { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() },
    controller.signal,
  );
} catch (error) {
  process.stderr.write(`sluice: internal error: ${foreignText(error, 64 * 1024, { stack: true })}\n`);
  process.exitCode = 1;
}
