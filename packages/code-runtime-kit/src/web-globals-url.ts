import type { WebHooks, WebMade } from './web-globals-hooks.js';
import type { Percent, SearchParamsLink } from './web-globals-search-params.js';
import type { UrlHost } from './web-globals-url-host.js';

/**
 * Makes `URL` in the run's context: a parser written for the cases programs meet (absolute and
 * relative http(s), ws(s), ftp and file URLs, and other schemes such as `mailto:` or `urn:`), with
 * the WHATWG serialisation of those cases: lower-cased hosts, IPv4 and IPv6 hosts in canonical form,
 * default ports dropped, `.` and `..` segments resolved, and each component percent-encoded with
 * its own set. Serialised with `Function.prototype.toString`: self-contained, strict, no imports.
 * Not supported: Windows drive letters in `file:` URLs and `blob:` origins (see the host parser for
 * hosts). Needs `made.internal.percent`, `made.internal.searchParams` and `made.internal.urlHost`.
 */
export function makeUrlGlobals(hooks: WebHooks, made: WebMade): void {
  const percent = made.internal.percent as Percent;
  const { parseHost, invalid } = made.internal.urlHost as UrlHost;
  const link = made.internal.searchParams as SearchParamsLink;
  const defaultPorts: Record<string, string> = {
    'http:': '80',
    'https:': '443',
    'ws:': '80',
    'wss:': '443',
    'ftp:': '21',
  };
  const isSpecial = (scheme: string) => scheme === 'file:' || Object.hasOwn(defaultPorts, scheme);

  const c0 = (byte: number) => byte < 0x20 || byte > 0x7e;
  const fragmentSet = (byte: number) =>
    c0(byte) || byte === 32 || byte === 34 || byte === 60 || byte === 62 || byte === 96;
  const querySet = (byte: number) =>
    c0(byte) || byte === 32 || byte === 34 || byte === 35 || byte === 60 || byte === 62;
  const specialQuerySet = (byte: number) => querySet(byte) || byte === 39;
  const pathSet = (byte: number) => querySet(byte) || byte === 63 || byte === 96 || byte === 123 || byte === 125;
  const userinfoSet = (byte: number) =>
    pathSet(byte) ||
    byte === 47 ||
    byte === 58 ||
    byte === 59 ||
    byte === 61 ||
    byte === 64 ||
    (byte >= 91 && byte <= 94) ||
    byte === 124;

  interface UrlRecord {
    scheme: string;
    username: string;
    password: string;
    host: string | null;
    port: string;
    path: string;
    opaque: boolean;
    query: string | null;
    fragment: string | null;
  }

  /** Resolves `.` and `..` segments and percent-encodes each segment. */
  function normalisePath(path: string, special: boolean): string {
    const segments = (special ? path.replaceAll('\\', '/') : path).split('/');
    if (segments[0] === '') segments.shift();
    const output: string[] = [];
    for (let index = 0; index < segments.length; index += 1) {
      const segment = segments[index]!;
      const lower = segment.toLowerCase();
      const last = index === segments.length - 1;
      if (lower === '..' || lower === '.%2e' || lower === '%2e.' || lower === '%2e%2e') {
        output.pop();
        if (last) output.push('');
      } else if (lower === '.' || lower === '%2e') {
        if (last) output.push('');
      } else output.push(percent.encode(segment, pathSet));
    }
    return `/${output.join('/')}`;
  }

  function splitTail(text: string): { head: string; query: string | null; fragment: string | null } {
    let head = text;
    let fragment: string | null = null;
    let query: string | null = null;
    const hash = head.indexOf('#');
    if (hash !== -1) {
      fragment = head.slice(hash + 1);
      head = head.slice(0, hash);
    }
    const question = head.indexOf('?');
    if (question !== -1) {
      query = head.slice(question + 1);
      head = head.slice(0, question);
    }
    return { head, query, fragment };
  }

  function parse(raw: string, base: UrlRecord | undefined): UrlRecord {
    const input = raw.replace(/^[\0-\x20]+|[\0-\x20]+$/g, '').replace(/[\t\n\r]/g, '');
    const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(input);
    let record: UrlRecord;
    let rest: string;
    if (schemeMatch !== null) {
      const scheme = `${schemeMatch[1]!.toLowerCase()}:`;
      rest = input.slice(schemeMatch[0].length);
      record = {
        scheme,
        username: '',
        password: '',
        host: null,
        port: '',
        path: '',
        opaque: false,
        query: null,
        fragment: null,
      };
      const special = isSpecial(scheme);
      if (special && base !== undefined && base.scheme === scheme && !/^[/\\]/.test(rest)) {
        return parse(rest, base);
      }
      if (scheme === 'file:') {
        if (!/^[/\\]{2}/.test(rest)) rest = `///${rest.replace(/^[/\\]/, '')}`;
      } else if (special) rest = `//${rest.replace(/^[/\\]*/, '')}`;
    } else {
      if (base === undefined) throw invalid(raw, 'a relative URL needs a base URL');
      rest = input;
      record = { ...base, fragment: null };
      const special = isSpecial(base.scheme);
      const slashes = special ? /^[/\\]{2}/ : /^\/\//;
      if (!slashes.test(rest)) {
        if (base.opaque) {
          if (!rest.startsWith('#'))
            throw invalid(raw, `a base URL with an opaque path (${base.scheme}) takes only a fragment`);
          record.fragment = percent.encode(rest.slice(1), fragmentSet);
          return record;
        }
        const { head, query, fragment } = splitTail(rest);
        if (head !== '') {
          const absolute = special ? /^[/\\]/.test(head) : head.startsWith('/');
          record.path = normalisePath(
            absolute ? head : `${base.path.slice(0, base.path.lastIndexOf('/') + 1)}${head}`,
            special,
          );
          record.query = null;
        }
        if (head !== '' || query !== null)
          record.query = query === null ? null : percent.encode(query, special ? specialQuerySet : querySet);
        record.fragment = fragment === null ? null : percent.encode(fragment, fragmentSet);
        return record;
      }
    }
    const special = isSpecial(record.scheme);
    const { head, query, fragment } = splitTail(rest);
    record.query = query === null ? null : percent.encode(query, special ? specialQuerySet : querySet);
    record.fragment = fragment === null ? null : percent.encode(fragment, fragmentSet);
    if (special ? /^[/\\]{2}/.test(head) : head.startsWith('//')) {
      const afterSlashes = head.slice(2);
      const end = special ? afterSlashes.search(/[/\\]/) : afterSlashes.indexOf('/');
      const authority = end === -1 ? afterSlashes : afterSlashes.slice(0, end);
      const path = end === -1 ? '' : afterSlashes.slice(end);
      const at = authority.lastIndexOf('@');
      record.username = '';
      record.password = '';
      if (at !== -1) {
        const userinfo = authority.slice(0, at);
        const colon = userinfo.indexOf(':');
        record.username = percent.encode(colon === -1 ? userinfo : userinfo.slice(0, colon), userinfoSet);
        record.password = colon === -1 ? '' : percent.encode(userinfo.slice(colon + 1), userinfoSet);
      }
      const hostPort = authority.slice(at + 1);
      const portMatch = /:([^:\]]*)$/.exec(hostPort);
      const hostText = portMatch === null ? hostPort : hostPort.slice(0, portMatch.index);
      record.port = '';
      if (portMatch !== null && portMatch[1] !== '') {
        if (!/^[0-9]+$/.test(portMatch[1]!) || Number(portMatch[1]) > 65_535)
          throw invalid(raw, 'a port that is not a number from 0 to 65535');
        const port = `${Number(portMatch[1])}`;
        record.port = defaultPorts[record.scheme] === port ? '' : port;
      }
      if (record.scheme === 'file:')
        record.host = hostText === '' || hostText.toLowerCase() === 'localhost' ? '' : parseHost(hostText, true, raw);
      else if (special) record.host = parseHost(hostText, true, raw);
      else record.host = hostText === '' ? '' : parseHost(hostText, false, raw);
      record.path = special || path !== '' ? normalisePath(path, special) : '';
      record.opaque = false;
    } else if (special) {
      throw invalid(raw, 'a URL of this scheme needs a host');
    } else if (head.startsWith('/')) {
      record.host = null;
      record.path = normalisePath(head, false);
      record.opaque = false;
    } else {
      record.host = null;
      record.opaque = true;
      record.path = percent.encode(head, c0);
    }
    return record;
  }

  function serialise(record: UrlRecord): string {
    let output = record.scheme;
    if (record.host !== null) {
      output += '//';
      if (record.username !== '' || record.password !== '') {
        output += `${record.username}${record.password !== '' ? `:${record.password}` : ''}@`;
      }
      output += record.host + (record.port !== '' ? `:${record.port}` : '');
    } else if (!record.opaque && record.path.startsWith('//')) output += '/.';
    output += record.path;
    if (record.query !== null) output += `?${record.query}`;
    if (record.fragment !== null) output += `#${record.fragment}`;
    return output;
  }

  class URL {
    #record: UrlRecord;
    #params: URLSearchParams;
    constructor(url: unknown, base?: unknown) {
      const baseRecord =
        base === undefined
          ? undefined
          : typeof base === 'object' && base !== null && #record in base
            ? (base as URL).#record
            : parse(`${base}`, undefined);
      this.#record = parse(`${url}`, baseRecord);
      this.#params = link.create(this.#record.query ?? '', (query) => {
        this.#record.query = query === '' ? null : query;
      });
    }
    static canParse(url: unknown, base?: unknown): boolean {
      try {
        new URL(url, base);
        return true;
      } catch {
        return false;
      }
    }
    #replace(record: UrlRecord): void {
      this.#record = record;
      link.reset(this.#params, record.query ?? '');
    }
    get href(): string {
      return serialise(this.#record);
    }
    set href(value: string) {
      this.#replace(parse(`${value}`, undefined));
    }
    get origin(): string {
      const { scheme, host, port } = this.#record;
      return Object.hasOwn(defaultPorts, scheme) ? `${scheme}//${host}${port !== '' ? `:${port}` : ''}` : 'null';
    }
    get protocol(): string {
      return this.#record.scheme;
    }
    set protocol(value: string) {
      const scheme = `${`${value}`.split(':')[0]!.toLowerCase()}:`;
      if (!/^[a-z][a-z0-9+.-]*:$/.test(scheme) || isSpecial(scheme) !== isSpecial(this.#record.scheme)) return;
      this.#record.scheme = scheme;
      if (defaultPorts[scheme] === this.#record.port) this.#record.port = '';
    }
    get username(): string {
      return this.#record.username;
    }
    set username(value: string) {
      if (this.#record.host !== null && this.#record.host !== '')
        this.#record.username = percent.encode(`${value}`, userinfoSet);
    }
    get password(): string {
      return this.#record.password;
    }
    set password(value: string) {
      if (this.#record.host !== null && this.#record.host !== '')
        this.#record.password = percent.encode(`${value}`, userinfoSet);
    }
    get host(): string {
      const { host, port } = this.#record;
      return host === null ? '' : host + (port !== '' ? `:${port}` : '');
    }
    set host(value: string) {
      if (this.#record.opaque) return;
      try {
        const parsed = parse(`${this.#record.scheme}//${value}`, undefined);
        this.#record.host = parsed.host;
        if (parsed.port !== '' || /:\d+$/.test(`${value}`)) this.#record.port = parsed.port;
      } catch {}
    }
    get hostname(): string {
      return this.#record.host ?? '';
    }
    set hostname(value: string) {
      if (this.#record.opaque) return;
      try {
        this.#record.host = parse(`${this.#record.scheme}//${`${value}`.split(':')[0]}`, undefined).host;
      } catch {}
    }
    get port(): string {
      return this.#record.port;
    }
    set port(value: string) {
      if (this.#record.host === null || this.#record.host === '' || this.#record.scheme === 'file:') return;
      const digits = /^[0-9]*/.exec(`${value}`)![0];
      if (`${value}` === '') this.#record.port = '';
      else if (digits !== '' && Number(digits) <= 65_535) {
        const port = `${Number(digits)}`;
        this.#record.port = defaultPorts[this.#record.scheme] === port ? '' : port;
      }
    }
    get pathname(): string {
      return this.#record.path;
    }
    set pathname(value: string) {
      if (this.#record.opaque) return;
      const special = isSpecial(this.#record.scheme);
      this.#record.path = normalisePath(`${value}`, special);
    }
    get search(): string {
      const { query } = this.#record;
      return query === null || query === '' ? '' : `?${query}`;
    }
    set search(value: string) {
      const text = `${value}`;
      const query = text.startsWith('?') ? text.slice(1) : text;
      const special = isSpecial(this.#record.scheme);
      this.#record.query = text === '' ? null : percent.encode(query, special ? specialQuerySet : querySet);
      link.reset(this.#params, this.#record.query ?? '');
    }
    get searchParams(): URLSearchParams {
      return this.#params;
    }
    get hash(): string {
      const { fragment } = this.#record;
      return fragment === null || fragment === '' ? '' : `#${fragment}`;
    }
    set hash(value: string) {
      const text = `${value}`;
      this.#record.fragment =
        text === '' ? null : percent.encode(text.startsWith('#') ? text.slice(1) : text, fragmentSet);
    }
    toString(): string {
      return this.href;
    }
    toJSON(): string {
      return this.href;
    }
    get [Symbol.toStringTag](): string {
      return 'URL';
    }
  }

  hooks.describe(URL.prototype, (value) => {
    const url = value as URL;
    const { href, origin, protocol, username, password, host, hostname, port, pathname, search, searchParams, hash } =
      url;
    return { href, origin, protocol, username, password, host, hostname, port, pathname, search, searchParams, hash };
  });
  made.globals.URL = URL;
}
