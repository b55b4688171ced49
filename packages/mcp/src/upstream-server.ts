import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { foreignText, type JsonValue } from '@sluice/code-runtime';
import type { UpstreamServerConfig } from './mcp-config.js';
import { toolResultValue } from './upstream-result.js';

/** Where an upstream server is in its life. Only a `ready` server takes calls. */
export type UpstreamStatus = 'idle' | 'starting' | 'ready' | 'failed' | 'exited' | 'closed';

/** Options for {@link UpstreamServer}. */
export interface UpstreamServerOptions {
  /** Our own name and version, sent to the upstream when connecting. */
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Receives each line the upstream writes to stderr, and notices about its life. */
  readonly log: (line: string) => void;
  /** Called once when a server that was ready exits on its own. */
  readonly onExit?: (server: UpstreamServer) => void;
}

const stderrTailBytes = 2_048;
// Calls end when the run ends (its signal cancels them upstream): no second, shorter clock here.
const noRequestTimeout = 2_147_483_647;

/**
 * One upstream MCP server: spawned over stdio, initialised, its tools listed. A server that fails
 * to start, or dies later, turns every call into an error that says so, with the last lines it
 * wrote to stderr; nothing waits on a dead process.
 */
export class UpstreamServer {
  readonly #config: UpstreamServerConfig;
  readonly #options: UpstreamServerOptions;
  #status: UpstreamStatus = 'idle';
  #startFailure: string | undefined;
  #tools: McpTool[] = [];
  #stderrTail = '';
  #client: Client | undefined;
  #exitedWhileStarting = false;

  constructor(config: UpstreamServerConfig, options: UpstreamServerOptions) {
    this.#config = config;
    this.#options = options;
  }

  /** The key in `mcpServers`. */
  get name(): string {
    return this.#config.name;
  }

  get status(): UpstreamStatus {
    return this.#status;
  }

  /** Why the server takes no calls, in a sentence for the model; `undefined` while it is ready. */
  get problem(): string | undefined {
    switch (this.#status) {
      case 'ready':
        return undefined;
      case 'idle':
      case 'starting':
        break;
      case 'failed':
        return `The ${this.name} server failed to start: ${this.#startFailure}.${this.#stderrNote()} Its tools cannot be called.`;
      case 'exited':
        return `The ${this.name} server exited.${this.#stderrNote()} Its tools cannot be called until Sluice is restarted.`;
      case 'closed':
        return `The ${this.name} server was shut down.`;
    }
    return `The ${this.name} server has not finished starting.`;
  }

  /** The tools the server listed when it started; empty unless it started. */
  get tools(): readonly McpTool[] {
    return this.#tools;
  }

  /** Spawns, initialises and lists tools within `timeoutMs`. Never rejects: a failure is recorded in {@link problem}. */
  async start(timeoutMs: number): Promise<void> {
    if (this.#status !== 'idle') return;
    this.#status = 'starting';
    const { command, args, env, cwd, name } = this.#config;
    const transport = new StdioClientTransport({ command, args: [...args], env: { ...env }, cwd, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => this.#onStderr(chunk.toString('utf8')));
    const client = new Client(
      { name: this.#options.clientInfo.name, version: this.#options.clientInfo.version },
      { capabilities: {} },
    );
    this.#client = client;
    client.onclose = () => this.#onClose();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`it did not start and list its tools within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.#connectAndList(client, transport, timeoutMs), deadline]);
      if (this.#status !== 'starting') return;
      this.#status = 'ready';
      this.#options.log(`[${name}] ready with ${this.#tools.length} tool${this.#tools.length === 1 ? '' : 's'}`);
    } catch (error) {
      if (this.#status !== 'starting') return;
      this.#status = 'failed';
      this.#startFailure = this.#exitedWhileStarting ? 'it exited before it finished starting' : reason(error);
      await client.close().catch(() => {});
      // The last stderr chunk can arrive just after the process is reported closed.
      await new Promise((resolve) => setImmediate(resolve));
      this.#options.log(`[${name}] ${this.problem}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Calls one of its tools. Rejects with a message for the model when the server is not running or the tool fails. */
  async call(toolName: string, input: JsonValue, signal: AbortSignal): Promise<JsonValue> {
    const client = this.#client;
    if (this.#status !== 'ready' || client === undefined) {
      throw new Error(this.problem ?? `The ${this.name} server is not running.`);
    }
    const argumentsObject =
      typeof input === 'object' && input !== null && !Array.isArray(input) ? input : input === null ? {} : undefined;
    if (argumentsObject === undefined) {
      throw new Error(`${this.name}.${toolName} takes one object of named arguments, got ${describeValue(input)}.`);
    }
    let result: CallToolResult;
    try {
      result = (await client.callTool({ name: toolName, arguments: argumentsObject }, undefined, {
        signal,
        timeout: noRequestTimeout,
      })) as CallToolResult;
    } catch (error) {
      if (this.#gone()) {
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error(`The ${this.name} server exited while ${toolName} was running.${this.#stderrNote()}`);
      }
      throw new Error(`${this.name}.${toolName} failed: ${reason(error)}`);
    }
    return toolResultValue(result, `${this.name}.${toolName}`);
  }

  /** Stops the server process (stdin closed, then SIGTERM, then SIGKILL) and resolves once it is gone. */
  async close(): Promise<void> {
    if (this.#status === 'closed') return;
    const wasRunning = this.#status === 'ready' || this.#status === 'starting';
    this.#status = 'closed';
    if (wasRunning) await this.#client?.close().catch(() => {});
  }

  #gone(): boolean {
    return this.#status === 'exited' || this.#status === 'closed';
  }

  async #connectAndList(client: Client, transport: StdioClientTransport, timeoutMs: number): Promise<void> {
    await client.connect(transport, { timeout: timeoutMs });
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.#tools = tools;
  }

  #onClose(): void {
    if (this.#status === 'starting') this.#exitedWhileStarting = true;
    if (this.#status === 'ready') {
      this.#status = 'exited';
      this.#options.log(`[${this.name}] exited`);
      this.#options.onExit?.(this);
    }
  }

  #onStderr(text: string): void {
    this.#stderrTail = (this.#stderrTail + text).slice(-stderrTailBytes);
    for (const line of text.split('\n')) {
      if (line.trim() !== '') this.#options.log(`[${this.name}] ${line}`);
    }
  }

  #stderrNote(): string {
    const lines = this.#stderrTail.trim().split('\n').slice(-5).join('\n').trim();
    return lines === '' ? '' : ` Its last words on stderr:\n${lines}\n`;
  }
}

function reason(error: unknown): string {
  const text = foreignText(error, 4096);
  return text.replace(/^MCP error -?\d+: /, '').replace(/\.$/, '');
}

function describeValue(value: JsonValue): string {
  return Array.isArray(value) ? 'an array' : typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}
