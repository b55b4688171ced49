#!/usr/bin/env node
import { runCli } from './cli-main.js';

const controller = new AbortController();
process.once('SIGINT', () => {
  controller.abort('interrupted with Ctrl-C');
  process.once('SIGINT', () => process.exit(130));
});

try {
  process.exitCode = await runCli(
    process.argv.slice(2),
    { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() },
    controller.signal,
  );
} catch (error) {
  process.stderr.write(
    `sluice: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
}
