import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type ClientCapabilities,
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { jwtVerify, SignJWT } from 'jose';

/**
 * What a session id carries: `sluice serve` keeps no session state, so any replica with the same
 * `sessionSecret` serves any session. The id is a JWT (HS256) the server signed at `initialize`,
 * as the Streamable HTTP transport allows ("a JWT" is among its examples of a session id).
 */
export interface ServeSession {
  /** The principal that initialised the session; a request of another principal does not get it. */
  readonly principal: string;
  /** What the client said it can do at `initialize` (elicitation, for asking about paused runs). */
  readonly capabilities: ClientCapabilities;
}

/** How long a session id is accepted, in seconds: a day. After it the client initialises again (HTTP 404). */
export const sessionLifetimeSeconds = 24 * 3600;

/** Signs a session id for `session` with `secret`. */
export function signSession(session: ServeSession, secret: Uint8Array): Promise<string> {
  return new SignJWT({ cap: session.capabilities as Record<string, unknown> })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(session.principal)
    .setIssuedAt()
    .setJti(randomUUID())
    .setExpirationTime(`${sessionLifetimeSeconds}s`)
    .sign(secret);
}

/** The session a session id carries, or `undefined` when it was not signed with `secret`, has expired or is malformed. */
export async function readSession(id: string, secret: Uint8Array): Promise<ServeSession | undefined> {
  try {
    const { payload } = await jwtVerify(id, secret, { algorithms: ['HS256'] });
    const capabilities = payload.cap;
    if (typeof payload.sub !== 'string' || typeof capabilities !== 'object' || capabilities === null) return undefined;
    return { principal: payload.sub, capabilities: capabilities as ClientCapabilities };
  } catch {
    return undefined;
  }
}

/** The prefix of the ids `sluice serve` gives the requests it sends a client; a pause's carry where it is. */
const requestIdPrefix = 'sluice';

/** A paused durable call, as a request id names it: its run and the journal entry that waits. */
export interface PausePlace {
  readonly runId: string;
  readonly seq: number;
}

/** The `_meta` key with which the server marks an elicitation about a paused call (its {@link PausePlace}). */
export const pauseMetaKey = 'sluice/pause';

/**
 * Routes a client's answers to the requests the server sent it (elicitation) in stateless HTTP: the
 * answer comes in a new POST, handled by a fresh SDK server, not the one waiting for it. Each request
 * the server sends gets an id unique to this process; an answer that arrives here is handed to the
 * transport that sent the request, under the id its server chose. An answer about a paused durable
 * call carries the pause's place in its id, so a replica that did not send it can still decide the
 * pause through the run store ({@link ReplyRouter.pausePlace}).
 */
export class ReplyRouter {
  readonly #waiting = new Map<string, { transport: Transport; id: RequestId; principal: string }>();

  /** `transport`, serving `principal`, its outgoing requests given routable ids. */
  wrap(transport: Transport, principal: string): Transport {
    const send = transport.send.bind(transport);
    const given: string[] = [];
    transport.send = (message, options) => {
      if (!isJSONRPCRequest(message)) return send(message, options);
      const place = (message.params?._meta as Record<string, unknown> | undefined)?.[pauseMetaKey] as
        | PausePlace
        | undefined;
      const id =
        place === undefined
          ? `${requestIdPrefix}:${randomUUID()}`
          : `${requestIdPrefix}:pause:${encodeURIComponent(place.runId)}:${place.seq}:${randomUUID()}`;
      this.#waiting.set(id, { transport, id: message.id, principal });
      given.push(id);
      return send({ ...message, id }, options);
    };
    const onclose = transport.onclose;
    transport.onclose = () => {
      for (const id of given) this.#waiting.delete(id);
      onclose?.();
    };
    return transport;
  }

  /**
   * Hands an answer of `principal` to the transport waiting for it; `false` when none here waits for
   * it (it may be another replica's). An answer from another principal is dropped, answering `true`.
   */
  deliver(message: JSONRPCMessage, principal: string): boolean {
    if (!('id' in message) || typeof message.id !== 'string' || 'method' in message) return false;
    const waiting = this.#waiting.get(message.id);
    if (waiting === undefined) return false;
    if (waiting.principal !== principal) return true;
    this.#waiting.delete(message.id);
    waiting.transport.onmessage?.({ ...(message as JSONRPCResponse), id: waiting.id });
    return true;
  }

  /**
   * Answers, as the client would, every elicitation of `principal` this process sent about the
   * paused call at `place` and still waits on (`accept` for an approval, `decline` for a denial), so
   * the request that asked goes on with the decision; `false` when none here waits.
   */
  answerPause(place: PausePlace, principal: string, approve: boolean): boolean {
    const prefix = `${requestIdPrefix}:pause:${encodeURIComponent(place.runId)}:${place.seq}:`;
    const ids = [...this.#waiting.entries()]
      .filter(([id, waiting]) => id.startsWith(prefix) && waiting.principal === principal)
      .map(([id]) => id);
    for (const id of ids) {
      this.deliver({ jsonrpc: '2.0', id, result: { action: approve ? 'accept' : 'decline', content: {} } }, principal);
    }
    return ids.length > 0;
  }

  /** The paused call an answer's id names, for an answer no transport here waits for. */
  static pausePlace(message: JSONRPCMessage): PausePlace | undefined {
    if (!('id' in message) || typeof message.id !== 'string') return undefined;
    const match = /^sluice:pause:([^:]+):(\d+):[0-9a-f-]+$/.exec(message.id);
    if (match === null) return undefined;
    try {
      return { runId: decodeURIComponent(match[1] as string), seq: Number(match[2]) };
    } catch {
      return undefined;
    }
  }
}

/**
 * Routes a client's `notifications/cancelled` to the request it names, in stateless HTTP: the
 * notification comes in a new POST, handled by a fresh SDK server that serves no request, so without
 * this a cancelled run would go on to its end (and a paused one wait for its person). The transport
 * serving the named request of the same principal and session, on this replica, is handed the
 * notification: its SDK server aborts the request's handler, and the run ends as cancelled. A request
 * another replica serves is not reached.
 */
export class CancelRouter {
  readonly #serving = new Map<string, { transport: Transport; pending: Set<string> }>();

  /** Notes that `transport` serves the requests `ids` of `principal` in `session`; call the result when it closes. */
  track(principal: string, session: string | undefined, ids: readonly RequestId[], transport: Transport): () => void {
    const keys = ids.map((id) => cancelKey(principal, session, id));
    const entry = { transport, pending: new Set(keys) };
    for (const key of keys) this.#serving.set(key, entry);
    return () => {
      for (const key of keys) if (this.#serving.get(key) === entry) this.#serving.delete(key);
    };
  }

  /** Hands a `notifications/cancelled` of `principal` in `session` to the transport serving its request; `false` when none here does. */
  deliver(principal: string, session: string | undefined, message: JSONRPCMessage): boolean {
    if (!isJSONRPCNotification(message) || message.method !== 'notifications/cancelled') return false;
    const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return false;
    const key = cancelKey(principal, session, requestId);
    const entry = this.#serving.get(key);
    if (entry === undefined) return false;
    this.#serving.delete(key);
    entry.pending.delete(key);
    entry.transport.onmessage?.(message);
    // The SDK answers no cancelled request, so its response stream would stay open: once the SDK has
    // aborted the handler (a microtask on), the transport is closed and the HTTP response ends.
    if (entry.pending.size === 0) {
      setImmediate(() => {
        entry.transport.close().catch(() => {});
      });
    }
    return true;
  }
}

function cancelKey(principal: string, session: string | undefined, id: RequestId): string {
  return JSON.stringify([principal, session ?? null, id]);
}
