// Spawns the built `sluice mcp` (dist/bin.js) as a real process and drives it with the MCP SDK's own client.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

export const binPath = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
export const labServerPath = fileURLToPath(new URL('./lab-server.mjs', import.meta.url));

/** An upstream entry for the lab server, in the mcpServers format. */
export function labServer(env: Record<string, string> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [labServerPath], env };
}

export interface SluiceProcess {
  readonly client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** Writes `config` to a fresh folder and starts `node dist/bin.js --config <file>` with a connected client. */
export async function startSluice(
  config: unknown,
  options: {
    capabilities?: ClientCapabilities;
    configPath?: string;
    cwd?: string;
    /** Added to the server's environment (which otherwise is the SDK's small default one). */
    env?: Record<string, string>;
  } = {},
): Promise<SluiceProcess> {
  if (!existsSync(binPath)) {
    throw new Error(`${binPath} is missing: build @sluice/mcp first (pnpm build, or tsx ../../scripts/build-package.ts).`);
  }
  let configPath = options.configPath;
  let directory: string | undefined;
  if (configPath === undefined) {
    directory = mkdtempSync(join(tmpdir(), 'sluice-mcp-'));
    configPath = join(directory, 'sluice-mcp.json');
    writeFileSync(configPath, JSON.stringify(config, null, 2));
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binPath, '--config', configPath],
    stderr: 'pipe',
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'sluice-e2e', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  try {
    await client.connect(transport);
  } catch (error) {
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    client,
    stderr: () => stderr,
    close: async () => {
      try {
        await client.close();
      } finally {
        if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}

/** The text of a tool result's first content item. */
export function resultText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((item) => item.text ?? '').join('\n');
}

/** The returned value in a rendered run_code result, parsed; throws when the run did not return one. */
export function resultValue(result: unknown): unknown {
  const text = resultText(result);
  const marker = '--- value (JSON) ---\n';
  const at = text.indexOf(marker);
  if (at === -1) throw new Error(`The run returned no value:\n${text}`);
  return JSON.parse(text.slice(at + marker.length));
}

/** Runs `code` through run_code and returns its value. */
export async function runValue(client: Client, code: string): Promise<unknown> {
  return resultValue(await client.callTool({ name: 'run_code', arguments: { code } }));
}
