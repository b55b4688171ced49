import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { HttpUpstreamConfig, UpstreamServerConfig } from './mcp-config.js';

/** How Sluice reaches an upstream, as said in log lines. */
export type UpstreamTransportKind = 'stdio' | 'streamable-http' | 'sse';

/** What {@link connectUpstream} needs besides the server's config. */
export interface ConnectUpstreamOptions {
  /** A fresh client with its handlers set; called again for the SSE fallback. */
  readonly makeClient: () => Client;
  /** Receives what a stdio server writes to stderr. */
  readonly onStderr: (text: string) => void;
  /** How long connecting (the `initialize` round trip) may take, in milliseconds. */
  readonly timeoutMs: number;
}

/**
 * Connects a client to the upstream over its transport: a spawned process for stdio, Streamable
 * HTTP for a `url`, and SSE for `type: "sse"` or for a `url` without `type` whose server refuses
 * Streamable HTTP with a 4xx status (what servers that predate it answer).
 */
export async function connectUpstream(
  config: UpstreamServerConfig,
  options: ConnectUpstreamOptions,
): Promise<{ client: Client; kind: UpstreamTransportKind }> {
  if ('url' in config) return await connectHttp(config, options);
  const transport = new StdioClientTransport({
    command: config.command,
    args: [...config.args],
    env: { ...config.env },
    cwd: config.cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => options.onStderr(chunk.toString('utf8')));
  return { client: await connectWith(options, transport), kind: 'stdio' };
}

async function connectHttp(
  config: HttpUpstreamConfig,
  options: ConnectUpstreamOptions,
): Promise<{ client: Client; kind: UpstreamTransportKind }> {
  if (config.type === 'sse') return { client: await connectWith(options, sseTransport(config)), kind: 'sse' };
  try {
    return { client: await connectWith(options, streamableTransport(config)), kind: 'streamable-http' };
  } catch (error) {
    const refused = error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400;
    if (!config.sseFallback || !refused || error.code === 401 || error.code === 403) throw error;
    return { client: await connectWith(options, sseTransport(config)), kind: 'sse' };
  }
}

async function connectWith(options: ConnectUpstreamOptions, transport: Transport): Promise<Client> {
  const client = options.makeClient();
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return client;
}

function streamableTransport(config: HttpUpstreamConfig): Transport {
  return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: { ...config.headers } } });
}

function sseTransport(config: HttpUpstreamConfig): Transport {
  // The SDK adds requestInit's headers to the event stream's request as well as to the POSTs.
  return new SSEClientTransport(new URL(config.url), { requestInit: { headers: { ...config.headers } } });
}
