import { expect } from 'vitest';

/** A signed-in browser: its session cookie and the CSRF token its pages carry. */
export interface ConsoleBrowser {
  readonly cookie: string;
  readonly csrf: string;
}

/** Plain HTTP to the console at `origin()` as a browser would send it (no redirects followed). */
export interface ConsoleHttp {
  /** Signs in with `token` (a same-origin form), checking the cookie's flags. */
  signIn(token: string): Promise<ConsoleBrowser>;
  get(path: string, cookie?: string): Promise<Response>;
  /** A same-origin form POST with `browser`'s cookie; `headers` override the defaults. */
  post(
    path: string,
    browser: ConsoleBrowser,
    fields: Record<string, string> | string,
    headers?: Record<string, string>,
  ): Promise<Response>;
}

/** {@link ConsoleHttp} for the server whose origin `origin()` gives (read at each request). */
export function consoleHttp(origin: () => string): ConsoleHttp {
  const get = (path: string, cookie?: string) =>
    fetch(`${origin()}${path}`, { redirect: 'manual', headers: cookie === undefined ? {} : { cookie } });
  return {
    get,
    async signIn(token) {
      const response = await fetch(`${origin()}/console/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: origin(),
          'sec-fetch-site': 'same-origin',
        },
        body: new URLSearchParams({ token }),
      });
      expect(response.status).toBe(303);
      const setCookie = response.headers.get('set-cookie') ?? '';
      expect(setCookie).toMatch(/HttpOnly/i);
      expect(setCookie).toMatch(/SameSite=Strict/i);
      const cookie = setCookie.split(';')[0] as string;
      const page = await (await get('/console/', cookie)).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
      expect(csrf).toBeDefined();
      return { cookie, csrf: csrf as string };
    },
    post(path, browser, fields, headers = {}) {
      return fetch(`${origin()}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: browser.cookie,
          origin: origin(),
          'sec-fetch-site': 'same-origin',
          ...headers,
        },
        body: typeof fields === 'string' ? fields : new URLSearchParams(fields),
      });
    },
  };
}
