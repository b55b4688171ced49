import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolRequest,
  type CallToolResult,
  ErrorCode,
  type ListToolsResult,
  type LoggingLevel,
  McpError,
  type RequestId,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { context } from '@opentelemetry/api';
import { ResultSpill, type RunCodeOutcome, readOutputToolName } from '@sluice/code-mode';
import { type CodeRunEvent, type CodeRuntime, foreignText, InvalidSettingsError } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { createContext } from '@sluice/context';
import { type DurablePause, DurableRunError } from '@sluice/durable';
import { type ApprovalCallback, type PermissionDecision, policyForCaller } from '@sluice/permissions';
import type { RunStore } from '@sluice/run-store';
import {
  buildCatalog,
  discoveryToolDefinitions,
  listRunsToolDefinition,
  type McpCatalog,
  resumeRunToolDefinition,
  serveDiscovery,
} from './mcp-catalog.js';
import type { SluiceMcpConfig } from './mcp-config.js';
import { durableOutputSchema, durableStructured } from './mcp-durable-result.js';
import type { Admission } from './mcp-fair-share.js';
import { RunStoreGate } from './mcp-run-store.js';
import { checkPolicyNames, checkRuntimeReady } from './mcp-startup-checks.js';
import { contextFromMeta, countPausesWaiting } from './mcp-telemetry.js';
import { RunProgress } from './run-progress.js';
import {
  type UpstreamLogMessage,
  UpstreamProgressRoutes,
  upstreamLogMessage,
  upstreamProgressText,
} from './upstream-notices.js';
import { UpstreamServer } from './upstream-server.js';

/**
 * Who calls a served Sluice (`sluice serve`): the principal an access token names, and the token's
 * OAuth scopes. Everything a run leaves (its record, pauses, stored values, output pages) is the
 * principal's, and the policy is narrowed to the caller (`policyForCaller`).
 */
export interface McpCaller {
  readonly principal: string;
  readonly scopes: readonly string[];
}

/** A person's answer to a paused call: `undefined` when they were not asked or did not answer. */
export type PauseAnswer =
  | { decision: 'allow'; by?: string }
  | { decision: 'deny'; reason: string; by?: string }
  | undefined;

/** How one MCP connection reaches its client, beyond the request being answered. */
export interface McpConnection {
  /** The SDK server of the connection: elicitation and logging go through it. */
  readonly server: Server;
  /**
   * Asks the client's user about a paused durable run's call (default: elicitation through
   * `server`), as part of the request `requestId` (over HTTP, on that request's response stream).
   */
  readonly askAboutPause?: (pause: DurablePause, signal: AbortSignal, requestId: RequestId) => Promise<PauseAnswer>;
  /**
   * A place to run in, taken before each run, resume or decision goes on and released after it (not
   * while a person is asked): `sluice serve`'s share of the replica for the caller. Default: always.
   */
  readonly admit?: (signal: AbortSignal, options: { readonly queueAlways?: boolean }) => Promise<Admission>;
  /**
   * Aborted when the connection was lost rather than the request cancelled (an HTTP client that went
   * away): a durable run is then let go, resumable, instead of being cancelled.
   */
  readonly lost?: AbortSignal;
}

/** A run that found the caller's share of the server full: nothing ran. */
class ServerBusy extends Error {
  constructor(readonly busy: Extract<Admission, { busy: unknown }>['busy']) {
    super('busy');
  }
}

/** Options for {@link McpService}. */
export interface McpServiceOptions {
  readonly log: (line: string) => void;
  /** Runs the programs instead of a runtime created from the config; not disposed by the service. */
  readonly runtime?: CodeRuntime;
  readonly strictPolicy?: boolean;
  /** Hears of an upstream lost, restarted or with new tools (`sluice mcp` tells its one client). */
  readonly onUpstreamChanged?: (upstream: UpstreamServer) => void;
  /** Hears of deferred tools loaded by a search, so a client can be told the tool list changed. */
  readonly onToolsLoaded?: () => void;
  /**
   * Hears an upstream's log message, its logger named after the server (`sluice mcp` passes it to
   * its client; over HTTP there is no stream outside a request, so it goes only to `log`).
   */
  readonly onUpstreamLog?: (message: UpstreamLogMessage) => void;
  /**
   * Approves `ask` calls of runs that are not durable, for the local caller (`sluice mcp`: its one
   * client's user). Without it, and for every principal, such a call is denied saying why.
   */
  readonly approve?: ApprovalCallback;
}

/** Why an `ask` call of a run that is not durable is denied when nobody can be asked in the run. */
const noApproverReason =
  'this Sluice server asks a person only about durable runs (sluice.durable), so a call its policy says to ask about is denied';

/**
 * The shared part of the code-mode MCP server: the upstream connections, the runtime, the run store
 * and the tool catalogs, one set for every connection. `sluice mcp` puts one stdio connection in
 * front of it; `sluice serve` a fresh SDK server for each HTTP request. A catalog is kept per caller
 * (the local user, or one per principal), so policies, conversations and output pages never mix.
 */
export class McpService {
  readonly config: SluiceMcpConfig;
  readonly upstreams: readonly UpstreamServer[];
  readonly log: (line: string) => void;
  /** The run store, with `sluice.durable`. */
  readonly store: RunStore | undefined;
  readonly #options: McpServiceOptions;
  readonly #owned: ReturnType<typeof createContext> | undefined;
  readonly #context: { readonly codeRuntime: CodeRuntime };
  readonly #gate: RunStoreGate | undefined;
  readonly #catalogs = new Map<string, { catalog: McpCatalog; spill: ResultSpill }>();
  readonly #active = new Set<AbortController>();
  readonly #upstreamProgress = new UpstreamProgressRoutes();
  #started: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  constructor(config: SluiceMcpConfig, options: McpServiceOptions) {
    this.config = config;
    this.log = options.log;
    this.#options = options;
    // A runtime we create is ours to dispose, through the context; one handed in stays the caller's.
    this.#owned = options.runtime === undefined ? createContext() : undefined;
    this.#owned?.provide('codeRuntime', createRuntime(config));
    this.#context = this.#owned ?? { codeRuntime: options.runtime as CodeRuntime };
    const version = packageVersion();
    const changed = (upstream: UpstreamServer) => options.onUpstreamChanged?.(upstream);
    this.upstreams = config.upstreams.map(
      (upstream) =>
        new UpstreamServer(upstream, {
          clientInfo: { name: 'sluice', version },
          log: this.log,
          onExit: changed,
          onToolsChanged: changed,
          onLog: (from, message) => options.onUpstreamLog?.(upstreamLogMessage(from.name, message)),
          // Progress goes to the run_code request whose run made the call.
          onProgress: this.#upstreamProgress.deliver,
        }),
    );
    if (!config.policyConfigured) this.log('no policy configured: every upstream tool may be called by programs');
    for (const note of config.notes ?? []) this.log(note);
    // Durable runs are kept in this store (opened and checked by start), across catalog rebuilds and restarts.
    this.#gate = config.durable === undefined ? undefined : new RunStoreGate(config.durable.store, this.log);
    this.store = this.#gate?.store;
  }

  /** The runtime programs run on. */
  get runtime(): CodeRuntime {
    return this.#context.codeRuntime;
  }

  /**
   * Checks what every run needs before a client is served: a runtime it created must be ready (warm,
   * and for Python able to run at all: `InvalidSettingsError` otherwise) and the run store must open.
   */
  async checkAtStart(): Promise<void> {
    await Promise.all([
      this.#owned === undefined ? undefined : checkRuntimeReady(this.#context.codeRuntime),
      this.#gate?.checkAtStart(this.config.startTimeoutMs),
    ]);
  }

  /**
   * Starts every upstream in parallel (once) and resolves when each is ready or failed. Rejects with
   * `InvalidSettingsError` when `strictPolicy` finds a policy rule naming no upstream tool.
   */
  startUpstreams(): Promise<void> {
    this.#started ??= Promise.all(this.upstreams.map((upstream) => upstream.start(this.config.startTimeoutMs))).then(
      () => {
        checkPolicyNames({
          policy: this.config.policy,
          upstreams: this.upstreams,
          strict: this.#options.strictPolicy === true,
          log: this.log,
        });
      },
    );
    return this.#started;
  }

  /** The catalog `caller` sees (the local caller's when `undefined`), once the upstreams have started. */
  async catalog(caller?: McpCaller): Promise<McpCatalog> {
    await this.startUpstreams();
    if (this.#closing !== undefined) throw new Error('the Sluice MCP server is shutting down');
    const key = caller === undefined ? '' : JSON.stringify([caller.principal, [...caller.scopes].sort()]);
    let entry = this.#catalogs.get(key);
    if (entry === undefined) {
      const spill = new ResultSpill({ retentionMs: this.config.resultRetentionMs });
      const durable = this.#durableFor(caller);
      const catalog = buildCatalog({
        config:
          caller === undefined ? this.config : { ...this.config, policy: policyForCaller(this.config.policy, caller) },
        upstreams: this.upstreams,
        context: this.#context,
        log: this.log,
        approve:
          caller === undefined && this.#options.approve !== undefined
            ? this.#options.approve
            : () => ({ decision: 'deny', reason: noApproverReason }),
        onDecision: decisionLogger(this.log, caller),
        spill,
        ...(this.#options.onToolsLoaded === undefined ? {} : { onToolsLoaded: this.#options.onToolsLoaded }),
        ...(durable === undefined ? {} : { durable }),
      });
      entry = { catalog, spill };
      this.#catalogs.set(key, entry);
    }
    return entry.catalog;
  }

  /** The conversation a caller's durable runs and stored values belong to. */
  conversationOf(caller?: McpCaller): string | undefined {
    const configured = this.config.durable?.conversation;
    if (caller === undefined) return configured;
    const own = `principal:${caller.principal}`;
    return configured === undefined ? own : `${own}/${configured}`;
  }

  #durableFor(caller?: McpCaller): { store: RunStore; conversation?: string; leaseMs?: number } | undefined {
    if (this.store === undefined) return undefined;
    const conversation = this.conversationOf(caller);
    const leaseMs = this.config.durable?.leaseMs;
    return {
      store: this.store,
      ...(conversation === undefined ? {} : { conversation }),
      ...(leaseMs === undefined ? {} : { leaseMs }),
    };
  }

  /** Answers `tools/list` for `caller`. */
  async listTools(caller?: McpCaller): Promise<ListToolsResult> {
    const current = await this.catalog(caller);
    return {
      tools: [
        {
          name: 'run_code',
          description: current.runCodeDescription(),
          inputSchema: current.runCode.inputSchema as never,
          outputSchema: (this.store === undefined
            ? current.runCode.outputSchema
            : durableOutputSchema(current.runCode.outputSchema)) as never,
        },
        {
          name: readOutputToolName,
          description: current.runCode.readOutput.description,
          inputSchema: current.runCode.readOutput.inputSchema as never,
          annotations: { readOnlyHint: true },
        },
        ...discoveryToolDefinitions,
        ...(this.store === undefined ? [] : [resumeRunToolDefinition, listRunsToolDefinition]),
      ],
    };
  }

  /**
   * Answers `tools/call` for `caller` on `connection`: `run_code` (asking the client's user about a
   * durable run's pauses as they come), `read_output`, `search_tools`, `describe_tool` and
   * `resume_run`. Throws `McpError` only for an unknown tool; every failure of a run is a result.
   */
  callTool(
    connection: McpConnection,
    request: CallToolRequest,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
    caller?: McpCaller,
  ): Promise<CallToolResult> {
    // A caller that sends W3C trace context in `_meta` gets its runs' spans under its own span.
    return context.with(contextFromMeta(request.params._meta), () =>
      this.#callTool(connection, request, extra, caller),
    );
  }

  async #callTool(
    connection: McpConnection,
    request: CallToolRequest,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
    caller?: McpCaller,
  ): Promise<CallToolResult> {
    const { server } = connection;
    const { config, store, log } = this;
    const current = await this.catalog(caller);
    const input = request.params.arguments ?? {};
    if (request.params.name === readOutputToolName) {
      const answer = current.runCode.readOutput.read(input as never);
      return { content: [{ type: 'text', text: answer.text }], isError: answer.isError };
    }
    if (request.params.name === listRunsToolDefinition.name && store !== undefined) {
      const refusal = await this.#gate?.refusal(request.params.name, config.startTimeoutMs);
      if (refusal !== undefined) return { content: [{ type: 'text', text: refusal }], isError: true };
      return await listRuns(store, this.conversationOf(caller), input, log);
    }
    const resuming = request.params.name === resumeRunToolDefinition.name && store !== undefined;
    if (request.params.name !== 'run_code' && !resuming) {
      const served = serveDiscovery(current, request.params.name, input);
      if (served === undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown tool ${JSON.stringify(request.params.name)}: use run_code, read_output, search_tools or describe_tool.`,
        );
      }
      return served;
    }
    // Nothing runs over a store that does not answer (another Sluice process holds it, the database is down).
    const refusal = await this.#gate?.refusal(request.params.name, config.startTimeoutMs);
    if (refusal !== undefined) return { content: [{ type: 'text', text: refusal }], isError: true };
    const controller = new AbortController();
    const onAbort = () => {
      // A client that went away did not cancel: its durable run is let go (runOptions.detach) and kept.
      if (connection.lost?.aborted === true && store !== undefined) return;
      const reason: unknown = extra.signal.reason;
      controller.abort(
        typeof reason === 'string' && reason !== ''
          ? `the MCP client cancelled: ${reason}`
          : 'the MCP client cancelled',
      );
    };
    if (extra.signal.aborted) onAbort();
    else extra.signal.addEventListener('abort', onAbort, { once: true });
    this.#active.add(controller);
    // The answer is the caller's: a principal's decision records who made it (`by`), as the console's does.
    const ask = async (pause: DurablePause, signal: AbortSignal): Promise<PauseAnswer> => {
      const answer = await (connection.askAboutPause?.(pause, signal, extra.requestId) ??
        askUser(server, pause, signal));
      return answer === undefined || caller === undefined ? answer : { ...answer, by: caller.principal };
    };
    // Each stretch of running holds a place in the caller's share; a wait for a person holds none.
    const placed = async <T>(work: () => Promise<T>, queueAlways = false): Promise<T> => {
      const place = await connection.admit?.(controller.signal, { queueAlways });
      if (place !== undefined && 'busy' in place) throw new ServerBusy(place.busy);
      try {
        return await work();
      } finally {
        place?.release();
      }
    };
    const token = extra._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : new RunProgress({
            intervalMs: config.progressIntervalMs,
            ...(current.wallTimeMs === undefined ? {} : { totalMs: current.wallTimeMs }),
            send: (update) =>
              extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...update } }),
          });
    // Progress an upstream reports for a call of this request's run: in its progress when the client asked, else a log message.
    const upstreamRoute = this.#upstreamProgress.follow((update) => {
      if (progress !== undefined) return progress.onUpstreamProgress(update);
      const data = `${update.tool}: ${upstreamProgressText(update)}`;
      server.sendLoggingMessage({ level: 'info', logger: update.server, data }).catch(() => {});
    }, progress?.onEvent);
    // A durable run's id, chosen here: said when the run starts, and in a result the store cut short.
    const runId = store === undefined || resuming ? undefined : `durable_${randomUUID()}`;
    const tell = (level: LoggingLevel, data: string) => {
      server.sendLoggingMessage({ level, logger: 'sluice', data }).catch(() => {});
    };
    try {
      const runOptions = {
        signal: controller.signal,
        ...(connection.lost === undefined ? {} : { detach: connection.lost }),
        onEvent: upstreamRoute.onEvent,
      };
      // A durable run's id is said when it starts, so a run the server stops before it ends can be
      // found in the log and continued with resume_run.
      if (runId !== undefined) {
        log(`durable run ${runId} started${caller === undefined ? '' : ` for ${caller.principal}`}`);
        tell('info', `durable run ${runId} started`);
      }
      let outcome = resuming
        ? await resumeRun(current, store, caller && this.conversationOf(caller), input, runOptions, placed, (pause) =>
            ask(pause, controller.signal),
          )
        : await placed(() =>
            current.runCode.run(input as never, { ...runOptions, ...(runId === undefined ? {} : { runId }) }),
          );
      // A paused durable run: ask the client's user now, and go on with their answer.
      for (;;) {
        if (outcome.durable?.status !== 'paused') break;
        countPausesWaiting(1);
        const decision = await ask(outcome.durable.pause, controller.signal).finally(() => countPausesWaiting(-1));
        if (decision === undefined) break;
        const { token } = outcome.durable.pause;
        outcome = await placed(() => current.runCode.decide(token, decision, runOptions), true);
      }
      const result = outcome.result;
      const summary =
        result === undefined
          ? 'run_code was not run: invalid input'
          : result.ok
            ? `run ${result.runId} succeeded in ${Math.round(result.usage.wallMs)} ms with ${result.usage.hostCalls} tool call${result.usage.hostCalls === 1 ? '' : 's'}`
            : `run ${result.runId} ended with ${result.failure.kind}: ${result.failure.message}`;
      tell(result === undefined || !result.ok ? 'warning' : 'info', summary);
      const note =
        result !== undefined && !result.ok && result.failure.kind === 'exception'
          ? current.unavailableNote(result.failure.message)
          : undefined;
      const paused =
        outcome.durable?.status === 'paused'
          ? `The run id is ${outcome.durable.runId}: call resume_run with it to ask the person again.`
          : undefined;
      const extraNote = note ?? paused;
      const text =
        extraNote === undefined ? outcome.rendered.text : `${outcome.rendered.text}\n[sluice] ${extraNote}\n`;
      // The text for every client; the run as data (per run_code's outputSchema) and its images beside it.
      const structured = durableStructured(outcome);
      return {
        content: [{ type: 'text', text }, ...(outcome.images ?? [])],
        ...(structured === undefined ? {} : { structuredContent: structured as never }),
        // A paused durable run is no error: it waits for a person.
        isError: outcome.durable?.status !== 'paused' && (result === undefined || !result.ok),
      };
    } catch (error) {
      if (error instanceof ServerBusy) return busyResult(request.params.name, error.busy);
      // The store failed while the run went on (the database went away): the run is kept as far as
      // the store took it. The operator reads why; the model reads what to do, without host details.
      if (!DurableRunError.isInstance(error)) throw error;
      log(`durable run stopped: ${foreignText(error, 4096)}`);
      const id = resuming ? (input as { run_id?: unknown }).run_id : runId;
      const text = `[${request.params.name}] stopped: the durable run store failed while the run was going on, so it stopped; nothing it recorded is lost.${typeof id === 'string' ? ` Call resume_run with run id ${id} once the store is back;` : ' It continues with resume_run once the store is back;'} if it keeps failing, tell the user the run store cannot be reached. Do not run the program again: that would repeat its calls.\n`;
      return { content: [{ type: 'text', text }], isError: true };
    } finally {
      progress?.stop();
      upstreamRoute.close();
      this.#active.delete(controller);
      extra.signal.removeEventListener('abort', onAbort);
    }
  }

  /** How many `run_code` and `resume_run` calls are in flight. */
  get runsInFlight(): number {
    return this.#active.size;
  }

  /**
   * Lets durable runs in flight go, unfinished and resumable (resume_run continues them: a shutdown
   * is no cancellation), cancels the other runs in flight, stops the upstreams and a runtime it
   * created, removes output pages and closes the store. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#started?.catch(() => undefined);
      await Promise.allSettled([...this.#catalogs.values()].map(({ catalog }) => catalog.close()));
      for (const controller of this.#active) controller.abort('the Sluice MCP server is shutting down');
      await Promise.allSettled([this.#owned?.dispose(), ...this.upstreams.map((upstream) => upstream.close())]);
      for (const { spill } of this.#catalogs.values()) spill.dispose();
      await this.store?.close().catch(() => {});
    })();
    return this.#closing;
  }
}

function createRuntime(config: SluiceMcpConfig): CodeRuntime {
  try {
    switch (config.provider) {
      case 'python':
        return createPythonCodeRuntime(config.runtime as never);
      case 'quickjs':
        return createQuickJsCodeRuntime(config.runtime as never);
      case 'worker-thread':
        return createWorkerThreadCodeRuntime(config.runtime as never);
    }
  } catch (error) {
    if (!InvalidSettingsError.isInstance(error)) throw error;
    throw new InvalidSettingsError({
      message: `sluice.runtime: ${error.message}`,
      setting: `sluice.runtime.${error.setting}`,
      cause: error,
    });
  }
}

/**
 * Asks the client's user about a paused call through elicitation: `allow` or `deny` for their
 * answer, `undefined` when the client cannot ask or the user cancelled (the run stays paused).
 */
export async function askUser(server: Server, pause: DurablePause, signal: AbortSignal): Promise<PauseAnswer> {
  if (server.getClientCapabilities()?.elicitation === undefined) return undefined;
  try {
    const answer = await server.elicitInput(
      {
        message: pauseQuestion(pause),
        requestedSchema: { type: 'object', properties: {} },
      },
      { signal },
    );
    if (answer.action === 'accept') return { decision: 'allow' };
    if (answer.action === 'decline') return { decision: 'deny', reason: 'the user declined' };
    return undefined;
  } catch {
    return undefined;
  }
}

/** The question a person is asked about a paused call. */
export function pauseQuestion(pause: DurablePause): string {
  return `A program paused before calling ${pause.binding} (tool ${pause.tool}) with ${JSON.stringify(pause.input)}: ${pause.reason}. Allow this one call?`;
}

/**
 * `resume_run`: a paused run's pending call is asked about again (through `ask`) and the run goes
 * on with the answer; a run whose host stopped is continued; a finished run gives its stored outcome.
 * With `conversation` (a principal's), a run of another conversation is answered as if there were none.
 */
async function resumeRun(
  current: McpCatalog,
  store: RunStore | undefined,
  conversation: string | undefined,
  input: Record<string, unknown>,
  options: { signal: AbortSignal; detach?: AbortSignal; onEvent?: (event: CodeRunEvent) => void },
  placed: <T>(work: () => Promise<T>, queueAlways?: boolean) => Promise<T>,
  ask: (pause: DurablePause) => Promise<PauseAnswer>,
): Promise<RunCodeOutcome> {
  const runId = input.run_id;
  if (typeof runId !== 'string' || runId === '' || Object.keys(input).some((key) => key !== 'run_id')) {
    return notRun('resume_run takes { "run_id": "..." }, the run id a paused run_code result named.');
  }
  try {
    const record = await store?.getRun(runId);
    if (record === undefined || (conversation !== undefined && record.start.conversation !== conversation)) {
      return notRun(`There is no durable run ${JSON.stringify(runId)}; check the run id.`);
    }
    const waiting = (await store!.listPauses(runId)).find((pause) => pause.decision === undefined);
    if (record.status === 'paused' && waiting !== undefined) {
      const decision = await ask({
        token: waiting.token,
        tool: waiting.tool,
        binding: waiting.tool,
        input: waiting.input,
        reason: waiting.reason,
        expiresAt: waiting.expiresAt,
      });
      if (decision === undefined) {
        return notRun(
          `Run ${runId} still waits for a person to approve ${waiting.tool}(${JSON.stringify(waiting.input)}), and they were not asked or did not answer. Try again later; do not run the program again.`,
        );
      }
      return await placed(() => current.runCode.decide(waiting.token, decision, options), true);
    }
    return await placed(() => current.runCode.resume(runId, options));
  } catch (error) {
    if (error instanceof ServerBusy) throw error;
    return notRun(foreignText(error, 2048));
  }
}

/**
 * `list_runs`: the conversation's durable runs (every run in the store when there is none, for
 * `sluice mcp` without `sluice.durable.conversation`), newest first, with the call a paused run waits on.
 */
async function listRuns(
  store: RunStore,
  conversation: string | undefined,
  input: Record<string, unknown>,
  log: (line: string) => void,
): Promise<CallToolResult> {
  const text = (value: string, isError = false): CallToolResult => ({
    content: [{ type: 'text', text: value }],
    isError,
  });
  const { status, limit } = input;
  const statuses = ['running', 'paused', 'finished'];
  if (
    (status !== undefined && !statuses.includes(status as string)) ||
    (limit !== undefined && (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 100)) ||
    Object.keys(input).some((key) => key !== 'status' && key !== 'limit')
  ) {
    return text('[list_runs] takes { "status"?: "running" | "paused" | "finished", "limit"?: 1 to 100 }.', true);
  }
  try {
    const runs = await store.listRuns({
      ...(conversation === undefined ? {} : { conversation }),
      ...(status === undefined ? {} : { status: status as 'running' | 'paused' | 'finished' }),
      limit: (limit as number | undefined) ?? 20,
    });
    if (runs.length === 0) return text(`No durable runs${status === undefined ? '' : ` ${String(status)}`}.`);
    const lines = await Promise.all(
      runs.map(async (run) => {
        const started = new Date(run.createdAt).toISOString();
        let state: string = run.status;
        if (run.status === 'paused') {
          const waiting = (await store.listPauses(run.start.runId)).find((pause) => pause.decision === undefined);
          if (waiting !== undefined)
            state = `paused: ${waiting.tool} waits for a person's approval (${waiting.reason})`;
        }
        return `${run.start.runId} · ${state} · started ${started}`;
      }),
    );
    return text(lines.join('\n'));
  } catch (error) {
    log(`list_runs could not read the run store: ${foreignText(error, 1024)}`);
    return text('[list_runs] could not read the durable run store right now; try again later.', true);
  }
}

/** The result of a call that found the caller's share of the server full: busy, retry after, nothing ran. */
function busyResult(tool: string, busy: ServerBusy['busy']): CallToolResult {
  const text = `[${tool}] not run: this server is already running ${busy.inFlight} program${busy.inFlight === 1 ? '' : 's'} for you and ${busy.waiting} more wait, so this one did not start and nothing ran. Call ${tool} again in about ${busy.retryAfterSeconds} s, or do the work in fewer, larger programs.\n`;
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { 'sluice/busy': { retryAfterSeconds: busy.retryAfterSeconds } },
  };
}

function notRun(message: string): RunCodeOutcome {
  const text = `[resume_run] not run: ${message}\n`;
  return {
    result: undefined,
    rendered: { text, estimatedTokens: Math.ceil(text.length / 4), cut: false, spillPath: undefined },
  };
}

function decisionLogger(log: (line: string) => void, caller?: McpCaller): (decision: PermissionDecision) => void {
  const who = caller === undefined ? '' : ` for ${caller.principal}`;
  return (decision) => {
    if (decision.decision !== 'deny') return;
    // An approval the run stopped waiting for (a durable run pausing, a run ending) is no denial.
    if (decision.approval?.outcome === 'aborted') {
      log(`[policy] ${decision.tool}${who} waits for approval: the run stopped there (paused, or ended)`);
      return;
    }
    log(`[policy] denied ${decision.tool}${who} (${decision.deniedBy}): ${decision.message}`);
  };
}

/** This package's version, for the MCP handshakes. */
export function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return manifest.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
