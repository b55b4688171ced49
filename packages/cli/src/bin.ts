#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { foreignText } from '@sluice/code-runtime';
import { invocationWords } from './cli-invocation.js';
import { exitInterrupted } from './cli-io.js';
import { runCli } from './cli-main.js';

const controller = new AbortController();
/** The first SIGINT or SIGTERM, which cancels the run; a second signal of either kind exits at once. */
let signalled: 'SIGINT' | 'SIGTERM' | undefined;
// 128 + the signal's number, as shells report a process a signal ended.
const signalExit = () => (signalled === 'SIGINT' ? exitInterrupted : 128 + 15);
for (const name of ['SIGINT', 'SIGTERM'] as const) {
  process.on(name, () => {
    if (signalled !== undefined) process.exit(signalExit());
    signalled = name;
    controller.abort(name === 'SIGINT' ? 'interrupted with Ctrl-C' : 'received SIGTERM');
  });
}

const [command, ...rest] = process.argv.slice(2);
if (command !== 'mcp' && command !== 'serve' && command !== 'console') {
  // A one-shot command's process is gone within seconds: V8's optimising tier for WebAssembly
  // (QuickJS, PGlite's PostgreSQL) would cost more CPU than it saves. With a budget 55 times the
  // default it starts only for code that runs hot for long, so a long compute-bound program still gets
  // it. Measured: a durable `sluice run` on an existing PGlite store 3.3 s → 1.9 s of CPU; a
  // 2e7-iteration QuickJS loop unchanged (docs/decisions/2026-12-02-budgets-start-with-the-program.md).
  setFlagsFromString('--wasm-tiering-budget=100000000');
}
try {
  if (command === 'console') {
    // Loaded only for `sluice console`: the operator console of a local run store, until Ctrl-C.
    const { runConsoleCommand } = await import('@sluice/mcp');
    process.exitCode = await runConsoleCommand(
      rest,
      { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
      controller.signal,
    );
    process.exit();
  }
  if (command === 'mcp' || command === 'serve') {
    // Loaded only for `sluice mcp` and `sluice serve`: the MCP SDK is not needed to run a program.
    const { runMcpCommand, runServeCommand } = await import('@sluice/mcp');
    const serve = command === 'mcp' ? runMcpCommand : runServeCommand;
    process.exitCode = await serve(
      rest,
      { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
      controller.signal,
    );
    // An upstream server that ignores its shutdown must not keep `sluice mcp` or `sluice serve` alive.
    process.exit();
  }
  const code = await runCli(
    process.argv.slice(2),
    {
      stdout: process.stdout,
      stderr: process.stderr,
      cwd: process.cwd(),
      invocation: invocationWords(process.argv[1], process.cwd(), process.env),
      // A getter: stdin is opened only when `sluice run -` reads it.
      get stdin() {
        return process.stdin;
      },
    },
    controller.signal,
  );
  process.exitCode = code;
  // runCli has cancelled the run and disposed its runtime by now; nothing left (a stdin read that
  // was abandoned) may keep the process from going, and the exit code says why it ended.
  if (signalled !== undefined) process.exit(signalExit());
  // Nor what V8 still does in the background once the run is over: it tiers the QuickJS
  // WebAssembly module up for 0.1–1 s after the result. What was written is flushed first.
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
} catch (error) {
  process.stderr.write(`sluice: internal error: ${foreignText(error, 64 * 1024, { stack: true })}\n`);
  process.exitCode = 1;
}

/** Resolves once what was written to `stream` before has been handed to the system (or failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}
