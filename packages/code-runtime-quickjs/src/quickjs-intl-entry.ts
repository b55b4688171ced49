// FormatJS's Intl polyfills, bundled by the build into one guest script (`quickjs-intl.ts`): the
// guest defines an empty `Intl` first, and each of these puts its constructor on it.
import '@formatjs/intl-getcanonicallocales/polyfill-force.js';
import '@formatjs/intl-locale/polyfill-force.js';
import '@formatjs/intl-pluralrules/polyfill-force.js';
import '@formatjs/intl-numberformat/polyfill-force.js';
import '@formatjs/intl-datetimeformat/polyfill-force.js';
