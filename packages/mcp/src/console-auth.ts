import { randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { Request, Response } from 'express';
import { jwtVerify, SignJWT } from 'jose';

/** Who is signed in to the console: the principal, the token's scopes, and the session's CSRF token. */
export interface ConsoleSession {
  readonly principal: string;
  readonly scopes: readonly string[];
  /** Sent in every form and checked on every POST (random, 128 bits, base64url). */
  readonly csrf: string;
  /** When the session ends, in seconds since the epoch. */
  readonly expiresAt: number;
}

/** How long a console session lasts at most, in seconds: an hour (never past the token it was made from). */
export const consoleSessionSeconds = 3600;

/** The `aud` of a console session: a session id of `/mcp` (signed with the same secret) is not one. */
const audience = 'sluice-console';

/** The session cookie's name: `__Host-` (bound to this host, path `/`, Secure) over https. */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-sluice-console' : 'sluice-console';
}

/** A new session for `principal`, ending at `expiresAt` (seconds) or in {@link consoleSessionSeconds}, whichever is first. */
export function newSession(principal: string, scopes: readonly string[], tokenExpiresAt?: number): ConsoleSession {
  const latest = Math.floor(Date.now() / 1000) + consoleSessionSeconds;
  return {
    principal,
    scopes,
    csrf: randomBytes(16).toString('base64url'),
    expiresAt: tokenExpiresAt === undefined ? latest : Math.min(latest, tokenExpiresAt),
  };
}

/** The session as a cookie value: a JWT (HS256) signed with `secret`. */
export function signConsoleSession(session: ConsoleSession, secret: Uint8Array): Promise<string> {
  return new SignJWT({ scopes: [...session.scopes], csrf: session.csrf })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(session.principal)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(session.expiresAt)
    .sign(secret);
}

/** The session a request's cookie carries, or `undefined` (no cookie, not signed with `secret`, expired, malformed). */
export async function readConsoleSession(
  request: Request,
  secret: Uint8Array,
  secure: boolean,
): Promise<ConsoleSession | undefined> {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  const value = parseCookie(header)[sessionCookieName(secure)];
  if (value === undefined) return undefined;
  try {
    const { payload } = await jwtVerify(value, secret, { algorithms: ['HS256'], audience });
    const { sub, scopes, csrf, exp } = payload;
    if (typeof sub !== 'string' || sub === '' || typeof csrf !== 'string' || typeof exp !== 'number') return undefined;
    if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')) return undefined;
    return { principal: sub, scopes, csrf, expiresAt: exp };
  } catch {
    return undefined;
  }
}

/** Sets the session cookie: HttpOnly, SameSite=Strict, Secure over https, for the console's path (`/` with `__Host-`). */
export function setSessionCookie(response: Response, value: string, options: CookieOptions): void {
  response.append(
    'Set-Cookie',
    stringifySetCookie({
      name: sessionCookieName(options.secure),
      value,
      httpOnly: true,
      sameSite: 'strict',
      secure: options.secure,
      path: options.secure ? '/' : options.path,
      ...(options.maxAgeSeconds === undefined ? {} : { maxAge: options.maxAgeSeconds }),
    }),
  );
}

export interface CookieOptions {
  readonly secure: boolean;
  readonly path: string;
  readonly maxAgeSeconds?: number;
}

/** Whether the form's CSRF token is the session's (compared in constant time). */
export function csrfMatches(session: ConsoleSession, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(session.csrf);
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Whether a POST comes from the console's own pages: a browser's `Sec-Fetch-Site` must say
 * `same-origin`, and an `Origin` must be this server's (by its Host header). A client that sends
 * neither (not a browser) passes here; the CSRF token is checked anyway.
 */
export function sameOrigin(request: Request): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

/** A fresh nonce for one page's inline style and script. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The headers of every console response: a strict CSP (only the page's own nonce'd style and
 * script, forms and fetches to this origin, never framed), `X-Frame-Options: DENY`, no sniffing,
 * no caching, no referrer beyond this origin.
 */
export function setSecurityHeaders(response: Response, nonce: string): void {
  response.set({
    'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  });
}
