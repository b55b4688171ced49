// The polyfill of the ES2023–ES2025 built-ins, as guest source text, with what installs it lazily.
// An entry of its own (`@sluice/code-runtime-kit/guest-builtins`): its built file has no imports,
// so the worker-thread provider bundles it into its worker's script.
import source from 'guest-bundle:./builtins-polyfill-entry.ts';

export { polyfilledBuiltins, stubBuiltins } from './builtins-stubs.js';

/**
 * core-js's implementations of the built-ins in `polyfilledBuiltins`, as one script (about 47 KB,
 * minified) that defines each where the engine has none. It reads `Math.random` once as it loads
 * (a suffix for its private keys): {@link builtinsPolyfillFunction} gives it a constant one, so
 * loading never moves a deterministic run's random sequence.
 */
export const builtinsPolyfillSource: string = source;

/**
 * Guest source of a function expression `(Math, globalThis) => void` that evaluates the polyfill:
 * `Math.random` is a constant while it loads (and put back after), and core-js's shared store is
 * removed from the global object afterwards (its modules keep their own reference).
 */
export const builtinsPolyfillFunction = `function (realMath, global) {
  var descriptor = Object.getOwnPropertyDescriptor(realMath, 'random');
  var swapped = false;
  try {
    Object.defineProperty(realMath, 'random', { value: function random() { return 0.5; }, writable: true, enumerable: false, configurable: true });
    swapped = true;
  } catch (error) {}
  try {
    (function () {
${source}
    })();
  } finally {
    if (swapped) {
      if (descriptor === undefined) delete realMath.random;
      else Object.defineProperty(realMath, 'random', descriptor);
    }
    delete global['__core-js_shared__'];
  }
}`;
