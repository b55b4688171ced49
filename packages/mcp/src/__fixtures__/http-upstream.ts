// Starts an upstream MCP server that listens on 127.0.0.1 as a child process, and stops it.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const spyServerPath = fileURLToPath(new URL('./spy-server.mjs', import.meta.url));
export const everythingPath = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

export interface HttpUpstream {
  /** The MCP endpoint, such as `http://127.0.0.1:40123/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Everything it wrote so far. */
  output(): string;
  stop(): Promise<void>;
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Starts `node <args>` and resolves once its output matches `ready` (whose first group, if any, is the port). */
export async function startHttpUpstream(options: {
  args: string[];
  env?: Record<string, string>;
  ready: RegExp;
  port?: number;
  path: string;
}): Promise<HttpUpstream> {
  const child: ChildProcess = spawn(process.execPath, options.args, {
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = options.ready.exec(output);
      if (match !== null) resolve(Number(match[1] ?? options.port));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the upstream exited with ${code} before it listened:\n${output}`)));
    child.once('error', reject);
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}${options.path}`,
    port,
    output: () => output,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The spy server over Streamable HTTP on a free port. */
export function startSpyOverHttp(): Promise<HttpUpstream> {
  return startHttpUpstream({ args: [spyServerPath], env: { SPY_HTTP: '1' }, ready: /listening (\d+)/, path: '/mcp' });
}

/** `server-everything` in `streamableHttp` or `sse` mode on a free port. */
export async function startEverything(mode: 'streamableHttp' | 'sse'): Promise<HttpUpstream> {
  const port = await freePort();
  return startHttpUpstream({
    args: [everythingPath, mode],
    env: { PORT: String(port) },
    ready: /(?:listening on port|running on port) \d+/i,
    port,
    path: mode === 'sse' ? '/sse' : '/mcp',
  });
}
