// Without the `u` flag a regular expression reads UTF-16 code units, so it can see half of a pair.
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` with each lone surrogate (half of a UTF-16 pair, as `'🚀'.slice(0, 1)` leaves) replaced by
 * U+FFFD, as `String.prototype.toWellFormed` would (Node 20 lacks it). Model APIs refuse text that is
 * not well-formed Unicode, even JSON-escaped. Text that is already well-formed is returned as is.
 */
export function wellFormedText(text: string): string {
  return text.replace(loneSurrogate, '\uFFFD');
}
