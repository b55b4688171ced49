// FormatJS's Intl polyfills, bundled by the build into one guest script (`quickjs-intl.ts`): the
// guest defines `Intl` with a small `getCanonicalLocales` first, and each of these puts its
// constructor on it. FormatJS's own `getCanonicalLocales` and `Intl.Locale` (400 KB of alias and
// subtag data, 90 ms to load in QuickJS) are left out.
import '@formatjs/intl-pluralrules/polyfill-force.js';
import '@formatjs/intl-numberformat/polyfill-force.js';
import '@formatjs/intl-datetimeformat/polyfill-force.js';
