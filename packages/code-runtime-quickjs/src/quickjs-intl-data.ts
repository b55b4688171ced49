import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';

/** The locales whose data the QuickJS guest's `Intl` carries. */
export const intlLocales: readonly string[] = ['en', 'en-GB', 'de', 'fr', 'es', 'ja'];

/** The time zones (besides UTC) whose rules the QuickJS guest's `Intl.DateTimeFormat` carries. */
export const intlTimeZones: readonly string[] = [
  'America/Chicago',
  'America/Denver',
  'America/Los_Angeles',
  'America/New_York',
  'America/Sao_Paulo',
  'Asia/Kolkata',
  'Asia/Shanghai',
  'Asia/Singapore',
  'Asia/Tokyo',
  'Australia/Sydney',
  'Europe/Berlin',
  'Europe/London',
  'Europe/Madrid',
  'Europe/Paris',
];

/** Currencies whose names and symbols are kept (FormatJS carries every ISO 4217 code in every locale). */
const currencies = [
  'USD',
  'EUR',
  'GBP',
  'JPY',
  'CNY',
  'INR',
  'CHF',
  'CAD',
  'AUD',
  'BRL',
  'MXN',
  'KRW',
  'SEK',
  'NOK',
  'DKK',
];

/**
 * How a full or long date joins its time, where FormatJS's data has only the comma form: CLDR's
 * `atTime` patterns, which V8's ICU uses ("July 4, 2024 at 6:05 PM").
 */
const atTime: Record<string, { full: string; long: string }> = {
  en: { full: "{1} 'at' {0}", long: "{1} 'at' {0}" },
  'en-GB': { full: "{1} 'at' {0}", long: "{1} 'at' {0}" },
  de: { full: "{1} 'um' {0}", long: "{1} 'um' {0}" },
  fr: { full: "{1} 'à' {0}", long: "{1} 'à' {0}" },
  es: { full: '{1}, {0}', long: "{1} 'a' 'las' {0}" },
};

const require = createRequire(import.meta.url);
type Kind = 'PluralRules' | 'NumberFormat' | 'DateTimeFormat';

function sourceOf(specifier: string): string | undefined {
  try {
    return readFileSync(require.resolve(specifier), 'utf8');
  } catch {
    return undefined;
  }
}

/** Runs one of FormatJS's generated data files with a stand-in `Intl` that keeps what it adds. */
function dataOf(specifier: string, kind: Kind): Record<string, unknown> | undefined {
  let path: string;
  try {
    path = require.resolve(specifier);
  } catch {
    return undefined;
  }
  let added: Record<string, unknown> | undefined;
  const keep = (data: Record<string, unknown>) => {
    added = data;
  };
  const sandbox = { Intl: { [kind]: { __addLocaleData: keep, __addTZData: keep } }, JSON, globalThis: {} };
  runInNewContext(readFileSync(path, 'utf8'), sandbox);
  return added;
}

function pick(record: unknown, keys: readonly string[]): Record<string, unknown> {
  const source = (record ?? {}) as Record<string, unknown>;
  return Object.fromEntries(keys.filter((key) => key in source).map((key) => [key, source[key]]));
}

/** A guest statement adding `data` to `Intl.<kind>`: the data as JSON text, which QuickJS parses far faster than a literal. */
function adding(kind: Kind, method: '__addLocaleData' | '__addTZData', data: unknown): string {
  return `Intl.${kind}.${method}(JSON.parse(${JSON.stringify(JSON.stringify(data))}));\n`;
}

let prepared: string | undefined;

/**
 * Guest source adding the bundled locales and time zones to the polyfilled `Intl`, trimmed to
 * what formatting needs: currencies to {@link currencies}, time-zone names to
 * {@link intlTimeZones}, and no `formatRange` patterns. Read from the FormatJS packages once per
 * thread, on the first run that uses `Intl`.
 */
export function intlDataSource(): string {
  if (prepared !== undefined) return prepared;
  let source = '';
  for (const locale of intlLocales) {
    // Plural rules are functions: their generated file is kept as it is (about 2 KB).
    const plural = sourceOf(`@formatjs/intl-pluralrules/locale-data/${locale}.js`);
    if (plural !== undefined) source += `${plural}\n`;
    const number = dataOf(`@formatjs/intl-numberformat/locale-data/${locale}.js`, 'NumberFormat') as
      | { data: Record<string, unknown> }
      | undefined;
    if (number !== undefined) {
      const data = { ...number.data, currencies: pick(number.data.currencies, currencies) };
      source += adding('NumberFormat', '__addLocaleData', { ...number, data });
    }
    const date = dataOf(`@formatjs/intl-datetimeformat/locale-data/${locale}.js`, 'DateTimeFormat') as
      | { data: Record<string, unknown> }
      | undefined;
    if (date !== undefined) {
      const intervals = date.data.intervalFormats as Record<string, unknown> | undefined;
      const glue = atTime[locale];
      const data = {
        ...date.data,
        ...(glue === undefined ? {} : { dateTimeFormat: { ...(date.data.dateTimeFormat as object), ...glue } }),
        timeZoneName: pick(date.data.timeZoneName, intlTimeZones),
        intervalFormats: pick(intervals, ['intervalFormatFallback']),
      };
      source += adding('DateTimeFormat', '__addLocaleData', { ...date, data });
    }
  }
  const zones = dataOf('@formatjs/intl-datetimeformat/add-golden-tz.js', 'DateTimeFormat') as
    | { zones: string[] }
    | undefined;
  if (zones !== undefined) {
    const kept = zones.zones.filter((zone) => intlTimeZones.includes(zone.slice(0, zone.indexOf('|'))));
    source += adding('DateTimeFormat', '__addTZData', { ...zones, zones: kept });
  }
  prepared = source;
  return source;
}
