import { makeWebBasics } from './web-globals-basics.js';
import { makeEncodingGlobals } from './web-globals-encoding.js';
import type { WebHooks, WebMade } from './web-globals-hooks.js';
import { makeSearchParams } from './web-globals-search-params.js';
import { makeUrlGlobals } from './web-globals-url.js';
import { makeUrlHost } from './web-globals-url-host.js';

// Likewise what `codemode.<key>` reads as, which the prelude works out in each run's context.
export { codemodeAmbiguity, codemodeGlobal, codemodeReadings } from './binding-codemode.js';
// The console's inspector and printf directives travel with the web globals: this entry's built file has no
// imports, so the worker-thread provider bundles them into its worker's script from it too.
export { captureInspectIntrinsics, makeInspector } from './console-inspect.js';
export { makePrintf } from './console-printf.js';
export { makeEncodingGlobals, makeSearchParams, makeUrlGlobals, makeUrlHost, makeWebBasics };

/**
 * The makers of the web-standard globals (`DOMException`, `AbortController`, `AbortSignal`,
 * `structuredClone`, `crypto`, `performance`, `TextEncoder`, `TextDecoder`, `atob`, `btoa`,
 * `URLSearchParams`, `URL`), in the order they run: each may use what an earlier one put in
 * `made`. Each is self-contained and strict, so a provider turns it into source text with
 * `Function.prototype.toString` and evaluates it inside its guest; no host object is involved.
 */
export const webGlobalMakers: ReadonlyArray<(hooks: WebHooks, made: WebMade) => void> = [
  makeWebBasics,
  makeEncodingGlobals,
  makeSearchParams,
  makeUrlHost,
  makeUrlGlobals,
];

/**
 * Guest source text whose completion value is `(hooks) => globals`: it runs every maker of
 * {@link webGlobalMakers} with `hooks` and returns the globals they made, as an object with a null
 * prototype. A provider whose guest is another engine (QuickJS) evaluates it inside the guest.
 */
export function webGlobalsSource(): string {
  // Transpilers that keep function names (tsx, some test runners) insert calls to a `__name`
  // helper; a local no-op stands in for it, inside a function scope so it is never a global.
  return `(() => {\n'use strict';\nconst __name = (target) => target;\nconst makers = [${webGlobalMakers.join(', ')}];\nreturn (hooks) => {\n  const made = { globals: Object.create(null), internal: Object.create(null) };\n  for (let index = 0; index < makers.length; index += 1) makers[index](hooks, made);\n  return made.globals;\n};\n})()`;
}
