import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { type CodeRuntime, foreignText, InvalidSettingsError } from '@sluice/code-runtime';
import type { DurablePause } from '@sluice/durable';
import express, { type NextFunction, type Request, type Response } from 'express';
import { consolePath, serveConsole } from './console-serve.js';
import type { SluiceMcpConfig } from './mcp-config.js';
import { FairShare } from './mcp-fair-share.js';
import { callerOf, createServeTokenVerifier } from './mcp-http-auth.js';
import {
  CancelRouter,
  pauseMetaKey,
  ReplyRouter,
  readSession,
  type ServeSession,
  signSession,
} from './mcp-http-sessions.js';
import { type ServeSettings, withListenAddress } from './mcp-serve-config.js';
import { type McpCaller, McpService, type PauseAnswer, packageVersion, pauseQuestion } from './mcp-service.js';
import { createServeTelemetry } from './serve-telemetry.js';

/** Options for {@link createSluiceHttpServer}. */
export interface SluiceHttpServerOptions {
  /** Receives one line per notable event. Default: stderr, prefixed `sluice serve: `. */
  readonly log?: (line: string) => void;
  /** Runs the programs instead of a runtime created from the config; not disposed by the server. */
  readonly runtime?: CodeRuntime;
  /** Whether a policy rule naming no upstream tool stops the server (`--strict-policy`). Default `false`. */
  readonly strictPolicy?: boolean;
  /** Overrides `sluice.serve.port` (`sluice serve --port`). */
  readonly port?: number;
  /** Overrides `sluice.serve.host` (`sluice serve --host`). */
  readonly host?: string;
}

/** Code mode served over Streamable HTTP to many clients: see {@link createSluiceHttpServer}. */
export interface SluiceHttpServer {
  /**
   * Makes the runtime ready and opens the run store (rejecting with `InvalidSettingsError` naming
   * the setting when either cannot start), starts the upstreams, and listens. Resolves with the URL
   * of the `/mcp` endpoint once a request would be served; `/readyz` answers 200 from then on.
   */
  listen(): Promise<string>;
  /** The shared part: upstreams, runtime, store and catalogs. */
  readonly service: McpService;
  /**
   * Stops taking requests (new ones get 503, `/readyz` 503), lets runs in flight finish for up to
   * `sluice.serve.shutdownTimeoutMs`, then lets durable runs go resumable (another replica can
   * continue them with `resume_run`), cancels the rest and stops everything. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Serves the code-mode MCP server of {@link createSluiceMcpServer} over Streamable HTTP at `/mcp`
 * (`sluice serve`), as `config.serve` (`sluice.serve`) says. One set of upstream connections, one
 * runtime and one run store serve every client. The transport is the MCP SDK's, in its stateless
 * mode: each POST is handled by a fresh SDK server, so any replica behind a load balancer can answer
 * any request; the session id the server gives at `initialize` is a signed token (see
 * `mcp-http-sessions.ts`), never server state. Every request is authenticated (static bearer tokens
 * or OAuth 2.1 JWT access tokens, per the MCP authorization spec; `auth.none` only on loopback), and
 * what a run leaves belongs to its principal. Also serves `GET /healthz` (the process is up),
 * `GET /readyz` (upstreams and runtime are up) and the Protected Resource Metadata (RFC 9728).
 * Throws `InvalidSettingsError` when the config has no `sluice.serve`.
 */
export function createSluiceHttpServer(
  config: SluiceMcpConfig,
  options: SluiceHttpServerOptions = {},
): SluiceHttpServer {
  if (config.serve === undefined) {
    throw new InvalidSettingsError({
      message:
        'sluice.serve is missing: sluice serve needs it to know how callers authenticate (auth.tokens, auth.oauth, or auth.none on loopback).',
      setting: 'sluice.serve',
    });
  }
  const settings: ServeSettings = withListenAddress(config.serve, {
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
  });
  const log = options.log ?? ((line: string) => process.stderr.write(`sluice serve: ${line}\n`));
  const service = new McpService(config, {
    log,
    ...(options.runtime === undefined ? {} : { runtime: options.runtime }),
    ...(options.strictPolicy === undefined ? {} : { strictPolicy: options.strictPolicy }),
  });
  const share = new FairShare({
    perPrincipal: settings.runsInFlight,
    queue: settings.queue,
    total: Math.max(settings.runsInFlight, poolSizeOf(config)),
  });
  const router = new ReplyRouter();
  const cancels = new CancelRouter();
  const version = packageVersion();
  let state: 'starting' | 'ready' | 'stopping' = 'starting';
  let http: HttpServer | undefined;
  let publicUrl = settings.publicUrl;
  const requests = new Set<Promise<void>>();

  const app = express();
  app.disable('x-powered-by');
  if (settings.allowedHosts !== undefined) app.use(hostHeaderValidation([...settings.allowedHosts]));
  app.get('/healthz', (_request, response) => {
    response.json({ status: 'ok' });
  });
  app.get('/readyz', (_request, response) => {
    const upstreams = service.upstreams.map((upstream) => ({ name: upstream.name, status: upstream.status }));
    response.status(state === 'ready' ? 200 : 503).json({ status: state, upstreams, runs: share.load });
  });
  // The operator console: its own sign-in (a bearer token turned into a session cookie), CSRF checks and CSP.
  const stopping = new AbortController();
  app.use(consolePath, serveConsole({ settings, service, share, replies: router, stopping: stopping.signal, log }));
  const resourceMetadataPath = new URL(getOAuthProtectedResourceMetadataUrl(new URL(settings.publicUrl))).pathname;
  const oauth = settings.auth.oauth;
  if (oauth !== undefined) {
    const metadata = {
      resource: settings.publicUrl,
      authorization_servers: [oauth.issuer],
      bearer_methods_supported: ['header'],
      resource_name: 'Sluice',
      ...(oauth.requiredScopes.length === 0 ? {} : { scopes_supported: [...oauth.requiredScopes] }),
    };
    for (const path of new Set([resourceMetadataPath, '/.well-known/oauth-protected-resource'])) {
      app.get(path, (_request, response) => {
        response.json(metadata);
      });
    }
  }
  const authenticate = settings.auth.none
    ? (request: Request, _response: Response, next: NextFunction) => {
        (request as Request & { auth?: AuthInfo }).auth = {
          token: '',
          clientId: 'local',
          scopes: [],
          extra: { principal: 'local' },
        };
        next();
      }
    : requireBearerAuth({
        verifier: createServeTokenVerifier(settings, log),
        ...(oauth === undefined || oauth.requiredScopes.length === 0
          ? {}
          : { requiredScopes: [...oauth.requiredScopes] }),
        ...(oauth === undefined
          ? {}
          : { resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(publicUrl)) }),
      });
  const { store } = service;
  const telemetry = createServeTelemetry(
    settings,
    process.env,
    log,
    store === undefined ? undefined : () => store.countPendingPauses(),
  );
  telemetry.mount(app, authenticate);
  const notAllowed = (_request: Request, response: Response) => {
    response
      .status(405)
      .set('Allow', 'POST')
      .json(rpcError(-32000, 'This server is stateless: it takes POST requests only (no standalone SSE stream).'));
  };
  app.get('/mcp', authenticate, notAllowed);
  app.delete('/mcp', authenticate, notAllowed);
  app.post(
    '/mcp',
    (_request, response, next) => {
      if (state === 'ready') return next();
      response
        .status(503)
        .set('Retry-After', '5')
        .json(
          rpcError(
            -32000,
            state === 'starting' ? 'Sluice is starting; try again shortly.' : 'Sluice is shutting down; try again.',
          ),
        );
    },
    authenticate,
    express.json({ limit: settings.maxRequestBytes, type: () => true }),
    (request, response) => {
      const done: Promise<void> = serve(request, response)
        .catch((error: unknown) => {
          log(`a request failed: ${foreignText(error, 2048)}`);
          if (!response.headersSent) response.status(500).json(rpcError(-32603, 'Internal error in Sluice.'));
        })
        .then(() => {
          requests.delete(done);
        });
      requests.add(done);
    },
  );
  app.use((error: unknown, _request: Request, response: Response, _next: NextFunction) => {
    const type = (error as { type?: unknown } | undefined)?.type;
    if (type === 'entity.too.large') {
      response
        .status(413)
        .json(
          rpcError(-32600, `The request body is over ${settings.maxRequestBytes} bytes, the most this server reads.`),
        );
    } else if (type === 'entity.parse.failed') {
      response.status(400).json(rpcError(-32700, 'The request body is not valid JSON.'));
    } else {
      log(`a request failed: ${foreignText(error, 2048)}`);
      if (!response.headersSent) response.status(500).json(rpcError(-32603, 'Internal error in Sluice.'));
    }
  });

  async function serve(request: Request, response: Response): Promise<void> {
    const caller = callerOf((request as Request & { auth: AuthInfo }).auth);
    const body: unknown = request.body;
    const messages = (Array.isArray(body) ? body : [body]).map((item) => JSONRPCMessageSchema.safeParse(item));
    const parsed = messages.flatMap((result) => (result.success ? [result.data] : []));
    // Answers to the server's own requests (elicitation) go to the request that waits for them.
    if (parsed.length === messages.length && parsed.length > 0 && parsed.every((message) => !('method' in message))) {
      for (const message of parsed) await deliverAnswer(message, caller);
      response.status(202).end();
      return;
    }
    let session: ServeSession | undefined;
    const sessionId = request.header('mcp-session-id');
    const initializing = parsed.some((message) => isInitializeRequest(message));
    if (sessionId !== undefined && !initializing) {
      session = await readSession(sessionId, settings.sessionSecret);
      if (session === undefined || session.principal !== caller.principal) {
        response.status(404).json(rpcError(-32001, 'Session not found: initialize a new session.'));
        return;
      }
    }
    for (const message of parsed) cancels.deliver(caller.principal, sessionId, message);
    if (initializing) {
      const initialize = parsed.find((message) => isInitializeRequest(message));
      const capabilities = (initialize as { params: { capabilities: object } }).params.capabilities;
      session = { principal: caller.principal, capabilities };
      response.setHeader('mcp-session-id', await signSession(session, settings.sessionSecret));
    }
    // Aborted when the client goes away before its answer is written: its durable runs are let go, resumable.
    const lost = new AbortController();
    const server = connectionServer(caller, session, lost.signal);
    const transport = router.wrap(
      new StreamableHTTPServerTransport({ sessionIdGenerator: undefined }),
      caller.principal,
    );
    const requestIds = parsed.flatMap((message) => (isJSONRPCRequest(message) ? [message.id] : []));
    const untrack = cancels.track(caller.principal, initializing ? undefined : sessionId, requestIds, transport);
    response.on('close', () => {
      untrack();
      if (!response.writableFinished) lost.abort();
      transport.close().catch(() => {});
      server.close().catch(() => {});
    });
    await server.connect(transport);
    await (transport as StreamableHTTPServerTransport).handleRequest(request, response, body);
  }

  /** An SDK server for one request of `caller`, with the client's capabilities from its session. */
  function connectionServer(caller: McpCaller, session: ServeSession | undefined, lost: AbortSignal): Server {
    const server = new Server(
      { name: 'sluice', version },
      {
        capabilities: { tools: {}, logging: {} },
        instructions:
          'Call run_code with a program that calls the upstream tools as async functions; one program can do the work of many tool calls.',
      },
    );
    if (session !== undefined) restoreClientCapabilities(server, session.capabilities);
    const askAboutPause = (pause: DurablePause, signal: AbortSignal, requestId: RequestId) =>
      askAcrossReplicas(server, pause, signal, requestId);
    const admit = (signal: AbortSignal, admitOptions: { readonly queueAlways?: boolean }) =>
      share.admit(caller.principal, signal, admitOptions);
    server.setRequestHandler(ListToolsRequestSchema, () => service.listTools(caller));
    server.setRequestHandler(CallToolRequestSchema, (call, extra) =>
      service.callTool({ server, askAboutPause, admit, lost }, call, extra, caller),
    );
    return server;
  }

  /**
   * Asks about a paused call through elicitation, as the local server does, but the answer may reach
   * another replica: that replica decides the pause in the run store, and this one, watching the
   * pause, goes on with the decision recorded there.
   */
  async function askAcrossReplicas(
    server: Server,
    pause: DurablePause,
    signal: AbortSignal,
    requestId: RequestId,
  ): Promise<PauseAnswer> {
    const { store } = service;
    if (server.getClientCapabilities()?.elicitation === undefined || store === undefined) return undefined;
    // Unasked is an answer too: the run stays paused, and resume_run asks again.
    const record = await store.getPause(pause.token).catch(() => undefined);
    if (record === undefined) return undefined;
    const asking = new AbortController();
    const stop = () => asking.abort();
    signal.addEventListener('abort', stop, { once: true });
    const elicited = server
      .request(
        {
          method: 'elicitation/create',
          params: {
            message: pauseQuestion(pause),
            requestedSchema: { type: 'object', properties: {} },
            _meta: { [pauseMetaKey]: { runId: record.runId, seq: record.seq } },
          },
        },
        ElicitResultSchema,
        {
          signal: asking.signal,
          timeout: Math.max(1, Math.min(askTimeoutMs, record.expiresAt - Date.now())),
          // On the response stream of the tool call: a stateless server has no other stream to the client.
          relatedRequestId: requestId,
        },
      )
      .then(
        (answer): PauseAnswer =>
          answer.action === 'accept'
            ? { decision: 'allow' }
            : answer.action === 'decline'
              ? { decision: 'deny', reason: 'the user declined' }
              : undefined,
        () => undefined,
      );
    const decidedElsewhere = (async (): Promise<PauseAnswer> => {
      while (!asking.signal.aborted) {
        await new Promise((resolve) => setTimeout(resolve, 500).unref());
        const current = await store.getPause(pause.token).catch(() => undefined);
        const decision = current?.decision;
        if (decision !== undefined) {
          return decision.decision === 'allow'
            ? { decision: 'allow' }
            : { decision: 'deny', reason: decision.reason ?? 'the user declined' };
        }
      }
      return undefined;
    })();
    try {
      return await Promise.race([elicited, decidedElsewhere]);
    } finally {
      asking.abort();
      signal.removeEventListener('abort', stop);
    }
  }

  /**
   * An answer to one of the server's requests: to the transport here that waits for it, or, for a
   * paused call another replica asked about, recorded in the run store as the pause's decision when
   * the run is the caller's own.
   */
  async function deliverAnswer(message: JSONRPCMessage, caller: McpCaller): Promise<void> {
    if (router.deliver(message, caller.principal)) return;
    const place = ReplyRouter.pausePlace(message);
    const { store } = service;
    if (place === undefined || store === undefined || !('result' in message)) return;
    const action = (message.result as { action?: unknown }).action;
    if (action !== 'accept' && action !== 'decline') return;
    const record = await store.getRun(place.runId);
    if (record === undefined || record.start.conversation !== service.conversationOf(caller)) return;
    const pause = (await store.listPauses(place.runId)).find((candidate) => candidate.seq === place.seq);
    if (pause === undefined || pause.decision !== undefined) return;
    await store.decidePause(
      pause.token,
      action === 'accept'
        ? { decision: 'allow', by: caller.principal }
        : { decision: 'deny', reason: 'the user declined', by: caller.principal },
    );
  }

  let closing: Promise<void> | undefined;
  return {
    service,
    async listen() {
      await telemetry.start();
      await service.checkAtStart();
      await service.startUpstreams();
      const server = app.listen(settings.port, settings.host);
      http = server;
      await new Promise<void>((resolve, reject) => {
        server.once('listening', resolve);
        server.once('error', (error) => {
          reject(
            new InvalidSettingsError({
              message: `sluice.serve: could not listen on ${settings.host}:${settings.port}: ${foreignText(error, 512)}.`,
              setting: 'sluice.serve.port',
              cause: error,
            }),
          );
        });
      });
      // A request that sends nothing for this long is dropped; a tool call's answer may stream for longer.
      server.headersTimeout = 30_000;
      server.requestTimeout = 0;
      server.keepAliveTimeout = 65_000;
      const { port } = server.address() as AddressInfo;
      // With port 0 the port is known only now (an OAuth audience then needs publicUrl set).
      if (settings.port === 0 && !settings.publicUrlConfigured) publicUrl = withPort(publicUrl, port);
      if (settings.sessionSecretGenerated) {
        log(
          'sluice.serve.sessionSecret is not set: sessions are signed with a secret of this process, so behind a load balancer with several replicas, set the same secret on each.',
        );
      }
      state = 'ready';
      log(`serving MCP at ${publicUrl}`);
      return publicUrl;
    },
    close() {
      closing ??= (async () => {
        state = 'stopping';
        stopping.abort('the server is closing');
        http?.close();
        const settled = Promise.allSettled([...requests]);
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise((resolve) => {
          timer = setTimeout(resolve, settings.shutdownTimeoutMs);
        });
        await Promise.race([settled, late]);
        clearTimeout(timer);
        // Durable runs still going are let go resumable; their requests then answer that they stopped.
        await service.close();
        await Promise.race([Promise.allSettled([...requests]), new Promise((resolve) => setTimeout(resolve, 2_000))]);
        http?.closeAllConnections();
        await telemetry.shutdown();
      })();
      return closing;
    },
  };
}

/** How long a request waits for a person's answer before its result says the run is paused, in ms: ten minutes. */
const askTimeoutMs = 600_000;

/** The runtime pool's size, as the config sets it or the provider's default. */
function poolSizeOf(config: SluiceMcpConfig): number {
  const size = config.runtime.poolSize;
  if (typeof size === 'number' && Number.isInteger(size) && size > 0) return size;
  return config.provider === 'python' ? 8 : 4;
}

function withPort(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.port = String(port);
  return parsed.toString();
}

/**
 * Gives an SDK server, made for one request of a session, the capabilities its client declared at
 * `initialize` (kept in the session id): the SDK checks them before it sends an elicitation.
 */
function restoreClientCapabilities(server: Server, capabilities: object): void {
  (server as unknown as { _clientCapabilities?: object })._clientCapabilities = capabilities;
}

function rpcError(code: number, message: string): object {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
