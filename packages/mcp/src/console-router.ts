import { createHash } from 'node:crypto';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { failureKinds, foreignText } from '@sluice/code-runtime';
import {
  type JournalEntry,
  type PauseDecision,
  type PauseRecord,
  type RunListQuery,
  type RunRecord,
  type RunStore,
  RunStoreExpiredError,
} from '@sluice/run-store';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import {
  type ConsoleSession,
  csrfMatches,
  newNonce,
  newSession,
  readConsoleSession,
  sameOrigin,
  setSecurityHeaders,
  setSessionCookie,
  signConsoleSession,
} from './console-auth.js';
import { html, page } from './console-html.js';
import { type ListFilters, runListItems, runListPage, runPage, signInPage, statusFilters } from './console-pages.js';

/**
 * The OAuth scope (or static token scope) that lets a principal see every principal's runs in the
 * console and filter by principal. Without it a principal sees only its own runs.
 */
export const consoleOperatorScope = 'sluice:operator';

/** What {@link ConsoleOptions.continueRun} did with a decision recorded in the console. */
export type ContinueResult = 'answered' | 'continuing' | 'recorded';

/** Options of {@link createConsoleRouter}. */
export interface ConsoleOptions {
  /** The run store (`undefined` while `sluice serve` has none: the console then says so). */
  readonly store: () => RunStore | undefined;
  /** Where the router is mounted, e.g. `/console` (links and cookies use it). */
  readonly base: string;
  /** Signs the console's session cookies (HMAC-SHA-256). */
  readonly sessionSecret: Uint8Array;
  /**
   * Checks the bearer token typed on the sign-in page (the same verifier as `/mcp`); `undefined`
   * serves without authentication (loopback only): every visitor is `local` and sees every run.
   */
  readonly verifier: OAuthTokenVerifier | undefined;
  /** Scopes a token must carry to sign in, as for `/mcp`. Default none. */
  readonly requiredScopes?: readonly string[];
  /** Whether pages are served over https: the cookie is then `Secure` (and `__Host-`). */
  readonly secure: boolean;
  /** The conversation a principal's runs belong to. */
  conversationOf(principal: string): string;
  /** The principal a run's conversation belongs to, when it is a principal's. */
  principalOf(conversation: string | undefined): string | undefined;
  /**
   * Continues a run after a decision was recorded here (`sluice serve`); never rejects. Without it
   * (`sluice console`), the decision is recorded and the page says how to continue the run.
   */
  readonly continueRun?: (
    run: RunRecord,
    pause: PauseRecord,
    decision: PauseDecision,
    decider: ConsoleSession,
  ) => ContinueResult;
  /** The command that continues a decided run, shown when {@link continueRun} is absent. */
  readonly resumeHint?: (run: RunRecord) => string;
  /** Budgets runs get (label → value), shown on a run's page; absent when this console does not know them. */
  readonly budgets?: Readonly<Record<string, string>>;
  /** How often live pages poll the store, in ms. Default 1000. */
  readonly pollMs?: number;
  readonly log: (line: string) => void;
}

/** Runs a page lists. */
const pageSize = 50;
/** The longest reason a denial keeps, in characters. */
const maxReasonChars = 2000;
/** Live pages (event streams) one principal may hold open at once; each polls the store every `pollMs`. */
export const maxLiveStreamsPerPrincipal = 16;
/** NUL or a lone surrogate: text no run store can hold (PostgreSQL text cannot), so no run id or filter has it. */
const unstorable = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a console request is refused, as the page says it. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The operator console (`/console` of `sluice serve`, and `sluice console`): server-rendered pages
 * listing runs, showing one run, and deciding paused calls. Every page needs a session cookie made
 * by the sign-in page from a bearer token the `verifier` accepts; POSTs need the session's CSRF
 * token and a same-origin request; every response forbids framing and inline code without the
 * page's nonce. A principal sees only its own runs (another's answers 404) unless its token carries
 * {@link consoleOperatorScope}.
 */
export function createConsoleRouter(options: ConsoleOptions): Router {
  const router = express.Router();
  const { base, log } = options;
  const pollMs = options.pollMs ?? 1000;
  const cookie = { secure: options.secure, path: base };
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 });

  router.use((_request, response, next) => {
    const nonce = newNonce();
    response.locals.nonce = nonce;
    setSecurityHeaders(response, nonce);
    next();
  });

  router.get('/login', (_request, response) => {
    if (options.verifier === undefined) return response.redirect(303, `${base}/`);
    sendPage(response, 200, 'Sign in', signInPage(base));
  });
  router.post('/login', form, async (request, response) => {
    if (options.verifier === undefined) return response.redirect(303, `${base}/`);
    if (!sameOrigin(request)) return refuse(response, new Refusal(403, 'This form must be sent from the console.'));
    const token = typeof request.body?.token === 'string' ? request.body.token.trim() : '';
    try {
      const auth = await options.verifier.verifyAccessToken(token);
      const required = options.requiredScopes ?? [];
      if (!required.every((scope) => auth.scopes.includes(scope))) throw new Error('missing scope');
      const principal = typeof auth.extra?.principal === 'string' ? auth.extra.principal : auth.clientId;
      const session = newSession(principal, auth.scopes, auth.expiresAt);
      setSessionCookie(response, await signConsoleSession(session, options.sessionSecret), cookie);
      response.redirect(303, `${base}/`);
    } catch {
      sendPage(response, 401, 'Sign in', signInPage(base, 'That token is not accepted here.'));
    }
  });

  /** The session of the request (made at once without authentication), or a redirect to sign in. */
  const signedIn = async (request: Request, response: Response, next: NextFunction) => {
    let session = await readConsoleSession(request, options.sessionSecret, options.secure);
    if (session === undefined && options.verifier === undefined) {
      session = newSession('local', []);
      setSessionCookie(response, await signConsoleSession(session, options.sessionSecret), cookie);
    }
    if (session === undefined) {
      if (request.method === 'GET' && !request.path.endsWith('/events')) return response.redirect(303, `${base}/login`);
      return refuse(response, new Refusal(401, 'Sign in first.'));
    }
    response.locals.session = session;
    next();
  };
  /** POSTs: from this origin, with the session's CSRF token. */
  const checked = (request: Request, response: Response, next: NextFunction) => {
    if (!sameOrigin(request)) return refuse(response, new Refusal(403, 'This form must be sent from the console.'));
    if (!csrfMatches(response.locals.session as ConsoleSession, request.body?.csrf)) {
      return refuse(response, new Refusal(403, 'The form is stale or was not sent from the console: reload the page.'));
    }
    next();
  };

  router.post('/logout', form, signedIn, checked, (_request, response) => {
    setSessionCookie(response, '', { ...cookie, maxAgeSeconds: 0 });
    response.redirect(303, `${base}/login`);
  });

  const operator = (session: ConsoleSession) =>
    options.verifier === undefined || session.scopes.includes(consoleOperatorScope);
  const storeOf = (): RunStore => {
    const store = options.store();
    if (store === undefined) throw new Refusal(404, 'This server keeps no durable runs (sluice.durable is not set).');
    return store;
  };
  /** The run, when the session may see it; a run of another principal is as unknown as a missing one. */
  const visibleRun = async (session: ConsoleSession, runId: string): Promise<RunRecord> => {
    const run = runId === '' || unstorable.test(runId) ? undefined : await storeOf().getRun(runId);
    if (
      run === undefined ||
      (!operator(session) && run.start.conversation !== options.conversationOf(session.principal))
    )
      throw new Refusal(404, 'There is no such run.');
    return run;
  };
  const listQuery = (session: ConsoleSession, filters: ListFilters): RunListQuery => {
    const principal = operator(session) ? filters.principal : session.principal;
    return {
      ...(principal === undefined ? {} : { conversation: options.conversationOf(principal) }),
      ...statusQuery(filters.status),
      ...(filters.from === undefined ? {} : { createdFrom: filters.from }),
      ...(filters.to === undefined ? {} : { createdBefore: filters.to }),
      ...(filters.after === undefined ? {} : { after: filters.after }),
      limit: pageSize,
    };
  };
  const listItems = async (session: ConsoleSession, filters: ListFilters) => {
    const store = storeOf();
    const runs = await store.listRuns(listQuery(session, filters));
    const waiting = await Promise.all(
      runs.map(async (run) =>
        run.status === 'paused'
          ? (await store.listPauses(run.start.runId)).find((pause) => pause.decision === undefined)
          : undefined,
      ),
    );
    return runs.map((run, index) => ({
      run,
      principal: options.principalOf(run.start.conversation),
      waiting: waiting[index],
    }));
  };

  router.get('/', signedIn, async (request, response) => {
    const session = response.locals.session as ConsoleSession;
    await answer(response, async () => {
      const filters = listFilters(request.query, operator(session));
      const items = await listItems(session, filters);
      const more = items.length === pageSize ? items[items.length - 1]?.run : undefined;
      const seen = digest(runListItems(base, items, operator(session)).text);
      sendPage(
        response,
        200,
        'Runs',
        runListPage({ base, filters, items, operator: operator(session), more, seen }),
        session,
        filters.after === undefined ? listScript : undefined,
      );
    });
  });

  router.get('/events', signedIn, async (request, response) => {
    const session = response.locals.session as ConsoleSession;
    let filters: ListFilters;
    try {
      filters = listFilters(request.query, operator(session));
    } catch (error) {
      return refuse(response, error);
    }
    stream(
      session,
      request,
      response,
      async () => runListItems(base, await listItems(session, filters), operator(session)).text,
      'runs',
    );
  });

  router.get('/runs/:runId', signedIn, async (request, response) => {
    const session = response.locals.session as ConsoleSession;
    await answer(response, async () => {
      const run = await visibleRun(session, String(request.params.runId));
      const store = storeOf();
      const [journal, pauses] = await Promise.all([
        store.readJournal(run.start.runId),
        store.listPauses(run.start.runId),
      ]);
      const notice = typeof request.query.notice === 'string' ? request.query.notice : undefined;
      sendPage(
        response,
        200,
        `Run ${run.start.runId}`,
        runPage({
          base,
          run,
          journal,
          pauses,
          seen: digest(runSignature(run, journal, pauses)),
          principal: options.principalOf(run.start.conversation),
          csrf: session.csrf,
          notice,
          continues: options.continueRun !== undefined,
          ...(options.resumeHint === undefined ? {} : { resumeHint: options.resumeHint(run) }),
          ...(options.budgets === undefined ? {} : { budgets: options.budgets }),
        }),
        session,
        run.status === 'finished' ? undefined : runScript,
      );
    });
  });

  router.get('/runs/:runId/events', signedIn, async (request, response) => {
    const session = response.locals.session as ConsoleSession;
    let runId: string;
    try {
      runId = (await visibleRun(session, String(request.params.runId))).start.runId;
    } catch (error) {
      return refuse(response, error);
    }
    stream(
      session,
      request,
      response,
      async () => {
        const store = storeOf();
        const [run, journal, pauses] = await Promise.all([
          store.getRun(runId),
          store.readJournal(runId),
          store.listPauses(runId),
        ]);
        return runSignature(run, journal, pauses);
      },
      'changed',
      () => '1',
    );
  });

  router.post('/runs/:runId/pauses/:seq', form, signedIn, checked, async (request, response) => {
    const session = response.locals.session as ConsoleSession;
    await answer(response, async () => {
      const run = await visibleRun(session, String(request.params.runId));
      const runId = run.start.runId;
      const seq = Number(request.params.seq);
      const pause = (await storeOf().listPauses(runId)).find((candidate) => candidate.seq === seq);
      if (pause === undefined) throw new Refusal(404, 'This run has no such paused call.');
      const decision = decisionOf(request.body, session.principal);
      const target = `${base}/runs/${encodeURIComponent(runId)}`;
      let decided: PauseRecord & { readonly applied: boolean };
      try {
        decided = await storeOf().decidePause(pause.token, decision);
      } catch (error) {
        if (RunStoreExpiredError.isInstance(error)) return response.redirect(303, `${target}?notice=expired`);
        throw error;
      }
      if (!decided.applied) return response.redirect(303, `${target}?notice=already`);
      log(
        `console: ${session.principal} ${decision.decision === 'allow' ? 'approved' : 'denied'} ${pause.tool} of run ${runId}`,
      );
      const result = options.continueRun?.(run, decided, decided.decision ?? decision, session) ?? 'recorded';
      response.redirect(303, `${target}?notice=${result}`);
    });
  });

  /** Live pages open per principal: a principal past {@link maxLiveStreamsPerPrincipal} is refused another. */
  const liveStreams = new Map<string, number>();
  /** Streams server-sent events: `render` every `pollMs`, sent as `event` when it changed. */
  function stream(
    session: ConsoleSession,
    request: Request,
    response: Response,
    render: () => Promise<string>,
    event: string,
    data: (rendered: string) => string = (rendered) => rendered,
  ): void {
    const open = liveStreams.get(session.principal) ?? 0;
    if (open >= maxLiveStreamsPerPrincipal) {
      response.set('Retry-After', '30');
      refuse(
        response,
        new Refusal(
          429,
          `${maxLiveStreamsPerPrincipal} live pages are open already: close some, or reload without live updates.`,
        ),
      );
      return;
    }
    liveStreams.set(session.principal, open + 1);
    response.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders();
    // The page says what it showed (`seen`), so a change between its rendering and the first poll is not missed.
    let last: string | undefined = typeof request.query.seen === 'string' ? request.query.seen : undefined;
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = async () => {
      try {
        const rendered = await render();
        const current = digest(rendered);
        if (last !== undefined && current !== last) {
          const lines = data(rendered)
            .split(/\r\n|\r|\n/)
            .map((line) => `data: ${line}`)
            .join('\n');
          response.write(`event: ${event}\n${lines}\n\n`);
        } else response.write(': waiting\n\n');
        last = current;
      } catch (error) {
        log(`console: live updates could not read the run store: ${foreignText(error, 1024)}`);
      }
      if (!stopped) timer = setTimeout(next, pollMs);
    };
    request.on('close', () => {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      const left = (liveStreams.get(session.principal) ?? 1) - 1;
      if (left === 0) liveStreams.delete(session.principal);
      else liveStreams.set(session.principal, left);
    });
    // tick catches what it can; a write to a socket that closed meanwhile is nothing to report.
    const next = () => {
      tick().catch(() => {});
    };
    next();
  }

  function sendPage(
    response: Response,
    status: number,
    title: string,
    body: ReturnType<typeof html>,
    session?: ConsoleSession,
    script?: string,
  ): void {
    response
      .status(status)
      .type('html')
      .send(
        page(
          {
            title,
            nonce: response.locals.nonce as string,
            base,
            ...(session === undefined
              ? {}
              : { principal: session.principal, csrf: session.csrf, canSignOut: options.verifier !== undefined }),
            ...(script === undefined ? {} : { script }),
          },
          body,
        ),
      );
  }

  function refuse(response: Response, error: unknown): void {
    if (error instanceof Refusal) {
      sendPage(
        response,
        error.status,
        error.status === 404 ? 'Not found' : 'Refused',
        html`<h1>${error.message}</h1>
<p><a href="${base}/">All runs</a></p>`,
      );
      return;
    }
    log(`console: a request failed: ${foreignText(error, 2048)}`);
    response.set('Retry-After', '5');
    sendPage(response, 503, 'Error', html`<h1>The console could not read the run store.</h1><p>Try again shortly.</p>`);
  }

  async function answer(response: Response, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (!response.headersSent) refuse(response, error);
    }
  }

  // What Express and the form parser refuse (a malformed address, a form too large, with too many
  // fields or not UTF-8) is the client's mistake: a page with its status, not the server's 500.
  router.use((error: unknown, _request: Request, response: Response, next: NextFunction) => {
    if (response.headersSent) return next(error);
    const { status, expose, message } = (error ?? {}) as { status?: unknown; expose?: unknown; message?: unknown };
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const text = expose === true && typeof message === 'string' ? message : 'The request is malformed.';
      return refuse(response, new Refusal(status, text));
    }
    refuse(response, error);
  });

  return router;
}

/** A short digest of what a live page shows, to tell whether it changed. */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** What a run's page shows that can change: its status, calls' outcomes and decisions. */
function runSignature(
  run: RunRecord | undefined,
  journal: readonly JournalEntry[],
  pauses: readonly PauseRecord[],
): string {
  return JSON.stringify([
    run?.status,
    run?.updatedAt,
    journal.map((entry) => entry.outcomeAt ?? 0),
    pauses.map((pause) => pause.decision ?? null),
  ]);
}

/** A status filter as a query: runs in that state, or finished with those outcome kinds. */
function statusQuery(status: string | undefined): Pick<RunListQuery, 'status' | 'outcomeKinds'> {
  if (status === 'running' || status === 'paused' || status === 'finished') return { status };
  if (status === 'succeeded') return { status: 'finished', outcomeKinds: ['ok'] };
  if (status === 'failed') return { status: 'finished', outcomeKinds: [...failureKinds, 'diverged'] };
  if (status?.startsWith('failed:')) return { status: 'finished', outcomeKinds: [status.slice('failed:'.length)] };
  return {};
}

/**
 * The run list's filters from the query string; unknown or malformed values are left out. Throws a
 * {@link Refusal} (400) for a value with NUL (text no store holds).
 */
function listFilters(query: Request['query'], operator: boolean): ListFilters {
  const text = (name: string) => {
    const value = query[name];
    if (typeof value === 'string' && unstorable.test(value))
      throw new Refusal(400, `The filter ${name} has a character no run can have (NUL).`);
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const time = (name: string) => {
    const value = text(name);
    if (value === undefined || !/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(value)) return undefined;
    const parsed = Date.parse(`${value}Z`);
    return Number.isFinite(parsed) ? parsed : undefined;
  };
  const status = text('status');
  const after = text('after');
  const cut = after?.indexOf(':') ?? -1;
  const afterAt = after === undefined || cut < 1 ? Number.NaN : Number(after.slice(0, cut));
  const principal = operator ? text('principal') : undefined;
  const from = time('from');
  const to = time('to');
  return {
    ...(status !== undefined && statusFilters.some((filter) => filter.value === status) ? { status } : {}),
    ...(principal === undefined ? {} : { principal }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(Number.isSafeInteger(afterAt) && after !== undefined && cut + 1 < after.length
      ? { after: { createdAt: afterAt, runId: after.slice(cut + 1) } }
      : {}),
  };
}

/** The decision a form asks for, naming who gave it. */
function decisionOf(body: unknown, by: string): PauseDecision {
  const fields = (body ?? {}) as Record<string, unknown>;
  if (fields.decision === 'allow') return { decision: 'allow', by };
  if (fields.decision !== 'deny') throw new Refusal(400, 'Choose Approve or Deny.');
  const reason = typeof fields.reason === 'string' ? fields.reason.trim().slice(0, maxReasonChars) : '';
  return reason === '' ? { decision: 'deny', by } : { decision: 'deny', reason, by };
}

/** The run list's live updates: the server sends the list anew when it changed. */
const listScript = `(() => {
  const list = document.getElementById('runs');
  if (!list || !window.EventSource) return;
  const source = new EventSource(list.dataset.events);
  source.addEventListener('runs', (event) => { list.innerHTML = event.data; });
})();`;

/** A run's page reloads when the run changed, unless the person is typing a reason. */
const runScript = `(() => {
  const main = document.getElementById('run');
  if (!main || !window.EventSource) return;
  const source = new EventSource(main.dataset.events);
  // A reload must not cancel a decision being sent: once a form is submitted, the page stops listening.
  document.addEventListener('submit', () => source.close());
  source.addEventListener('changed', () => {
    const typing = [...document.querySelectorAll('textarea')].some((field) => field.value !== '');
    if (!typing) location.reload();
  });
})();`;
