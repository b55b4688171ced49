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

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes, marker included: when it does not fit, the longest
 * prefix that leaves room for ` … [cut: N characters in all]` is kept, never splitting a surrogate
 * pair, and the marker is appended so the cut is visible. Text that fits is returned unchanged.
 * Costs time in `maxBytes`, not in the length of `text`. Never throws: a `maxBytes` that is not a
 * non-negative number is read as 0.
 */
export function cutUtf8(text: string, maxBytes: number): string {
  const budget = Number.isNaN(maxBytes) ? 0 : Math.max(maxBytes, 0);
  if (text.length <= budget / 3) return text; // Every UTF-16 unit is at most 3 bytes.
  const fits = truncateUtf8(text, budget);
  if (fits.length === text.length) return text;
  const marker = ` … [cut: ${text.length} characters in all]`;
  const markerBytes = utf8ByteLength(marker);
  if (markerBytes > budget) return truncateUtf8(marker.trimStart(), budget);
  return truncateUtf8(fits, budget - markerBytes) + marker;
}

// Without the `u` flag a regular expression reads UTF-16 code units, so it can see half of a pair.
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` with each lone surrogate (half of a UTF-16 pair, as `'🚀'.slice(0, 1)` leaves) replaced by
 * U+FFFD, as `String.prototype.toWellFormed` would (Node 20 lacks it). Model APIs refuse text that is
 * not well-formed Unicode, even JSON-escaped. Its UTF-8 size is what {@link utf8ByteLength} counted
 * for the lone surrogate (3 bytes). Text that is already well-formed is returned as is.
 */
export function wellFormedText(text: string): string {
  return text.replace(loneSurrogate, '\uFFFD');
}
