/**
 * Guest source of `Intl.Collator` and `String.prototype.localeCompare` for QuickJS, which has
 * neither and compares code units (`'a'.localeCompare('B')` is 1; V8 says -1). FormatJS has no
 * collator and no polyfill of good standing exists, so this is the project's own, small reading of
 * Unicode's root collation as V8's ICU applies it: after canonical decomposition, three levels —
 * base letters (spaces, then punctuation and symbols in ICU's order for ASCII, digits, Latin letters
 * a–z, other scripts by code point; ß, æ, œ, ø, đ, ł expanded or folded), then accents (a table of
 * the common combining marks), then case (lower before upper) — with `sensitivity`, `numeric`,
 * `ignorePunctuation` and the tailorings of Spanish (ñ), Swedish and Finnish (å ä ö after z) and
 * Danish (æ/ä ø/ö å after z, upper case first) and Norwegian (æ ø å after z). Source of a function: called with `true` it defines
 * `Intl.Collator` (when `Intl` loads), with `false` `String.prototype.localeCompare` (on its first
 * use, without loading `Intl`).
 */
export const collatorSource = `((onIntl) => {
  const order = " _-,;:!?.'\\"()[]{}@*/\\\\&#%\`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz";
  const digitZero = order.indexOf('0') + 1;
  const marks = ['\\u0301', '\\u0300', '\\u0306', '\\u0302', '\\u030c', '\\u030a', '\\u0308', '\\u030b', '\\u0303', '\\u0307', '\\u0327', '\\u0328', '\\u0304'];
  const folded = { 'ß': ['s', 's'], 'æ': ['a', 'e'], 'œ': ['o', 'e'], 'ø': ['o', '\\u0338'], 'đ': ['d', '\\u0335'], 'ł': ['l', '\\u0335'] };
  const tailorings = {
    es: { 'n\\u0303': 'n~' },
    sv: { 'a\\u030a': 'z1', 'a\\u0308': 'z2', 'æ': 'z2', 'o\\u0308': 'z3', 'ø': 'z3' },
    fi: { 'a\\u030a': 'z1', 'a\\u0308': 'z2', 'o\\u0308': 'z3' },
    da: { 'æ': 'z1', 'a\\u0308': 'z1', 'ø': 'z2', 'o\\u0308': 'z2', 'a\\u030a': 'z3' },
    nb: { 'æ': 'z1', 'ø': 'z2', 'a\\u030a': 'z3' },
    no: { 'æ': 'z1', 'ø': 'z2', 'a\\u030a': 'z3' },
  };
  // Danish sorts upper case first.
  const upperFirst = { da: true };
  const isMark = /\\p{M}/u, isSpace = /\\s/u, isPunctuation = /[\\p{P}\\p{S}]/u, isDigit = /\\p{Nd}/u;
  const primaryOf = (ch) => {
    const at = order.indexOf(ch);
    if (at !== -1) return at + 1;
    if (isSpace.test(ch)) return 1;
    if (isPunctuation.test(ch)) return digitZero - 0.5;
    if (isDigit.test(ch)) return digitZero + Number(ch);
    return 1000 + ch.codePointAt(0);
  };
  const keys = (text, options, tailoring) => {
    const primary = [], secondary = [], tertiary = [];
    const chars = Array.from(String(text).normalize('NFD'));
    for (let index = 0; index < chars.length; index += 1) {
      let ch = chars[index];
      if (isMark.test(ch)) {
        if (secondary.length > 0) secondary[secondary.length - 1] += 1 + marks.indexOf(ch) + 2;
        continue;
      }
      const lower = ch.toLowerCase();
      const upper = lower !== ch ? 1 : 0;
      const next = chars[index + 1];
      if (tailoring !== undefined && next !== undefined && tailoring[lower + next] !== undefined) {
        const [letter, rank] = tailoring[lower + next];
        primary.push(primaryOf(letter) + (rank === '~' ? 0.5 : Number(rank) / 10));
        secondary.push(0);
        tertiary.push(upper);
        index += 1;
        continue;
      }
      if (tailoring !== undefined && tailoring[lower] !== undefined) {
        const [letter, rank] = tailoring[lower];
        primary.push(primaryOf(letter) + Number(rank) / 10);
        secondary.push(0);
        tertiary.push(upper);
        continue;
      }
      if (folded[lower] !== undefined) {
        const [first, second] = folded[lower];
        if (second.length === 1 && !isMark.test(second)) {
          primary.push(primaryOf(first), primaryOf(second));
          secondary.push(0, 0);
          tertiary.push(upper + 0.5, upper + 0.5);
        } else {
          primary.push(primaryOf(first));
          secondary.push(1 + marks.length + 2);
          tertiary.push(upper);
        }
        continue;
      }
      if (options.numeric && isDigit.test(ch)) {
        let digits = ch;
        while (index + 1 < chars.length && isDigit.test(chars[index + 1])) digits += chars[++index];
        primary.push(digitZero, Number(digits));
        secondary.push(0, 0);
        tertiary.push(0, 0);
        continue;
      }
      const weight = primaryOf(lower);
      if (options.ignorePunctuation && weight < digitZero) continue;
      primary.push(weight);
      secondary.push(0);
      tertiary.push(upper);
    }
    return [primary, secondary, tertiary];
  };
  const compareLists = (left, right) => {
    const length = Math.min(left.length, right.length);
    for (let index = 0; index < length; index += 1) if (left[index] !== right[index]) return left[index] < right[index] ? -1 : 1;
    return left.length === right.length ? 0 : left.length < right.length ? -1 : 1;
  };
  const canonical = (locales) => {
    const list = locales === undefined ? [] : typeof locales === 'string' ? [locales] : Array.from(locales);
    return list.map((tag) => {
      if (typeof tag !== 'string' || !/^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$/.test(tag)) throw new RangeError('Incorrect locale information provided');
      return tag.split(/[-_]/).map((part, index) => index === 0 ? part.toLowerCase() : part.length === 2 ? part.toUpperCase() : part.length === 4 ? part[0].toUpperCase() + part.slice(1).toLowerCase() : part.toLowerCase()).join('-');
    });
  };
  const slots = new WeakMap();
  const sensitivities = ['base', 'accent', 'case', 'variant'];
  class Collator {
    constructor(locales, options) {
      const requested = canonical(locales);
      const language = requested.length > 0 ? requested[0].split('-')[0] : 'en';
      const given = options === undefined ? {} : Object(options);
      const sensitivity = given.sensitivity === undefined ? 'variant' : String(given.sensitivity);
      if (!sensitivities.includes(sensitivity)) throw new RangeError('Value ' + sensitivity + ' out of range for Intl.Collator options property sensitivity');
      const resolved = {
        locale: requested.length > 0 ? requested[0] : 'en-US',
        usage: given.usage === 'search' ? 'search' : 'sort',
        sensitivity,
        ignorePunctuation: Boolean(given.ignorePunctuation),
        collation: 'default',
        numeric: Boolean(given.numeric),
        caseFirst: 'false',
      };
      const table = tailorings[language];
      const tailoring = table === undefined ? undefined : Object.fromEntries(Object.entries(table).map(([key, value]) => [key.normalize('NFD'), [value[0], value.slice(1)]]));
      const caseSign = upperFirst[language] === true ? -1 : 1;
      const compare = (left, right) => {
        const a = keys(left, resolved, tailoring), b = keys(right, resolved, tailoring);
        if (caseSign === -1) for (const key of [a, b]) key[2] = key[2].map((weight) => (weight === 1 ? -1 : weight));
        let result = compareLists(a[0], b[0]);
        if (result === 0 && (sensitivity === 'accent' || sensitivity === 'variant')) result = compareLists(a[1], b[1]);
        if (result === 0 && (sensitivity === 'case' || sensitivity === 'variant')) result = compareLists(a[2], b[2]);
        return result;
      };
      slots.set(this, { resolved, compare });
    }
    get compare() { return slots.get(this).compare; }
    resolvedOptions() { return { ...slots.get(this).resolved }; }
    static supportedLocalesOf(locales) { return canonical(locales); }
  }
  Object.defineProperty(Collator.prototype, Symbol.toStringTag, { value: 'Intl.Collator', configurable: true });
  if (onIntl) {
    Object.defineProperty(Intl, 'Collator', { value: Collator, writable: true, enumerable: false, configurable: true });
    return;
  }
  Object.defineProperty(String.prototype, 'localeCompare', { writable: true, enumerable: false, configurable: true, value: { localeCompare(that, locales, options) {
    if (this === undefined || this === null) throw new TypeError('String.prototype.localeCompare called on null or undefined');
    return new Collator(locales, options).compare(String(this), String(that));
  } }.localeCompare });
})`;
