import { cutUtf8 } from './utf8.js';

const unreadable = 'a value that could not be read';

/**
 * A readable text for anything a host function, a tool module or another foreign party threw or
 * returned, cut to `maxBytes` UTF-8 bytes with a visible marker (see {@link cutUtf8}). An `Error`
 * gives its `message` (or its `name` when the message is empty); a string is itself; anything else
 * its JSON, or its `String()` form. Never throws: every getter, `toJSON`, `toString`,
 * `Symbol.toPrimitive` and Proxy trap that throws is skipped to the next way of reading, down to a
 * fixed sentence. It may still run the value's own getters, as reading an error always does.
 */
export function foreignText(
  value: unknown,
  maxBytes = Number.POSITIVE_INFINITY,
  options: ForeignTextOptions = {},
): string {
  if (options.stack === true) {
    const stack = attempt(() => (isError(value as object) ? (value as { stack?: unknown }).stack : undefined));
    if (typeof stack === 'string' && stack !== '') return cutUtf8(stack, maxBytes);
  }
  return cutUtf8(readText(value), maxBytes);
}

/** Options of {@link foreignText}. */
export interface ForeignTextOptions {
  /** Give an Error's `stack` (which starts with its message) when it is a readable string. For operators' logs, not for models. */
  readonly stack?: boolean;
}

function readText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return String(value);
    case 'symbol':
      return attempt(() => value.toString()) ?? 'a symbol';
    default:
      break;
  }
  if (value === null) return 'null';
  if (attempt(() => isError(value as object))) {
    const message = foreignErrorMessage(value);
    if (message !== undefined) return message;
    const name = attempt(() => (value as { name?: unknown }).name);
    if (typeof name === 'string' && name !== '') return name;
    return 'an error whose message could not be read';
  }
  const json = attempt(() => JSON.stringify(value) as string | undefined);
  if (typeof json === 'string') return json;
  const text = attempt(() => String(value));
  return typeof text === 'string' ? text : unreadable;
}

/**
 * The `message` of `value` when it is an `Error` (of any realm) with a non-empty string message, else
 * `undefined`. Never throws; not cut (pass it to {@link cutUtf8} or use {@link foreignText}).
 */
export function foreignErrorMessage(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !attempt(() => isError(value))) return undefined;
  const message = attempt(() => (value as { message?: unknown }).message);
  return typeof message === 'string' && message !== '' ? message : undefined;
}

/** Whether `value` is an Error of this realm or another (a `vm` context's, a worker's rebuilt one). */
function isError(value: object): boolean {
  if (value instanceof Error) return true;
  return Object.prototype.toString.call(value) === '[object Error]';
}

function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
