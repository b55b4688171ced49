import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { foreignText } from '@sluice/code-runtime';
import express from 'express';
import { createConsoleRouter } from './console-router.js';
import { consolePath } from './console-serve.js';
import type { McpCommandIo } from './mcp-command.js';
import { isPostgresUrl, openRunStore } from './mcp-run-store.js';

/** The port `sluice console` listens on by default. */
export const defaultConsolePort = 8788;

/** The usage text of `sluice console`. */
export const consoleUsage = `Usage: sluice console --run-store <directory|postgres URL> [--port <n>]

Serves the operator console for a local run store on http://127.0.0.1:<port>/console: the runs,
newest first and filterable; one run's program, logs, host calls, failure and usage; and the calls
waiting for a decision, with Approve and Deny. Loopback only, without sign-in. This command has no
tools, so a decision is recorded and the page names the command that continues the run
(sluice resume --run <runId> with the run's tools). Ctrl-C stops it.

Options:
  --run-store <store>  The directory of the embedded store, or a postgres:// URL. Required.
  --port <n>           Listen on this port (default ${defaultConsolePort}; 0 for any free).
  -h, --help           Print this help and exit.
`;

/**
 * Runs `sluice console` with `argv` (the arguments after `console`) and resolves with its exit code
 * once `signal` aborts: 0 then; 2 for bad arguments or a store or port that cannot be used, with one
 * paragraph on stderr. Prints the console's URL on stdout when it serves. Relative store
 * directories are resolved against `cwd`. Never calls `process.exit`.
 */
export async function runConsoleCommand(
  argv: readonly string[],
  io: McpCommandIo,
  signal?: AbortSignal,
  cwd = process.cwd(),
): Promise<number> {
  let values: { 'run-store'?: string | undefined; port?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        'run-store': { type: 'string' },
        port: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    io.stderr.write(`sluice console: ${foreignText(error, 512)}\n\n${consoleUsage}`);
    return 2;
  }
  if (values.help === true) {
    io.stdout.write(consoleUsage);
    return 0;
  }
  const where = values['run-store'];
  const port = values.port === undefined ? defaultConsolePort : Number(values.port);
  if (where === undefined || where === '' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    io.stderr.write(
      `sluice console: ${where === undefined || where === '' ? 'give the store with --run-store <directory|postgres URL>' : `--port must be a port number from 0 to 65535, got ${JSON.stringify(values.port)}`}.\n\n${consoleUsage}`,
    );
    return 2;
  }
  const location = isPostgresUrl(where) ? where : resolve(cwd, where);
  const store = openRunStore(location);
  const log = (line: string) => io.stderr.write(`sluice console: ${line}\n`);
  try {
    await store.getRun('sluice_console_store_check');
  } catch (error) {
    await store.close().catch(() => {});
    io.stderr.write(`sluice console: the run store ${where} could not be opened: ${foreignText(error, 2048)}\n`);
    return 2;
  }
  const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);
  const app = express();
  app.disable('x-powered-by');
  // No sign-in on loopback: a page of another site must not reach it by a name that resolves here (DNS rebinding).
  app.use(hostHeaderValidation(['127.0.0.1', 'localhost']));
  app.use(
    consolePath,
    createConsoleRouter({
      store: () => store,
      base: consolePath,
      sessionSecret: randomBytes(32),
      verifier: undefined,
      secure: false,
      // Every run of the store is listed; a principal's are those `sluice serve` kept for it.
      conversationOf: (principal) => `principal:${principal}`,
      principalOf: (conversation) =>
        conversation?.startsWith('principal:') ? conversation.slice('principal:'.length) : undefined,
      resumeHint: (run) =>
        `sluice resume --run ${shellWord(run.start.runId)} --run-store ${shellWord(where)} --tools <the run's tools module> [--policy <file.json>]`,
      log,
    }),
  );
  app.get('/', (_request, response) => response.redirect(303, `${consolePath}/`));
  let server: Server;
  try {
    server = await new Promise<Server>((resolveListen, reject) => {
      const listening = app.listen(port, '127.0.0.1');
      listening.once('listening', () => resolveListen(listening));
      listening.once('error', reject);
    });
  } catch (error) {
    await store.close().catch(() => {});
    io.stderr.write(`sluice console: could not listen on 127.0.0.1:${port}: ${foreignText(error, 512)}\n`);
    return 2;
  }
  const { port: bound } = server.address() as AddressInfo;
  io.stdout.write(`http://127.0.0.1:${bound}${consolePath}/\n`);
  await new Promise<void>((resolveStop) => {
    if (signal === undefined) return;
    if (signal.aborted) resolveStop();
    else signal.addEventListener('abort', () => resolveStop(), { once: true });
  });
  await new Promise<void>((resolveClose) => {
    server.close(() => resolveClose());
    server.closeAllConnections();
  });
  await store.close().catch(() => {});
  return 0;
}
