import type { Utf8 } from './web-globals-encoding.js';
import type { WebHooks, WebMade } from './web-globals-hooks.js';

/** Percent-encoding helpers shared with the URL parser (internal, never a global). */
export interface Percent {
  /** `text` as UTF-8 with every byte for which `encodes(byte)` holds written as `%XX`. */
  readonly encode: (text: string, encodes: (byte: number) => boolean) => string;
  /** `text` with each valid `%XX` turned back into its byte, decoded as UTF-8 (ill-formed bytes become U+FFFD). */
  readonly decode: (text: string) => string;
}

/** How the URL parser creates and updates the `URLSearchParams` of a URL (internal). */
export interface SearchParamsLink {
  /** Params over `query`, calling `changed(serialised)` whenever the program changes them. */
  readonly create: (query: string, changed: (query: string) => void) => URLSearchParams;
  /** Replaces the list of `params` with the pairs of `query`, without calling back. */
  readonly reset: (params: URLSearchParams, query: string) => void;
}

/**
 * Makes `URLSearchParams` (application/x-www-form-urlencoded pairs) in the run's context, and the
 * percent-encoding helpers the URL parser uses. Serialised with `Function.prototype.toString`:
 * self-contained, strict, no imports. Needs `made.internal.utf8`.
 */
export function makeSearchParams(hooks: WebHooks, made: WebMade): void {
  const utf8 = made.internal.utf8 as Utf8;
  const hex = '0123456789ABCDEF';

  function encode(text: string, encodes: (byte: number) => boolean): string {
    let output = '';
    const bytes = utf8.encode(text);
    for (let index = 0; index < bytes.length; index += 1) {
      const byte = bytes[index]!;
      output += encodes(byte) ? `%${hex[byte >> 4]}${hex[byte & 15]}` : String.fromCharCode(byte);
    }
    // Bytes below 0x80 were kept as characters; anything above was encoded, so this is ASCII.
    return output;
  }

  function hexValue(code: number): number {
    if (code >= 48 && code <= 57) return code - 48;
    if (code >= 65 && code <= 70) return code - 55;
    if (code >= 97 && code <= 102) return code - 87;
    return -1;
  }

  function decode(text: string): string {
    if (!text.includes('%')) return text;
    const bytes = utf8.encode(text);
    const output: number[] = [];
    for (let index = 0; index < bytes.length; index += 1) {
      const byte = bytes[index]!;
      if (byte === 37) {
        const high = hexValue(bytes[index + 1] ?? -1);
        const low = hexValue(bytes[index + 2] ?? -1);
        if (high >= 0 && low >= 0) {
          output.push(high * 16 + low);
          index += 2;
          continue;
        }
      }
      output.push(byte);
    }
    return utf8.decode(output, 0, output.length, false);
  }

  made.internal.percent = { encode, decode } satisfies Percent;

  // The application/x-www-form-urlencoded byte set: all but ASCII alphanumerics and *-._ (space is '+').
  const formEncodes = (byte: number) =>
    !(
      (byte >= 48 && byte <= 57) ||
      (byte >= 65 && byte <= 90) ||
      (byte >= 97 && byte <= 122) ||
      byte === 42 ||
      byte === 45 ||
      byte === 46 ||
      byte === 95
    );
  const formEncode = (text: string) => encode(text, (byte) => byte !== 32 && formEncodes(byte)).replaceAll(' ', '+');

  function parse(query: string): Array<[string, string]> {
    const pairs: Array<[string, string]> = [];
    const pieces = query.split('&');
    for (const piece of pieces) {
      if (piece === '') continue;
      const equals = piece.indexOf('=');
      const name = equals === -1 ? piece : piece.slice(0, equals);
      const value = equals === -1 ? '' : piece.slice(equals + 1);
      pairs.push([decode(name.replaceAll('+', ' ')), decode(value.replaceAll('+', ' '))]);
    }
    return pairs;
  }

  const noChange = () => {};
  let link: SearchParamsLink | undefined;

  class URLSearchParams {
    #list: Array<[string, string]> = [];
    #changed: (query: string) => void = noChange;

    constructor(init: unknown = '') {
      if (typeof init === 'object' && init !== null) {
        if (#list in init) {
          this.#list = (init as URLSearchParams).#list.map(([name, value]) => [name, value]);
        } else if (typeof (init as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function') {
          for (const pair of init as Iterable<unknown>) {
            const items = [...(pair as Iterable<unknown>)];
            if (items.length !== 2) throw new TypeError('Each URLSearchParams pair must have exactly two items.');
            this.#list.push([`${items[0]}`, `${items[1]}`]);
          }
        } else {
          for (const key of Object.keys(init)) this.#list.push([key, `${(init as Record<string, unknown>)[key]}`]);
        }
      } else {
        const text = `${init}`;
        this.#list = parse(text.startsWith('?') ? text.slice(1) : text);
      }
    }

    static {
      link = {
        create(query, changed) {
          const params = new URLSearchParams(query);
          params.#changed = changed;
          return params as never;
        },
        reset(params, query) {
          (params as unknown as URLSearchParams).#list = parse(query);
        },
      };
    }

    #update(): void {
      this.#changed(this.toString());
    }
    get size(): number {
      return this.#list.length;
    }
    append(name: unknown, value: unknown): void {
      this.#list.push([`${name}`, `${value}`]);
      this.#update();
    }
    delete(name: unknown, value?: unknown): void {
      const key = `${name}`;
      const only = value === undefined ? undefined : `${value}`;
      this.#list = this.#list.filter(
        ([itemName, itemValue]) => itemName !== key || (only !== undefined && itemValue !== only),
      );
      this.#update();
    }
    get(name: unknown): string | null {
      const key = `${name}`;
      const found = this.#list.find(([itemName]) => itemName === key);
      return found === undefined ? null : found[1];
    }
    getAll(name: unknown): string[] {
      const key = `${name}`;
      return this.#list.filter(([itemName]) => itemName === key).map(([, value]) => value);
    }
    has(name: unknown, value?: unknown): boolean {
      const key = `${name}`;
      const only = value === undefined ? undefined : `${value}`;
      return this.#list.some(([itemName, itemValue]) => itemName === key && (only === undefined || itemValue === only));
    }
    set(name: unknown, value: unknown): void {
      const key = `${name}`;
      const index = this.#list.findIndex(([itemName]) => itemName === key);
      if (index === -1) this.#list.push([key, `${value}`]);
      else {
        this.#list[index] = [key, `${value}`];
        this.#list = this.#list.filter(([itemName], position) => itemName !== key || position <= index);
      }
      this.#update();
    }
    sort(): void {
      // Stable, by UTF-16 code units of the name, as the standard says.
      this.#list = this.#list
        .map((pair, index) => ({ pair, index }))
        .sort((left, right) =>
          left.pair[0] < right.pair[0] ? -1 : left.pair[0] > right.pair[0] ? 1 : left.index - right.index,
        )
        .map(({ pair }) => pair);
      this.#update();
    }
    forEach(callback: (value: string, name: string, params: URLSearchParams) => void, thisArgument?: unknown): void {
      if (typeof callback !== 'function') throw new TypeError('URLSearchParams.forEach needs a function.');
      for (let index = 0; index < this.#list.length; index += 1) {
        const [name, value] = this.#list[index]!;
        Reflect.apply(callback, thisArgument, [value, name, this]);
      }
    }
    *entries(): IterableIterator<[string, string]> {
      for (let index = 0; index < this.#list.length; index += 1) {
        const [name, value] = this.#list[index]!;
        yield [name, value];
      }
    }
    *keys(): IterableIterator<string> {
      for (const [name] of this.entries()) yield name;
    }
    *values(): IterableIterator<string> {
      for (const [, value] of this.entries()) yield value;
    }
    [Symbol.iterator](): IterableIterator<[string, string]> {
      return this.entries();
    }
    toString(): string {
      return this.#list.map(([name, value]) => `${formEncode(name)}=${formEncode(value)}`).join('&');
    }
    get [Symbol.toStringTag](): string {
      return 'URLSearchParams';
    }
  }

  hooks.describe(URLSearchParams.prototype, (value) => {
    // A name given more than once prints as the list of its values.
    const shown: Record<string, string | string[]> = Object.create(null);
    for (const [name, item] of (value as URLSearchParams).entries()) {
      const previous = shown[name];
      shown[name] = previous === undefined ? item : [...(typeof previous === 'string' ? [previous] : previous), item];
    }
    return shown;
  });
  made.internal.searchParams = link;
  made.globals.URLSearchParams = URLSearchParams;
}
