import intlCore from 'guest-bundle:./quickjs-intl-entry.ts';
import type { QuickJSContext } from 'quickjs-emscripten-core';
import { installLazily } from './quickjs-guest-builtins.js';
import { collatorSource } from './quickjs-intl-collator.js';
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

/**
 * `Intl` with `getCanonicalLocales` (BCP 47 case conventions, duplicates dropped, a malformed tag a
 * RangeError) and a small `Intl.Locale` (its subtags, `maximize` and `minimize` from the likely
 * subtags of common languages), which FormatJS's constructors and locale matcher call: FormatJS's
 * own carry 400 KB of alias and subtag data that take QuickJS about 90 ms to load.
 */
const defineIntl = `(() => {
  const canonical = (locales) => {
    const list = locales === undefined ? [] : typeof locales === 'string' ? [locales] : Array.from(Object(locales));
    const seen = [];
    for (const tag of list) {
      if (typeof tag !== 'string' && (typeof tag !== 'object' || tag === null)) throw new TypeError('Language tags must be strings');
      const text = String(tag);
      if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(text)) throw new RangeError('Incorrect locale information provided');
      const parts = text.split('-');
      let singleton = false;
      const written = parts.map((part, index) => {
        if (index === 0) return part.toLowerCase();
        if (part.length === 1) singleton = true;
        if (singleton) return part.toLowerCase();
        if (part.length === 2) return part.toUpperCase();
        if (part.length === 4 && /^[A-Za-z]+$/.test(part)) return part[0].toUpperCase() + part.slice(1).toLowerCase();
        return part.toLowerCase();
      }).join('-');
      if (!seen.includes(written)) seen.push(written);
    }
    return seen;
  };
  const intl = {};
  Object.defineProperty(intl, Symbol.toStringTag, { value: 'Intl', configurable: true });
  Object.defineProperty(intl, 'getCanonicalLocales', { value: { getCanonicalLocales: (locales) => canonical(locales) }.getCanonicalLocales, writable: true, configurable: true });
  // Likely subtags (CLDR) of common languages, for Intl.Locale's maximize, which FormatJS's locale matcher calls.
  const likely = { en: 'Latn-US', de: 'Latn-DE', fr: 'Latn-FR', es: 'Latn-ES', ja: 'Jpan-JP', it: 'Latn-IT', pt: 'Latn-BR', nl: 'Latn-NL', sv: 'Latn-SE', da: 'Latn-DK', nb: 'Latn-NO', fi: 'Latn-FI', pl: 'Latn-PL', ru: 'Cyrl-RU', uk: 'Cyrl-UA', zh: 'Hans-CN', ko: 'Kore-KR', ar: 'Arab-EG', hi: 'Deva-IN', tr: 'Latn-TR' };
  const fields = new WeakMap();
  class Locale {
    constructor(tag) {
      const [written] = canonical([typeof tag === 'object' && tag !== null && fields.has(tag) ? tag.toString() : tag]);
      const parts = written.split('-');
      let index = 1;
      const script = parts[index] !== undefined && parts[index].length === 4 ? parts[index++] : undefined;
      const region = parts[index] !== undefined && (parts[index].length === 2 || /^[0-9]{3}$/.test(parts[index])) ? parts[index++] : undefined;
      fields.set(this, { language: parts[0], script, region, rest: parts.slice(index) });
    }
    get language() { return fields.get(this).language; }
    get script() { return fields.get(this).script; }
    get region() { return fields.get(this).region; }
    get baseName() { const { language, script, region } = fields.get(this); return [language, script, region].filter((part) => part !== undefined).join('-'); }
    maximize() {
      const { language, script, region, rest } = fields.get(this);
      const [likelyScript, likelyRegion] = (likely[language] ?? '').split('-');
      return new Locale([language, script ?? likelyScript, region ?? likelyRegion, ...rest].filter((part) => part).join('-'));
    }
    minimize() {
      const { language, script, region, rest } = fields.get(this);
      const [likelyScript, likelyRegion] = (likely[language] ?? '').split('-');
      return new Locale([language, script === likelyScript ? undefined : script, region === likelyRegion ? undefined : region, ...rest].filter((part) => part).join('-'));
    }
    toString() { const { rest } = fields.get(this); return [this.baseName, ...rest].join('-'); }
  }
  Object.defineProperty(Locale.prototype, Symbol.toStringTag, { value: 'Intl.Locale', configurable: true });
  Object.defineProperty(intl, 'Locale', { value: Locale, writable: true, configurable: true });
  Object.defineProperty(globalThis, 'Intl', { value: intl, writable: true, enumerable: false, configurable: true });
})();
`;

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
    () =>
      `${defineIntl}${intlCore}\n${intlDataSource()}${adjustSource}(${JSON.stringify(['UTC', ...intlTimeZones])});\n${collatorSource}(true);`,
    'sluice-intl.js',
  );
}

/** `String.prototype.localeCompare` as an accessor whose first use evaluates the collator (about 5 KB), without `Intl`. */
export function installLazyCollation(context: QuickJSContext): () => void {
  return installLazily(
    context,
    ['String.prototype.localeCompare'],
    () => `${collatorSource}(false);`,
    'sluice-collation.js',
  );
}
