import type { WebHooks, WebMade } from './web-globals-hooks.js';
import type { Percent } from './web-globals-search-params.js';

/** The URL parser's host parsing (internal, never a global). */
export interface UrlHost {
  /** The serialised host of `text` for a special (`special`) or other scheme, or throws {@link UrlHost.invalid}'s error. */
  readonly parseHost: (text: string, special: boolean, input: string) => string;
  /** The `TypeError` the URL constructor throws for `input`, saying `why`. */
  readonly invalid: (input: string, why: string) => TypeError;
}

/**
 * Makes the URL parser's host parsing in the run's context: domains lower-cased after
 * percent-decoding, IPv4 addresses in any of their WHATWG forms (decimal, hex, octal, fewer than
 * four parts) and IPv6 addresses, both written back in canonical form. Host names outside ASCII are
 * refused as invalid: there is no IDNA (punycode) mapping here. Serialised with
 * `Function.prototype.toString`: self-contained, strict, no imports. Needs `made.internal.percent`.
 */
export function makeUrlHost(_hooks: WebHooks, made: WebMade): void {
  const percent = made.internal.percent as Percent;
  const c0 = (byte: number) => byte < 0x20 || byte > 0x7e;

  const invalid = (input: string, why: string) => {
    const error = new TypeError(`Invalid URL: ${why}`) as TypeError & { code: string; input: string };
    error.code = 'ERR_INVALID_URL';
    error.input = input;
    return error;
  };

  function ipv6(text: string, input: string): string {
    const pieces: number[] = [];
    let compressAt = -1;
    let rest = text;
    if (rest.startsWith('::')) {
      compressAt = 0;
      rest = rest.slice(2);
    }
    const parts = rest === '' ? [] : rest.split(':');
    for (let index = 0; index < parts.length; index += 1) {
      const part = parts[index]!;
      if (part === '') {
        if (compressAt !== -1 || index === parts.length - 1) throw invalid(input, 'a malformed IPv6 address');
        compressAt = pieces.length;
        continue;
      }
      if (part.includes('.') && index === parts.length - 1) {
        const v4 = ipv4(part, input);
        if (v4 === undefined) throw invalid(input, 'a malformed IPv6 address');
        pieces.push(v4 >>> 16, v4 & 0xffff);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(part)) throw invalid(input, 'a malformed IPv6 address');
      pieces.push(Number.parseInt(part, 16));
    }
    if (compressAt === -1 ? pieces.length !== 8 : pieces.length > 7) throw invalid(input, 'a malformed IPv6 address');
    if (compressAt !== -1) pieces.splice(compressAt, 0, ...new Array<number>(8 - pieces.length).fill(0));
    // Serialise: lower-case hex, the first longest run of two or more zero pieces as '::'.
    let bestStart = -1;
    let bestLength = 1;
    for (let start = 0; start < 8; start += 1) {
      let length = 0;
      while (start + length < 8 && pieces[start + length] === 0) length += 1;
      if (length > bestLength) {
        bestStart = start;
        bestLength = length;
      }
    }
    let output = '';
    for (let index = 0; index < 8; index += 1) {
      if (index === bestStart) {
        output += index === 0 ? '::' : ':';
        index += bestLength - 1;
        continue;
      }
      output += pieces[index]!.toString(16) + (index < 7 ? ':' : '');
    }
    return `[${output}]`;
  }

  /** The IPv4 address `text` names (decimal, 0x hex or 0-prefixed octal parts), or undefined if a part is not a number. */
  function ipv4(text: string, input: string): number | undefined {
    const parts = text.split('.');
    if (parts[parts.length - 1] === '' && parts.length > 1) parts.pop();
    if (parts.length > 4) throw invalid(input, 'an IPv4 address with more than four parts');
    const numbers: number[] = [];
    for (const part of parts) {
      let digits = part;
      let radix = 10;
      if (/^0[xX]/.test(digits)) {
        digits = digits.slice(2);
        radix = 16;
      } else if (digits.length > 1 && digits.startsWith('0')) {
        digits = digits.slice(1);
        radix = 8;
      }
      const pattern = radix === 16 ? /^[0-9a-fA-F]*$/ : radix === 8 ? /^[0-7]*$/ : /^[0-9]+$/;
      if (!pattern.test(digits)) return undefined;
      numbers.push(digits === '' ? 0 : Number.parseInt(digits, radix));
    }
    const last = numbers.pop()!;
    if (numbers.some((number) => number > 255) || last >= 256 ** (4 - numbers.length)) {
      throw invalid(input, 'an IPv4 address out of range');
    }
    let address = last;
    for (let index = 0; index < numbers.length; index += 1) address += numbers[index]! * 256 ** (3 - index);
    return address;
  }

  function parseHost(text: string, special: boolean, input: string): string {
    if (text.startsWith('[')) {
      if (!text.endsWith(']')) throw invalid(input, 'an unclosed IPv6 address');
      return ipv6(text.slice(1, -1), input);
    }
    if (!special) {
      if (/[\0\t\n\r #/:<>?@[\\\]^|]/.test(text)) throw invalid(input, 'a forbidden character in the host');
      return percent.encode(text, c0);
    }
    const domain = percent.decode(text).toLowerCase();
    if (domain === '') throw invalid(input, 'an empty host');
    if (/[\0-\x20#%/:<>?@[\\\]^|\x7f]/.test(domain)) throw invalid(input, 'a forbidden character in the host');
    if (/[^\0-\x7f]/.test(domain)) throw invalid(input, 'host names outside ASCII (IDNA) are not supported here');
    const labels = domain.split('.');
    const last =
      labels[labels.length - 1] === '' && labels.length > 1 ? labels[labels.length - 2]! : labels[labels.length - 1]!;
    if (/^[0-9]+$/.test(last) || /^0[xX][0-9a-fA-F]*$/.test(last)) {
      const address = ipv4(domain, input);
      if (address === undefined) throw invalid(input, 'a malformed IPv4 address');
      return [address >>> 24, (address >>> 16) & 255, (address >>> 8) & 255, address & 255].join('.');
    }
    return domain;
  }

  made.internal.urlHost = { parseHost, invalid } satisfies UrlHost;
}
