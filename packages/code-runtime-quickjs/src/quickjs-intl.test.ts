import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { afterAll, describe, expect, it } from 'vitest';
import { createQuickJsCodeRuntime } from './index.js';

// Intl on QuickJS (FormatJS, loaded on first use) against the worker-thread provider (V8's ICU):
// the same text for each case, in the locales and time zones QuickJS carries.
const quickjs = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 30_000, cpuTimeMs: 30_000 });
const worker = createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 30_000 });
afterAll(() => Promise.all([quickjs.dispose(), worker.dispose()]));

const instant = 'new Date(Date.UTC(2024, 0, 15, 9, 30, 5))';
const summer = 'new Date(Date.UTC(2024, 6, 4, 18, 5))';

const cases: Record<string, string> = {
  'Number.prototype.toLocaleString with no locale': '(1234567.891).toLocaleString()',
  'toLocaleString in de-DE, fr-FR, es-ES, ja-JP and en-GB':
    "['de-DE', 'fr-FR', 'es-ES', 'ja-JP', 'en-GB'].map((locale) => (1234567.891).toLocaleString(locale))",
  currencies:
    "[new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(1234.5), new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(1234.5), new Intl.NumberFormat('ja-JP', { style: 'currency', currency: 'JPY' }).format(1234), new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'GBP', currencyDisplay: 'name' }).format(2)]",
  'percent, compact, units and fraction digits':
    "[new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 }).format(0.1234), new Intl.NumberFormat('en', { notation: 'compact' }).format(1234567), new Intl.NumberFormat('en', { style: 'unit', unit: 'kilometer-per-hour' }).format(50), new Intl.NumberFormat('de', { minimumFractionDigits: 2 }).format(3), (0.5).toLocaleString('en', { style: 'percent' }), new Intl.NumberFormat('en', { style: 'unit', unit: 'megabyte', unitDisplay: 'long' }).format(1.5)]",
  'formatToParts of a number':
    "new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).formatToParts(-1234.5)",
  'a date in UTC': `${instant}.toLocaleString('en-US', { timeZone: 'UTC' })`,
  'dates in time zones': `['America/New_York', 'Europe/London', 'Europe/Berlin', 'Asia/Tokyo', 'Asia/Kolkata', 'Australia/Sydney'].map((timeZone) => ${instant}.toLocaleString('en-US', { timeZone }))`,
  'dateStyle and timeStyle with a time zone': `[new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', dateStyle: 'full', timeStyle: 'long' }).format(${summer}), new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/London', dateStyle: 'medium', timeStyle: 'short' }).format(${summer})]`,
  'toLocaleDateString and toLocaleTimeString in other languages': `[${instant}.toLocaleDateString('de-DE', { timeZone: 'Europe/Berlin', year: 'numeric', month: 'long', day: 'numeric', weekday: 'long' }), ${instant}.toLocaleDateString('fr-FR', { timeZone: 'Europe/Paris', dateStyle: 'long' }), ${instant}.toLocaleTimeString('ja-JP', { timeZone: 'Asia/Tokyo' }), ${instant}.toLocaleDateString('es-ES', { timeZone: 'Europe/Madrid', month: 'short', day: 'numeric' })]`,
  'a short time-zone name either side of a DST change':
    "[Date.UTC(2024, 2, 10, 9), Date.UTC(2024, 2, 10, 11)].map((time) => new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).format(time))",
  'formatToParts of a date, hour12 and hourCycle': `[new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Singapore', hour: 'numeric', minute: 'numeric', hour12: false }).format(${instant}), new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric', hour: 'numeric' }).formatToParts(${instant})]`,
  resolvedOptions:
    "(({ locale, timeZone, calendar, numberingSystem }) => ({ locale, timeZone, calendar, numberingSystem }))(new Intl.DateTimeFormat('de-DE', { timeZone: 'Europe/Berlin' }).resolvedOptions())",
  'PluralRules, cardinal and ordinal':
    "[[0, 1, 2, 5].map((n) => new Intl.PluralRules('en').select(n)), [1, 2, 3, 4, 11].map((n) => new Intl.PluralRules('en', { type: 'ordinal' }).select(n)), new Intl.PluralRules('fr').select(1.5)]",
  'Intl.getCanonicalLocales and Intl.Locale':
    "[Intl.getCanonicalLocales(['EN-us', 'de-de']), new Intl.Locale('en-Latn-US').language, Object.prototype.toString.call(Intl)]",
};

/** A test that the expression's value is the same on QuickJS as on the worker-thread provider. */
function itFormatsAlike(name: string, expression: string): void {
  it(name, async () => {
    const program = `return ${expression};`;
    const [fromQuickJs, fromWorker] = await Promise.all([quickjs.run({ program }), worker.run({ program })]);
    expect(fromWorker.ok, JSON.stringify(fromWorker)).toBe(true);
    expect(fromQuickJs.ok ? fromQuickJs.value : fromQuickJs.failure).toEqual(
      fromWorker.ok ? fromWorker.value : undefined,
    );
  }, 60_000);
}

describe('Intl on QuickJS, as the worker-thread provider formats', { timeout: 60_000 }, () => {
  for (const [name, expression] of Object.entries(cases)) itFormatsAlike(name, expression);

  it('leaves a run that does not format without Intl loaded', async () => {
    const result = await quickjs.run({
      program: "return [typeof Object.getOwnPropertyDescriptor(globalThis, 'Intl').get, typeof Intl];",
    });
    expect(result).toMatchObject({ ok: true, value: ['function', 'object'] });
  });

  it('refuses a time zone it does not carry with a RangeError', async () => {
    const result = await quickjs.run({
      program:
        "try { new Intl.DateTimeFormat('en-US', { timeZone: 'Pacific/Chatham' }).format(0); return 'formatted'; } catch (error) { return error.name; }",
    });
    expect(result).toMatchObject({ ok: true, value: 'RangeError' });
  });
});

// localeCompare and Intl.Collator: sorted lists and comparisons, as V8's ICU sorts them.
const words = `['résumé', 'resume', 'Resume', 'RESUME', 'résume', 'a', 'B', 'é', 'E', 'ß', 'ss', 'Ä', 'z', 'ä', 'Z', '10', '9', 'a b', 'ab', 'a-b', '_a', 'Zoë', 'zoe', 'Ångström', 'angstrom', 'Øre', 'ore', 'niño', 'nino', 'nube', 'Müller', 'Mueller', 'Muller', 'café', 'cafe', 'Cafe', 'co-op', 'coop', 'item 2', 'item10', 'Item1', 'x.y', 'x_y', 'x,y', '$5', '#1', '@home']`;
const collation: Record<string, string> = {
  'localeCompare with no locale, mixed case, accents, digits and punctuation': `${words}.sort((a, b) => a.localeCompare(b))`,
  'localeCompare in en, de, es, sv and da': `['en', 'de', 'es', 'sv', 'da'].map((locale) => ${words}.sort((a, b) => a.localeCompare(b, locale)))`,
  'Intl.Collator sensitivities and numeric sorting': `[['base', 'accent', 'case', 'variant'].map((sensitivity) => [['a', 'á'], ['a', 'A'], ['a', 'b'], ['résumé', 'RESUME']].map(([x, y]) => new Intl.Collator('en', { sensitivity }).compare(x, y))), ['item10', 'item2', 'Item1', 'item 3'].sort(new Intl.Collator('en', { numeric: true }).compare), ['b-c', 'a.b', 'ab'].sort(new Intl.Collator('en', { ignorePunctuation: true }).compare)]`,
};

describe('localeCompare and Intl.Collator on QuickJS, as the worker-thread provider sorts', { timeout: 60_000 }, () => {
  for (const [name, expression] of Object.entries(collation)) itFormatsAlike(name, expression);

  it('compares without loading the rest of Intl', async () => {
    const result = await quickjs.run({
      program:
        "return ['b', 'A', 'a'].sort((x, y) => x.localeCompare(y)).concat(typeof Object.getOwnPropertyDescriptor(globalThis, 'Intl').get);",
    });
    expect(result).toMatchObject({ ok: true, value: ['a', 'A', 'b', 'function'] });
  });
});
