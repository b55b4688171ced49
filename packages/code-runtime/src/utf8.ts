/**
 * The exact number of bytes `text` takes in UTF-8, as `TextEncoder` would write it: a lone
 * surrogate counts as the 3 bytes of U+FFFD. Allocates nothing, so it is safe on large text.
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index += 1;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, never splitting a surrogate pair.
 * Throws `RangeError` when `maxBytes` is NaN, which would otherwise let the whole text through.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Number.isNaN(maxBytes)) throw new RangeError('truncateUtf8: maxBytes must be a number, got NaN.');
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const next = text.charCodeAt(index + 1);
    const pair = code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) return text.slice(0, index);
    bytes += size;
    if (pair) index += 1;
  }
  return text;
}
