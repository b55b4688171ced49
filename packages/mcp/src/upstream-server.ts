import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  LoggingMessageNotificationSchema,
  type Tool as McpTool,
  type Progress,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { foreignText, type JsonValue } from '@sluice/code-runtime';
import type { UpstreamRestartPolicy, UpstreamServerConfig } from './mcp-config.js';
import { traceMeta } from './mcp-telemetry.js';
import { upstreamCallSignal } from './upstream-call-signal.js';
import { type UpstreamLogMessage, type UpstreamProgress, upstreamLogLine } from './upstream-notices.js';
import { isTimeout, isUnreachable, reason, startFailureReason, unreachableReason } from './upstream-reasons.js';
import { toolResultValue } from './upstream-result.js';
import { connectUpstream, type UpstreamTransportKind } from './upstream-transport.js';

/** Where an upstream server is in its life. Only a `ready` server takes calls; a `restarting` one will again. */
export type UpstreamStatus = 'idle' | 'starting' | 'ready' | 'failed' | 'exited' | 'restarting' | 'closed';

/** Options for {@link UpstreamServer}. */
export interface UpstreamServerOptions {
  /** Our own name and version, sent to the upstream when connecting. */
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Receives each line the upstream writes to stderr, and notices about its life. */
  readonly log: (line: string) => void;
  /** Called each time a server that was ready is lost: it exited, stopped answering over HTTP, or sent a broken message. */
  readonly onExit?: (server: UpstreamServer) => void;
  /** Called when a restarted server is back, or a ready server's tool list changed (`notifications/tools/list_changed`). */
  readonly onToolsChanged?: (server: UpstreamServer) => void;
  /** Receives each log message the server sends (`notifications/message`), which also goes to `log` as a line. */
  readonly onLog?: (server: UpstreamServer, message: UpstreamLogMessage) => void;
  /**
   * Receives the progress the server reports for a tool call. With it set, every call asks for
   * progress (the SDK sends a `progressToken`); without it, none does.
   */
  readonly onProgress?: (progress: UpstreamProgress) => void;
}

/** Which run and call of that run an upstream call serves, for its progress. */
export interface UpstreamCallOrigin {
  readonly runId: string;
  readonly callId: string;
}

const stderrTailBytes = 2_048;
// Calls end when the run ends (its signal cancels them upstream): no second, shorter clock here.
const noRequestTimeout = 2_147_483_647;
const defaultRestart: UpstreamRestartPolicy = { initialDelayMs: 1_000, maxDelayMs: 60_000 };

/**
 * One upstream MCP server, over stdio or HTTP: connected, initialised, its tools listed. A server
 * that fails to start turns every call into an error that says so, with the last lines it wrote to
 * stderr. One that dies later is restarted with exponential backoff (its calls fail meanwhile,
 * saying so); nothing waits on a dead process. `notifications/tools/list_changed` re-lists its tools.
 */
export class UpstreamServer {
  readonly #config: UpstreamServerConfig;
  readonly #options: UpstreamServerOptions;
  #status: UpstreamStatus = 'idle';
  #startFailure: string | undefined;
  #tools: McpTool[] = [];
  #toolsVersion = 0;
  #stderrTail = '';
  #client: Client | undefined;
  #kind: UpstreamTransportKind | undefined;
  // Each connection attempt is a generation; events of an older client are ignored.
  #generation = 0;
  #exitedWhileStarting = false;
  #broken: string | undefined;
  #lost = 'exited';
  #timeoutMs = 30_000;
  #attempt = 0;
  #nextDelayMs = 0;
  #readySince = 0;
  #restartTimer: NodeJS.Timeout | undefined;
  #staleTools = false;
  #refreshing: Promise<void> | undefined;
  #probing = false;

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
        return `The ${this.name} server ${this.#lost}.${this.#stderrNote()} Its tools cannot be called until Sluice is restarted.`;
      case 'restarting':
        return `The ${this.name} server ${this.#lost}.${this.#stderrNote()} Sluice is restarting it (attempt ${this.#attempt}, ${seconds(this.#nextDelayMs)} after the last); its tools fail until it is back, so try again later.`;
      case 'closed':
        return `The ${this.name} server was shut down.`;
    }
    return `The ${this.name} server has not finished starting.`;
  }

  /** The tools the server listed most recently, but those its config's `disabledTools` leaves out; empty unless it started. */
  get tools(): readonly McpTool[] {
    return this.#tools;
  }

  /** The `instructions` the server sent when it initialised, for its namespace's guide; `''` when none. */
  get instructions(): string {
    const instructions = this.#client?.getInstructions();
    return typeof instructions === 'string' ? instructions : '';
  }

  /** Goes up by one each time {@link tools} is replaced, so a catalog knows when to rebuild. */
  get toolsVersion(): number {
    return this.#toolsVersion;
  }

  /** Connects, initialises and lists tools within `timeoutMs`. Never rejects: a failure is recorded in {@link problem}. */
  async start(timeoutMs: number): Promise<void> {
    if (this.#status !== 'idle') return;
    this.#status = 'starting';
    this.#timeoutMs = timeoutMs;
    try {
      await this.#open();
      if (this.#status !== 'starting') {
        // Closed while it started: a client made after the close (an SSE fallback) must not stay open.
        await this.#client?.close().catch(() => {});
        return;
      }
      this.#becomeReady();
    } catch (error) {
      if (this.#status !== 'starting') return;
      this.#status = 'failed';
      this.#startFailure = this.#broken ?? startFailureReason(error, this.#config, this.#exitedWhileStarting);
      await this.#client?.close().catch(() => {});
      // The last stderr chunk can arrive just after the process is reported closed.
      await new Promise((resolve) => setImmediate(resolve));
      this.#options.log(`[${this.name}] ${this.problem}`);
    }
  }

  /**
   * Calls one of its tools; its progress goes to `onProgress` with `origin`. Rejects with a message
   * for the model when the server is not running or the tool fails.
   */
  async call(toolName: string, input: JsonValue, signal: AbortSignal, origin?: UpstreamCallOrigin): Promise<JsonValue> {
    const client = this.#client;
    if (this.#status !== 'ready' || client === undefined) {
      throw new Error(this.problem ?? `The ${this.name} server is not running.`);
    }
    const argumentsObject =
      typeof input === 'object' && input !== null && !Array.isArray(input) ? input : input === null ? {} : undefined;
    if (argumentsObject === undefined) {
      throw new Error(`${this.name}.${toolName} takes one object of named arguments, got ${describeValue(input)}.`);
    }
    const link = upstreamCallSignal(signal);
    // The trace context of the host call's span, so the upstream's spans join the run's trace.
    const meta = traceMeta();
    let result: CallToolResult;
    try {
      const params = { name: toolName, arguments: argumentsObject, ...(meta === undefined ? {} : { _meta: meta }) };
      result = (await client.callTool(params, undefined, {
        signal: link.signal,
        timeout: noRequestTimeout,
        ...this.#progressOption(toolName, origin),
      })) as CallToolResult;
    } catch (error) {
      if (this.#client === client && this.#status === 'ready' && this.#kind !== 'stdio' && isUnreachable(error)) {
        this.#lose(`could not be reached (${unreachableReason(error)})`);
      }
      if (this.#client !== client || this.#status !== 'ready') {
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error(`The ${this.name} server ${this.#lost} while ${toolName} was running.${this.#stderrNote()}`);
      }
      throw new Error(`${this.name}.${toolName} failed: ${reason(error)}`);
    } finally {
      link.release();
    }
    const declared = this.#tools.find((tool) => tool.name === toolName);
    return toolResultValue(result, `${this.name}.${toolName}`, { outputSchema: declared?.outputSchema !== undefined });
  }

  /** Stops the server (for stdio: stdin closed, then SIGTERM, then SIGKILL) and any restart, and resolves once it is gone. */
  async close(): Promise<void> {
    if (this.#status === 'closed') return;
    this.#status = 'closed';
    clearTimeout(this.#restartTimer);
    this.#generation += 1;
    await this.#client?.close().catch(() => {});
  }

  /** One connection attempt: connect, then list every page of tools, all within the start timeout. */
  async #open(): Promise<void> {
    const generation = ++this.#generation;
    this.#exitedWhileStarting = false;
    this.#broken = undefined;
    const timeoutMs = this.#timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`it did not start and list its tools within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    const attempt = (async () => {
      const { client, kind } = await connectUpstream(this.#config, {
        makeClient: () => this.#makeClient(generation),
        onStderr: (text) => this.#onStderr(text),
        timeoutMs,
      });
      this.#kind = kind;
      const tools = await listTools(client, timeoutMs);
      if (generation !== this.#generation) return;
      this.#tools = this.#enabled(tools);
      this.#toolsVersion += 1;
    })();
    try {
      await Promise.race([attempt, deadline]);
    } finally {
      clearTimeout(timer);
      // The attempt loses the race only to the deadline, whose rejection is the one reported.
      attempt.catch(() => {});
    }
  }

  #makeClient(generation: number): Client {
    const client = new Client(
      { name: this.#options.clientInfo.name, version: this.#options.clientInfo.version },
      { capabilities: {} },
    );
    this.#client = client;
    client.onclose = () => {
      if (generation === this.#generation) this.#onClose();
    };
    client.onerror = (error) => {
      if (generation === this.#generation) this.#onError(error);
    };
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      if (generation === this.#generation) this.#onLog(notification.params);
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (generation !== this.#generation) return;
      if (this.#status === 'starting' || this.#status === 'restarting') this.#staleTools = true;
      else if (this.#status === 'ready') this.#refreshTools();
    });
    return client;
  }

  /** The tools it listed without those its `disabledTools` leaves out. */
  #enabled(tools: McpTool[]): McpTool[] {
    const disabled = new Set(this.#config.disabledTools ?? []);
    return disabled.size === 0 ? tools : tools.filter((tool) => !disabled.has(tool.name));
  }

  #onLog(message: UpstreamLogMessage): void {
    this.#options.log(`[${this.name}] ${upstreamLogLine(message)}`);
    try {
      this.#options.onLog?.(this, message);
    } catch (error) {
      this.#options.log(`[${this.name}] could not pass its log message on: ${foreignText(error, 1024)}`);
    }
  }

  /** The SDK's request option that asks for progress and hands it to `onProgress`; none without `onProgress`. */
  #progressOption(tool: string, origin: UpstreamCallOrigin | undefined): { onprogress?: (progress: Progress) => void } {
    const onProgress = this.#options.onProgress;
    if (onProgress === undefined) return {};
    return {
      onprogress: ({ progress, total, message }) => {
        try {
          onProgress({
            server: this.name,
            tool,
            ...origin,
            progress,
            ...(total === undefined ? {} : { total }),
            ...(message === undefined ? {} : { message }),
          });
        } catch (error) {
          this.#options.log(`[${this.name}] could not pass progress of ${tool} on: ${foreignText(error, 1024)}`);
        }
      },
    };
  }

  #becomeReady(): void {
    this.#status = 'ready';
    this.#readySince = Date.now();
    const count = `${this.#tools.length} tool${this.#tools.length === 1 ? '' : 's'}`;
    this.#options.log(`[${this.name}] ready with ${count}${this.#kind === 'stdio' ? '' : ` over ${this.#kind}`}`);
    if (this.#staleTools) this.#refreshTools();
  }

  #onClose(): void {
    if (this.#status === 'starting' || this.#status === 'restarting') this.#exitedWhileStarting = true;
    if (this.#status === 'ready') this.#lose('exited');
  }

  #onError(error: Error): void {
    const text = foreignText(error, 300);
    let broken: string | undefined;
    if (text.includes('ReadBuffer exceeded maximum size')) {
      broken = 'sent a message larger than the 10 MiB limit and was stopped';
    } else if (error instanceof SyntaxError || error.name === 'ZodError') {
      broken = `sent a message that is not valid JSON-RPC and was stopped (${text.replace(/\s+/g, ' ')})`;
    }
    if (broken === undefined) {
      // Over HTTP a response stream that broke leaves its call waiting for an answer that will not come.
      if (this.#status === 'ready' && this.#kind !== 'stdio') this.#probe();
      return;
    }
    this.#broken = broken;
    if (this.#status === 'ready') this.#lose(broken);
    else this.#options.log(`[${this.name}] ${broken}`);
    // A broken stream cannot be trusted to frame the next message: the connection ends here.
    this.#client?.close().catch(() => {});
  }

  /**
   * An HTTP transport reported an error (a response stream broke, a reconnection failed): a ping
   * within the start timeout tells whether the server is still there. One that cannot be reached is
   * lost at once, which fails its calls in flight instead of leaving them to the run's wall clock.
   */
  #probe(): void {
    if (this.#probing) return;
    this.#probing = true;
    this.#ping().catch((error: unknown) =>
      this.#options.log(`[${this.name}] could not check whether it is still there: ${foreignText(error, 1024)}`),
    );
  }

  async #ping(): Promise<void> {
    const client = this.#client;
    if (client === undefined) return;
    const timeoutMs = this.#timeoutMs;
    try {
      await client.ping({ timeout: timeoutMs });
    } catch (error) {
      if (this.#client !== client || this.#status !== 'ready') return;
      if (isTimeout(error)) this.#lose(`could not be reached (it did not answer a ping within ${timeoutMs} ms)`);
      else if (isUnreachable(error)) this.#lose(`could not be reached (${unreachableReason(error)})`);
    } finally {
      this.#probing = false;
    }
  }

  /** A ready server is gone: fail its calls, tell the host, and restart it unless restarts are off. */
  #lose(what: string): void {
    if (this.#status !== 'ready') return;
    this.#lost = what;
    const client = this.#client;
    this.#generation += 1;
    const restart = this.#config.restart ?? defaultRestart;
    if (restart === false) {
      this.#status = 'exited';
      this.#options.log(`[${this.name}] ${what}`);
    } else {
      this.#status = 'restarting';
      // A server that stayed up for a while starts its backoff over.
      if (Date.now() - this.#readySince >= restart.maxDelayMs) this.#attempt = 0;
      this.#scheduleRestart(restart);
    }
    client?.close().catch(() => {});
    this.#options.onExit?.(this);
  }

  #scheduleRestart(restart: UpstreamRestartPolicy): void {
    this.#attempt += 1;
    this.#nextDelayMs = Math.min(restart.initialDelayMs * 2 ** (this.#attempt - 1), restart.maxDelayMs);
    this.#options.log(
      `[${this.name}] ${this.#lost}; restarting in ${seconds(this.#nextDelayMs)} (attempt ${this.#attempt})`,
    );
    this.#restartTimer = setTimeout(() => {
      this.#restart(restart).catch((error: unknown) =>
        this.#options.log(`[${this.name}] restart failed: ${foreignText(error, 1024)}`),
      );
    }, this.#nextDelayMs);
    this.#restartTimer.unref();
  }

  async #restart(restart: UpstreamRestartPolicy): Promise<void> {
    if (this.#status !== 'restarting') return;
    try {
      await this.#open();
    } catch (error) {
      if (this.#status !== 'restarting') return;
      this.#generation += 1;
      await this.#client?.close().catch(() => {});
      const why = this.#broken ?? startFailureReason(error, this.#config, this.#exitedWhileStarting);
      this.#options.log(`[${this.name}] restart attempt ${this.#attempt} failed: ${why}`);
      this.#scheduleRestart(restart);
      return;
    }
    if (this.#status !== 'restarting') {
      await this.#client?.close().catch(() => {});
      return;
    }
    this.#becomeReady();
    this.#options.onToolsChanged?.(this);
  }

  /** Re-lists the tools after `notifications/tools/list_changed`; several notifications in a row cost one more listing. */
  #refreshTools(): void {
    this.#staleTools = true;
    if (this.#refreshing !== undefined) return;
    this.#refreshing = (async () => {
      while (this.#staleTools && this.#status === 'ready') {
        this.#staleTools = false;
        const client = this.#client;
        const generation = this.#generation;
        if (client === undefined) return;
        try {
          const tools = await listTools(client, this.#timeoutMs);
          if (generation !== this.#generation || this.#status !== 'ready') return;
          this.#tools = this.#enabled(tools);
          this.#toolsVersion += 1;
          this.#options.log(`[${this.name}] tools changed: now ${this.#tools.length}`);
          this.#options.onToolsChanged?.(this);
        } catch (error) {
          this.#options.log(`[${this.name}] could not list its changed tools: ${reason(error)}`);
        }
      }
    })().finally(() => {
      this.#refreshing = undefined;
    });
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

/** The most pages and tools one listing may take: an upstream that pages on past them is refused, not followed. */
export const maxToolPages = 100;
export const maxTools = 10_000;

/**
 * Lists every page of an upstream's tools within `timeoutMs` in all. Throws, naming the reason, when
 * the upstream repeats a cursor, pages past {@link maxToolPages} or lists more than {@link maxTools}
 * tools: a server that pages forever must not grow the host's memory until it falls over.
 */
async function listTools(client: Client, timeoutMs: number): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  const seen = new Set<string>();
  const deadline = Date.now() + timeoutMs;
  let cursor: string | undefined;
  for (let pages = 1; ; pages += 1) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`it did not list its tools within ${timeoutMs} ms`);
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: left });
    for (const tool of page.tools) tools.push(tool);
    if (tools.length > maxTools) throw new Error(`it lists more than ${maxTools} tools`);
    cursor = page.nextCursor;
    if (cursor === undefined) return tools;
    if (seen.has(cursor)) throw new Error(`it sent the tools/list cursor ${JSON.stringify(cursor.slice(0, 80))} twice`);
    if (pages >= maxToolPages) throw new Error(`it pages its tools past ${maxToolPages} pages`);
    seen.add(cursor);
  }
}

function seconds(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Number((ms / 1_000).toFixed(1))} s`;
}

function describeValue(value: JsonValue): string {
  return Array.isArray(value) ? 'an array' : typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}
