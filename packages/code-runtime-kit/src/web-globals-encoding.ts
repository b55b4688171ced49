import type { WebHooks, WebMade } from './web-globals-hooks.js';

/** UTF-8 helpers shared by the encoding globals and the URL parser, built inside the context. */
export interface Utf8 {
  /** The UTF-8 bytes of `text`; a lone surrogate is encoded as U+FFFD, as `TextEncoder` does. */
  readonly encode: (text: string) => number[];
  /** Decodes `bytes[start, end)`; ill-formed sequences become U+FFFD (one per maximal subpart), or `fatal` throws. */
  readonly decode: (bytes: ArrayLike<number>, start: number, end: number, fatal: boolean) => string;
}

/**
 * Makes `TextEncoder`, `TextDecoder` (UTF-8 only), `atob` and `btoa` in the run's context.
 * Serialised with `Function.prototype.toString`: self-contained, strict, no imports. Needs
 * `made.globals.DOMException` (made before it).
 */
export function makeEncodingGlobals(hooks: WebHooks, made: WebMade): void {
  const DomException = made.globals.DOMException as new (message: string, name: string) => Error;
  const Bytes = globalThis.Uint8Array;
  const fromCharCode = String.fromCharCode;
  const isView = ArrayBuffer.isView;
  const bufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')!.get!;

  /**
   * Writes the UTF-8 bytes of `text` into `target` from index 0, whole code points only, while they
   * fit in `limit` bytes; a lone surrogate is written as U+FFFD. Returns UTF-16 units read and bytes
   * written (or, with no target, that would be written).
   */
  function write(
    text: string,
    target: { [index: number]: number } | undefined,
    limit: number,
  ): { read: number; written: number } {
    const length = text.length;
    let read = 0;
    let written = 0;
    while (read < length) {
      let code = text.charCodeAt(read);
      let units = 1;
      if (code >= 0xd800 && code <= 0xdfff) {
        const next = read + 1 < length ? text.charCodeAt(read + 1) : 0;
        if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
          units = 2;
        } else code = 0xfffd;
      }
      const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
      if (written + size > limit) break;
      if (target === undefined) {
        // Only counting.
      } else if (size === 1) target[written] = code;
      else if (size === 2) {
        target[written] = 0xc0 | (code >> 6);
        target[written + 1] = 0x80 | (code & 63);
      } else if (size === 3) {
        target[written] = 0xe0 | (code >> 12);
        target[written + 1] = 0x80 | ((code >> 6) & 63);
        target[written + 2] = 0x80 | (code & 63);
      } else {
        target[written] = 0xf0 | (code >> 18);
        target[written + 1] = 0x80 | ((code >> 12) & 63);
        target[written + 2] = 0x80 | ((code >> 6) & 63);
        target[written + 3] = 0x80 | (code & 63);
      }
      written += size;
      read += units;
    }
    return { read, written };
  }

  function encode(text: string): number[] {
    const bytes: number[] = [];
    write(text, bytes, 1 / 0);
    return bytes;
  }

  // The WHATWG UTF-8 decoder: a sequence is cut at the first byte outside the range its lead byte
  // allows, and that maximal subpart becomes one U+FFFD; the offending byte is read again.
  function decode(bytes: ArrayLike<number>, start: number, end: number, fatal: boolean): string {
    let text = '';
    let chunk: number[] = [];
    const push = (code: number) => {
      if (code >= 0x10000) {
        const offset = code - 0x10000;
        chunk.push(0xd800 + (offset >> 10), 0xdc00 + (offset & 0x3ff));
      } else chunk.push(code);
      if (chunk.length >= 4096) {
        text += fromCharCode(...chunk);
        chunk = [];
      }
    };
    const bad = () => {
      if (fatal) throw new TypeError('The encoded data was not valid UTF-8.');
      push(0xfffd);
    };
    let index = start;
    while (index < end) {
      const lead = bytes[index]!;
      index += 1;
      if (lead < 0x80) {
        push(lead);
        continue;
      }
      let needed = 0;
      let code = 0;
      let lower = 0x80;
      let upper = 0xbf;
      if (lead >= 0xc2 && lead <= 0xdf) {
        needed = 1;
        code = lead & 0x1f;
      } else if (lead >= 0xe0 && lead <= 0xef) {
        if (lead === 0xe0) lower = 0xa0;
        if (lead === 0xed) upper = 0x9f;
        needed = 2;
        code = lead & 0xf;
      } else if (lead >= 0xf0 && lead <= 0xf4) {
        if (lead === 0xf0) lower = 0x90;
        if (lead === 0xf4) upper = 0x8f;
        needed = 3;
        code = lead & 0x7;
      } else {
        bad();
        continue;
      }
      let complete = true;
      while (needed > 0) {
        const next = index < end ? bytes[index]! : -1;
        if (next < lower || next > upper) {
          complete = false;
          break;
        }
        lower = 0x80;
        upper = 0xbf;
        code = (code << 6) | (next & 0x3f);
        index += 1;
        needed -= 1;
      }
      if (complete) push(code);
      else bad();
    }
    return chunk.length > 0 ? text + fromCharCode(...chunk) : text;
  }

  made.internal.utf8 = { encode, decode } satisfies Utf8;

  /** The bytes of a BufferSource as a Uint8Array over the same memory (no copy). */
  function bytesOf(input: unknown, method: string): Uint8Array {
    if (isView(input)) {
      const view = input as ArrayBufferView;
      return new Bytes(view.buffer, view.byteOffset, view.byteLength);
    }
    try {
      Reflect.apply(bufferByteLength, input, []);
    } catch {
      throw new TypeError(`${method} needs an ArrayBuffer, a typed array or a DataView.`);
    }
    return new Bytes(input as ArrayBuffer);
  }

  class TextEncoder {
    get encoding(): string {
      return 'utf-8';
    }
    encode(input: unknown = ''): Uint8Array {
      const text = `${input}`;
      // Sized first, so the only allocation is the metered result.
      const bytes = new Bytes(write(text, undefined, 1 / 0).written);
      write(text, bytes, bytes.length);
      return bytes;
    }
    encodeInto(source: unknown, destination: Uint8Array): { read: number; written: number } {
      const target = bytesOf(destination, 'TextEncoder.encodeInto');
      return write(`${source}`, target, target.length);
    }
  }

  const labels = ['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8'];
  class TextDecoder {
    readonly #fatal: boolean;
    readonly #ignoreBom: boolean;
    #pending: number[] = [];
    #started = false;
    constructor(label: unknown = 'utf-8', options: { fatal?: unknown; ignoreBOM?: unknown } = {}) {
      const name = `${label}`.trim().toLowerCase();
      if (!labels.includes(name)) {
        throw new RangeError(`The "${label}" encoding is not supported here: TextDecoder decodes UTF-8 only.`);
      }
      this.#fatal = Boolean(options?.fatal);
      this.#ignoreBom = Boolean(options?.ignoreBOM);
    }
    get encoding(): string {
      return 'utf-8';
    }
    get fatal(): boolean {
      return this.#fatal;
    }
    get ignoreBOM(): boolean {
      return this.#ignoreBom;
    }
    decode(input?: unknown, options: { stream?: unknown } = {}): string {
      const stream = Boolean(options?.stream);
      const fresh = input === undefined ? new Bytes(0) : bytesOf(input, 'TextDecoder.decode');
      let bytes: ArrayLike<number> = fresh;
      if (this.#pending.length > 0) bytes = [...this.#pending, ...fresh];
      let end = bytes.length;
      if (stream) {
        // Keep an incomplete sequence at the end for the next call.
        let back = end - 1;
        while (back >= 0 && back > end - 4 && (bytes[back]! & 0xc0) === 0x80) back -= 1;
        if (back >= 0) {
          const lead = bytes[back]!;
          const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
          if (lead >= 0xc2 && lead <= 0xf4 && end - back < size) end = back;
        }
      }
      this.#pending = Array.prototype.slice.call(bytes, end) as number[];
      let start = 0;
      if (
        !this.#started &&
        !this.#ignoreBom &&
        end >= 3 &&
        bytes[0] === 0xef &&
        bytes[1] === 0xbb &&
        bytes[2] === 0xbf
      ) {
        start = 3;
      }
      if (end > 0) this.#started = true;
      const text = decode(bytes, start, end, this.#fatal);
      if (!stream) {
        this.#pending = [];
        this.#started = false;
      }
      return text;
    }
  }

  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

  function btoa(...args: unknown[]): string {
    if (args.length === 0) throw new TypeError('btoa needs one argument.');
    const text = `${args[0]}`;
    let output = '';
    for (let index = 0; index < text.length; index += 3) {
      const codes = [text.charCodeAt(index), text.charCodeAt(index + 1), text.charCodeAt(index + 2)];
      const count = Math.min(3, text.length - index);
      for (let part = 0; part < count; part += 1) {
        if (codes[part]! > 0xff) {
          throw new DomException(
            'Invalid character: btoa encodes Latin-1 text only; for other text, encode it to UTF-8 bytes first.',
            'InvalidCharacterError',
          );
        }
      }
      const triple = (codes[0]! << 16) | ((count > 1 ? codes[1]! : 0) << 8) | (count > 2 ? codes[2]! : 0);
      output += alphabet[(triple >> 18) & 63]! + alphabet[(triple >> 12) & 63]!;
      output += count > 1 ? alphabet[(triple >> 6) & 63]! : '=';
      output += count > 2 ? alphabet[triple & 63]! : '=';
    }
    return output;
  }

  function atob(...args: unknown[]): string {
    if (args.length === 0) throw new TypeError('atob needs one argument.');
    let text = '';
    const source = `${args[0]}`;
    for (let index = 0; index < source.length; index += 1) {
      const character = source[index]!;
      if (character !== ' ' && character !== '\t' && character !== '\n' && character !== '\f' && character !== '\r') {
        text += character;
      }
    }
    if (text.length % 4 === 0) {
      if (text.endsWith('==')) text = text.slice(0, -2);
      else if (text.endsWith('=')) text = text.slice(0, -1);
    }
    const invalid = () =>
      new DomException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
    if (text.length % 4 === 1) throw invalid();
    let output = '';
    let buffer = 0;
    let bits = 0;
    for (let index = 0; index < text.length; index += 1) {
      const value = alphabet.indexOf(text[index]!);
      if (value === -1) throw invalid();
      buffer = (buffer << 6) | value;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        output += fromCharCode((buffer >> bits) & 0xff);
      }
    }
    return output;
  }

  hooks.describe(TextEncoder.prototype, () => ({ encoding: 'utf-8' }));
  hooks.describe(TextDecoder.prototype, (value) => {
    const { encoding, fatal, ignoreBOM } = value as TextDecoder;
    return { encoding, fatal, ignoreBOM };
  });
  made.globals.TextEncoder = TextEncoder;
  made.globals.TextDecoder = TextDecoder;
  made.globals.btoa = btoa;
  made.globals.atob = atob;
}
