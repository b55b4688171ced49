import intlCore from 'guest-bundle:./quickjs-intl-entry.ts';
import type { QuickJSContext } from 'quickjs-emscripten-core';
import { installLazily } from './quickjs-guest-builtins.js';
import { intlDataSource, intlTimeZones } from './quickjs-intl-data.js';

/** Where QuickJS's `Intl` and the methods that format through it live; each is an accessor until first use. */
export const lazyIntl: readonly string[] = [
  'globalThis.Intl',
  'Number.prototype.toLocaleString',
  'BigInt.prototype.toLocaleString',
  'Date.prototype.toLocaleString',
  'Date.prototype.toLocaleDateString',
  'Date.prototype.toLocaleTimeString',
];

/**
 * Run once after the polyfills load: V8 in Node 20 writes a plain space where CLDR has U+202F
 * (before AM/PM) in what `format` and `toLocale*String` return, though not in `formatToParts`, and
 * so does the guest; a time zone the guest does not carry is a RangeError rather than FormatJS's
 * silent UTC.
 */
const adjustSource = `((carried) => {
  const proto = Intl.DateTimeFormat.prototype, replaceAll = String.prototype.replaceAll, resolved = proto.resolvedOptions;
  const apply = Reflect.apply, has = Set.prototype.has, zones = new Set(carried), bound = new WeakMap();
  const spaced = (text) => typeof text === 'string' ? apply(replaceAll, text, ['\\u202f', ' ']) : text;
  const check = (format) => {
    const timeZone = apply(resolved, format, []).timeZone;
    if (!apply(has, zones, [timeZone])) throw new RangeError('The time zone ' + timeZone + ' is not one this runtime carries: ' + carried.join(', ') + '.');
  };
  const formatGetter = Object.getOwnPropertyDescriptor(proto, 'format').get;
  Object.defineProperty(proto, 'format', { configurable: true, enumerable: false, get() {
    let wrapped = bound.get(this);
    if (wrapped === undefined) {
      const format = apply(formatGetter, this, []);
      check(this);
      wrapped = (date) => spaced(format(date));
      bound.set(this, wrapped);
    }
    return wrapped;
  } });
  const originalParts = proto.formatToParts;
  Object.defineProperty(proto, 'formatToParts', { configurable: true, enumerable: false, writable: true, value: function formatToParts(date) { check(this); return apply(originalParts, this, [date]); } });
  const DateTimeFormat = Intl.DateTimeFormat;
  for (const name of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']) {
    const original = Date.prototype[name];
    const method = { [name](locales, options) {
      if (options !== undefined && options !== null && options.timeZone !== undefined) check(new DateTimeFormat('en', { timeZone: options.timeZone }));
      return spaced(apply(original, this, [locales, options]));
    } }[name];
    Object.defineProperty(Date.prototype, name, { configurable: true, enumerable: false, writable: true, value: method });
  }
})`;

const defineIntl =
  "Object.defineProperty(globalThis, 'Intl', { value: Object.defineProperty({}, Symbol.toStringTag, { value: 'Intl', configurable: true }), writable: true, enumerable: false, configurable: true });\n";

/**
 * QuickJS-ng has no `Intl`: this defines it, and `toLocaleString` of numbers and dates, as
 * accessors whose first use evaluates FormatJS's polyfills and the bundled locale and time-zone
 * data (`quickjs-intl-data.ts`) in the guest. A run that never formats pays for the accessors only.
 * Returns what frees the handles kept.
 */
export function installLazyIntl(context: QuickJSContext): () => void {
  return installLazily(
    context,
    lazyIntl,
    () => `${defineIntl}${intlCore}\n${intlDataSource()}${adjustSource}(${JSON.stringify(['UTC', ...intlTimeZones])});`,
    'sluice-intl.js',
  );
}
