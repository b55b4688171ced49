import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { InvalidSettingsError } from '@sluice/code-runtime';
import { expandVariables } from './mcp-config-variables.js';

/** A static bearer token as `sluice serve` keeps it: only its SHA-256, with the principal it names. */
export interface ServeToken {
  readonly principal: string;
  /** SHA-256 of the token, 32 bytes. */
  readonly sha256: Buffer;
  readonly scopes: readonly string[];
}

/** OAuth 2.1 resource-server settings: JWT access tokens checked against the issuer's JWKS. */
export interface ServeOAuth {
  readonly issuer: string;
  readonly jwksUrl: string;
  /** The `aud` every token must name: `audience`, or the server's `publicUrl`. */
  readonly audience: string;
  readonly requiredScopes: readonly string[];
  /** The claim naming the principal. Default `sub`. */
  readonly principalClaim: string;
}

/** `sluice.serve`, checked: how `sluice serve` listens, authenticates and shares the replica between principals. */
export interface ServeSettings {
  readonly host: string;
  /** 0 takes a free port. */
  readonly port: number;
  /** The URL of the `/mcp` endpoint as clients reach it; the OAuth resource identifier. */
  readonly publicUrl: string;
  /** Host header names accepted, without port (`[::1]` for IPv6); `undefined` accepts any (a non-loopback address without publicUrl). */
  readonly allowedHosts: readonly string[] | undefined;
  /** Whether the config set `publicUrl` and `allowedHosts` (else they follow the address listened on). */
  readonly publicUrlConfigured: boolean;
  readonly allowedHostsConfigured: boolean;
  readonly auth: {
    /** Serving without authentication (loopback only): every caller is the principal `local`. */
    readonly none: boolean;
    readonly tokens: readonly ServeToken[];
    readonly oauth: ServeOAuth | undefined;
  };
  /** Signs session ids (HMAC-SHA-256), so every replica with the same secret accepts them. */
  readonly sessionSecret: Uint8Array;
  /** Whether `sessionSecret` was made up at start (one replica only). */
  readonly sessionSecretGenerated: boolean;
  /** Runs one principal may have in flight on one replica. Default 4. */
  readonly runsInFlight: number;
  /** Runs of one principal that may wait beyond `runsInFlight`. Default 16. */
  readonly queue: number;
  /** The largest request body, in bytes. Default 4 MiB. */
  readonly maxRequestBytes: number;
  /** How long runs in flight may take to finish on SIGTERM, in ms. Default 10,000. */
  readonly shutdownTimeoutMs: number;
  /** The Prometheus metrics endpoint (`sluice.serve.metrics`); `undefined` serves none. */
  readonly metrics: ServeMetrics | undefined;
}

/** `sluice.serve.metrics`, checked: where the Prometheus text endpoint is and whether a scrape authenticates. */
export interface ServeMetrics {
  /** The path, `/metrics` by default. */
  readonly path: string;
  /** Whether a scrape must authenticate as a call to `/mcp` does. Default `true`. */
  readonly auth: boolean;
}

/** The port `sluice serve` listens on by default. */
export const defaultServePort = 8787;

/** `sluice.serve` once the JSON Schema has accepted it. */
export interface ServeEntry {
  readonly host?: string;
  readonly port?: number;
  readonly publicUrl?: string;
  readonly allowedHosts?: readonly string[];
  readonly auth: {
    readonly none?: boolean;
    readonly tokens?: readonly {
      readonly principal: string;
      readonly sha256?: string;
      readonly token?: string;
      readonly scopes?: readonly string[];
    }[];
    readonly oauth?: {
      readonly issuer: string;
      readonly jwksUrl: string;
      readonly audience?: string;
      readonly requiredScopes?: readonly string[];
      readonly principalClaim?: string;
    };
  };
  readonly sessionSecret?: string;
  readonly runsInFlight?: number;
  readonly queue?: number;
  readonly maxRequestBytes?: number;
  readonly shutdownTimeoutMs?: number;
  readonly metrics?: { readonly path?: string; readonly auth?: boolean };
}

/** The SHA-256 of a bearer token, in hex: what `sluice.serve.auth.tokens[].sha256` holds. */
export function hashServeToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether `host` is a loopback name or address (`localhost`, `127.0.0.0/8`, `::1`). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/**
 * Checks `sluice.serve` beyond its schema and expands `${VAR}` in tokens, the session secret and the
 * OAuth URLs. Throws {@link InvalidSettingsError} naming the setting: no authentication configured,
 * `auth.none` off loopback, a token written in the file as plain text, a short session secret, a
 * URL that does not parse.
 */
export function parseServeSettings(
  entry: ServeEntry,
  environment: Readonly<Record<string, string | undefined>>,
): ServeSettings {
  const at = 'sluice.serve';
  const address = listenAddress(
    { host: entry.host ?? '127.0.0.1', port: entry.port ?? defaultServePort },
    entry.publicUrl,
    entry.allowedHosts,
  );
  const { host, publicUrl } = address;
  const loopback = isLoopbackHost(host);
  const { auth } = entry;
  const none = auth.none === true;
  if (none && !loopback) {
    fail(
      `${at}.auth.none`,
      `serves without authentication, which is allowed only on a loopback address, and host is ${JSON.stringify(host)}; configure auth.tokens or auth.oauth, or listen on 127.0.0.1`,
    );
  }
  if (!none && auth.tokens === undefined && auth.oauth === undefined) {
    fail(
      `${at}.auth`,
      'names no way to authenticate: give tokens (static bearer tokens) or oauth (JWT access tokens), or none: true to serve loopback without authentication',
    );
  }
  if (none && (auth.tokens !== undefined || auth.oauth !== undefined)) {
    fail(`${at}.auth.none`, 'cannot be given with tokens or oauth: a request either authenticates or it does not');
  }
  const tokens = (auth.tokens ?? []).map((token, index): ServeToken => {
    const where = `${at}.auth.tokens[${index}]`;
    if ((token.sha256 === undefined) === (token.token === undefined)) {
      fail(
        where,
        `needs exactly one of sha256 (the token hashed, from sluice serve --hash-token) or token (a \${VAR} reference)`,
      );
    }
    let sha256: string;
    if (token.token !== undefined) {
      if (!/^\$\{[^}]+\}$/.test(token.token.trim())) {
        fail(
          `${where}.token`,
          `holds a token written in the file; a config file is no place for a secret: write \${VAR} and set VAR in the environment, or give sha256 (sluice serve --hash-token prints it)`,
        );
      }
      const value = expandVariables(token.token.trim(), `${where}.token`, environment);
      if (value.length < 16) fail(`${where}.token`, `is ${value.length} characters once expanded; use 16 or more`);
      sha256 = hashServeToken(value);
    } else {
      sha256 = (token.sha256 as string).toLowerCase();
    }
    return { principal: token.principal, sha256: Buffer.from(sha256, 'hex'), scopes: token.scopes ?? [] };
  });
  const seen = new Set<string>();
  for (const [index, token] of tokens.entries()) {
    const key = token.sha256.toString('hex');
    if (seen.has(key)) fail(`${at}.auth.tokens[${index}]`, 'is the same token as an earlier entry');
    seen.add(key);
  }
  let oauth: ServeOAuth | undefined;
  if (auth.oauth !== undefined) {
    const issuer = expandVariables(auth.oauth.issuer, `${at}.auth.oauth.issuer`, environment);
    const jwksUrl = expandVariables(auth.oauth.jwksUrl, `${at}.auth.oauth.jwksUrl`, environment);
    parseUrl(jwksUrl, `${at}.auth.oauth.jwksUrl`);
    const audience =
      auth.oauth.audience === undefined
        ? publicUrl
        : expandVariables(auth.oauth.audience, `${at}.auth.oauth.audience`, environment);
    oauth = {
      issuer,
      jwksUrl,
      audience,
      requiredScopes: auth.oauth.requiredScopes ?? [],
      principalClaim: auth.oauth.principalClaim ?? 'sub',
    };
  }
  let sessionSecret: Uint8Array;
  const sessionSecretGenerated = entry.sessionSecret === undefined;
  if (entry.sessionSecret === undefined) {
    sessionSecret = randomBytes(32);
  } else {
    const secret = expandVariables(entry.sessionSecret, `${at}.sessionSecret`, environment);
    if (secret.length < 32) {
      fail(`${at}.sessionSecret`, `is ${secret.length} characters once expanded; use 32 or more random characters`);
    }
    sessionSecret = new TextEncoder().encode(secret);
  }
  return {
    ...address,
    publicUrlConfigured: entry.publicUrl !== undefined,
    allowedHostsConfigured: entry.allowedHosts !== undefined,
    auth: { none, tokens, oauth },
    sessionSecret,
    sessionSecretGenerated,
    runsInFlight: entry.runsInFlight ?? 4,
    queue: entry.queue ?? 16,
    maxRequestBytes: entry.maxRequestBytes ?? 4 * 1024 * 1024,
    shutdownTimeoutMs: entry.shutdownTimeoutMs ?? 10_000,
    metrics: parseServeMetrics(entry.metrics),
  };
}

/** Paths the server serves itself, which the metrics endpoint cannot take (and the console's, below `/console`). */
const reservedPaths = ['/mcp', '/healthz', '/readyz', '/console'];

function parseServeMetrics(entry: ServeEntry['metrics']): ServeMetrics | undefined {
  if (entry === undefined) return undefined;
  const path = entry.path ?? '/metrics';
  if (reservedPaths.includes(path) || path.startsWith('/.well-known/') || path.startsWith('/console/')) {
    fail('sluice.serve.metrics.path', `is ${JSON.stringify(path)}, which the server already serves; use /metrics`);
  }
  return { path, auth: entry.auth ?? true };
}

/**
 * `settings` listening on another host or port (`sluice serve --host/--port`): publicUrl and
 * allowedHosts follow unless the config set them. Throws {@link InvalidSettingsError} for
 * `auth.none` on an address that is not loopback.
 */
export function withListenAddress(settings: ServeSettings, override: { host?: string; port?: number }): ServeSettings {
  const host = override.host ?? settings.host;
  const port = override.port ?? settings.port;
  if (settings.auth.none && !isLoopbackHost(host)) {
    fail(
      'sluice.serve.auth.none',
      `serves without authentication, which is allowed only on a loopback address, and --host is ${JSON.stringify(host)}`,
    );
  }
  const address = listenAddress(
    { host, port },
    settings.publicUrlConfigured ? settings.publicUrl : undefined,
    settings.allowedHostsConfigured ? settings.allowedHosts : undefined,
  );
  return { ...settings, ...address };
}

/** Where the server listens, the URL clients reach it at, and the Host names it accepts. */
function listenAddress(
  listen: { host: string; port: number },
  publicUrl: string | undefined,
  allowedHosts: readonly string[] | undefined,
): Pick<ServeSettings, 'host' | 'port' | 'publicUrl' | 'allowedHosts'> {
  const { host, port } = listen;
  const hostForUrl = isIP(host) === 6 ? `[${host}]` : host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = publicUrl ?? `http://${hostForUrl}:${port}/mcp`;
  const publicHost = parseUrl(url, 'sluice.serve.publicUrl').hostname;
  return {
    host,
    port,
    publicUrl: url,
    allowedHosts:
      allowedHosts ??
      (isLoopbackHost(host)
        ? [...new Set([publicHost, 'localhost', '127.0.0.1', '[::1]'])]
        : publicUrl === undefined
          ? undefined
          : [publicHost]),
  };
}

function parseUrl(text: string, setting: string): URL {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {}
  return fail(setting, `must be an http:// or https:// URL, got ${JSON.stringify(text)}`);
}

function fail(setting: string, problem: string): never {
  throw new InvalidSettingsError({ message: `${setting} ${problem}.`, setting });
}
