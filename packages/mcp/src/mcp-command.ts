import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { foreignText, InvalidSettingsError } from '@sluice/code-runtime';
import { loadMcpConfig } from './mcp-config.js';
import { createSluiceMcpServer, type SluiceMcpServer } from './mcp-server.js';

/** The streams `sluice mcp` speaks MCP over (stdin, stdout) and logs to (stderr). */
export interface McpCommandIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
}

/** Options for {@link runMcpCommand}. */
export interface McpCommandOptions {
  /** The command as the user typed it, for usage and messages: `'sluice mcp'` (default) or `'sluice-mcp'`. */
  readonly commandName?: string;
}

/** The largest JSON-RPC line read from the client, in bytes: the MCP SDK's stdio default, stated here so it can be named. */
export const maxClientMessageBytes = 10 * 1024 * 1024;

/** The usage text of the command, as `commandName` (default `sluice mcp`). */
export function mcpUsage(commandName = 'sluice mcp'): string {
  return `Usage: ${commandName} --config <file> [--strict-policy]

Serves the Model Context Protocol over stdin and stdout. Connects to the upstream MCP servers in
<file> (the common "mcpServers" format) and offers the model run_code over all their tools, plus
search_tools and describe_tool. Sluice's own settings go under "sluice": language, policy, runtime.
Logs go to stderr.

Options:
  -c, --config <file>  The config file. Required.
  --strict-policy      Refuse to start when a policy rule names no upstream tool (default: a warning).
  -h, --help           Print this help and exit.

Under the MCP Inspector, put -- before the command:
  npx @modelcontextprotocol/inspector -- ${commandName} --config <file>
`;
}

/** The usage text of `sluice mcp`. */
export const mcpUsageText = mcpUsage();

type Parsed = { help: true } | { config: string; strictPolicy: boolean } | { problem: string };

/**
 * Runs `sluice mcp` with `argv` (the arguments after `mcp`) and resolves with its exit code: 0 once
 * the client closes stdin or `signal` aborts; 2 for bad arguments, a bad config, Python without an
 * interpreter, or (with `--strict-policy`) a policy rule naming no tool, with one paragraph on stderr;
 * 1 when the connection to the client breaks (a message over {@link maxClientMessageBytes}) or the
 * tool catalog cannot be built. `--help` prints usage on stdout. Never calls `process.exit`.
 */
export async function runMcpCommand(
  argv: readonly string[],
  io: McpCommandIo,
  signal?: AbortSignal,
  options: McpCommandOptions = {},
): Promise<number> {
  const commandName = options.commandName ?? 'sluice mcp';
  const usage = mcpUsage(commandName);
  const parsed = parseArguments(argv);
  if ('help' in parsed) {
    io.stdout.write(usage);
    return 0;
  }
  if ('problem' in parsed) {
    io.stderr.write(`${commandName}: ${parsed.problem}\n\n${usage}`);
    return 2;
  }
  const log = (line: string) => io.stderr.write(`${commandName}: ${line}\n`);
  let server: SluiceMcpServer;
  try {
    server = createSluiceMcpServer(await loadMcpConfig(parsed.config), { log, strictPolicy: parsed.strictPolicy });
  } catch (error) {
    if (!InvalidSettingsError.isInstance(error)) throw error;
    log(error.message);
    return 2;
  }

  let exitCode: number | undefined;
  let end: (code: number) => void = () => {};
  const ended = new Promise<void>((resolve) => {
    end = (code) => {
      exitCode ??= code;
      resolve();
    };
  });
  if (signal?.aborted) end(0);
  signal?.addEventListener('abort', () => end(0), { once: true });
  io.stdin.once('end', () => end(0));
  io.stdin.once('close', () => end(0));

  const transport = new StdioServerTransport(io.stdin, io.stdout, { maxBufferSize: maxClientMessageBytes });
  let lastError: unknown;
  // The SDK's transport reports a line it cannot parse and reads on; a line over its buffer size makes it
  // close itself while stdin stays open. Neither may pass in silence, and the second must end the command.
  transport.onerror = (error) => {
    lastError = error;
    if (exitCode === undefined) log(`could not read a message from the MCP client: ${foreignText(error, 1024)}`);
  };
  transport.onclose = () => {
    if (exitCode !== undefined) return;
    const tooLong = foreignText(lastError, 1024).includes(String(maxClientMessageBytes));
    log(
      tooLong
        ? `a message from the MCP client was over ${maxClientMessageBytes} bytes (10 MiB), the most one JSON-RPC line may be; the connection is closed and the server stops.`
        : 'the connection to the MCP client closed; the server stops.',
    );
    end(1);
  };
  try {
    await server.connect(transport);
  } catch (error) {
    await server.close();
    if (!InvalidSettingsError.isInstance(error)) throw error;
    log(error.message);
    return 2;
  }
  server.ready().catch((error: unknown) => {
    // The server has logged why; without a catalog it can answer nothing, so it stops.
    end(InvalidSettingsError.isInstance(error) ? 2 : 1);
  });
  await ended;
  await server.close();
  return exitCode ?? 0;
}

function parseArguments(argv: readonly string[]): Parsed {
  let tokens: NonNullable<ReturnType<typeof parseArgs>['tokens']>;
  try {
    ({ tokens } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string', short: 'c' },
        'strict-policy': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: false,
      allowPositionals: true,
      tokens: true,
    }));
  } catch (error) {
    return { problem: `${foreignText(error, 1024)}.` };
  }
  if (tokens.some((token) => token.kind === 'option' && token.name === 'help')) return { help: true };
  let config: string | undefined;
  let strictPolicy = false;
  for (const token of tokens) {
    if (token.kind === 'positional') return { problem: `unexpected argument ${JSON.stringify(token.value)}.` };
    if (token.kind !== 'option') continue;
    if (token.name === 'strict-policy') {
      if (token.value !== undefined) return { problem: `${token.rawName} takes no value.` };
      strictPolicy = true;
    } else if (token.name === 'config') {
      // `--config --strict-policy` is a forgotten file name, not a file called "--strict-policy".
      const missing =
        token.value === undefined || token.value === '' || (!token.inlineValue && token.value.startsWith('--'));
      if (missing) return { problem: `${token.rawName} needs a file name.` };
      config = token.value;
    } else {
      return { problem: `unknown option ${JSON.stringify(token.rawName)}.` };
    }
  }
  if (config === undefined) return { problem: 'a config file is required: --config <file>.' };
  return { config, strictPolicy };
}
