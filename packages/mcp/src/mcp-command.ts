import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InvalidSettingsError } from '@sluice/code-runtime';
import { loadMcpConfig } from './mcp-config.js';
import { createSluiceMcpServer } from './mcp-server.js';

/** The streams `sluice mcp` speaks MCP over (stdin, stdout) and logs to (stderr). */
export interface McpCommandIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
}

/** The usage text of `sluice mcp`. */
export const mcpUsageText = `Usage: sluice mcp --config <file>

Serves the Model Context Protocol over stdin and stdout. Connects to the upstream MCP servers in
<file> (the common "mcpServers" format) and offers the model run_code over all their tools, plus
search_tools and describe_tool. Sluice's own settings go under "sluice": language, policy, runtime.
Logs go to stderr.
`;

/**
 * Runs `sluice mcp` with `argv` (the arguments after `mcp`) and resolves with its exit code once the
 * client closes stdin or `signal` aborts: 0 after a clean shutdown, 2 for bad arguments or a bad
 * config (one paragraph on stderr naming the offending path). Never calls `process.exit`.
 */
export async function runMcpCommand(argv: readonly string[], io: McpCommandIo, signal?: AbortSignal): Promise<number> {
  const parsed = parseArguments(argv);
  if (parsed === 'help') {
    io.stderr.write(mcpUsageText);
    return 0;
  }
  if (typeof parsed === 'object' && 'problem' in parsed) {
    io.stderr.write(`sluice mcp: ${parsed.problem}\n\n${mcpUsageText}`);
    return 2;
  }
  const log = (line: string) => io.stderr.write(`sluice mcp: ${line}\n`);
  let server: ReturnType<typeof createSluiceMcpServer>;
  try {
    server = createSluiceMcpServer(await loadMcpConfig(parsed.config), { log });
  } catch (error) {
    if (!InvalidSettingsError.isInstance(error)) throw error;
    log(error.message);
    return 2;
  }
  const ended = new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
    io.stdin.once('end', () => resolve());
    io.stdin.once('close', () => resolve());
  });
  await server.connect(new StdioServerTransport(io.stdin, io.stdout));
  await ended;
  await server.close();
  return 0;
}

function parseArguments(argv: readonly string[]): 'help' | { config: string } | { problem: string } {
  let config: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    if (argument === '--help' || argument === '-h') return 'help';
    if (argument === '--config' || argument === '-c') {
      const value = argv[index + 1];
      if (value === undefined || value === '') return { problem: `${argument} needs a file name.` };
      config = value;
      index += 1;
    } else if (argument.startsWith('--config=')) {
      config = argument.slice('--config='.length);
    } else {
      return { problem: `unknown argument ${JSON.stringify(argument)}.` };
    }
  }
  if (config === undefined || config === '') return { problem: 'a config file is required: --config <file>.' };
  return { config };
}
