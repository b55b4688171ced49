import { builtinsPolyfillFunction, polyfilledBuiltins, stubBuiltins } from '@sluice/code-runtime-kit/guest-builtins';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';

const polyfillSource = `(${builtinsPolyfillFunction})(Math, globalThis)`;

/**
 * Replaces the ES2023–ES2025 built-ins of `polyfilledBuiltins` (QuickJS-ng has them, but some
 * close iterators wrongly) by accessors whose first use evaluates core-js's implementations in the
 * guest, about 47 KB that only a run using one of them parses. Returns what frees the handles kept.
 */
export function installLazyBuiltins(context: QuickJSContext): () => void {
  return installLazily(context, polyfilledBuiltins, () => polyfillSource, 'sluice-builtins.js');
}

/**
 * Puts accessors in the place of `names` (the kit's `stubBuiltins`, one evaluation of about 1.5 KB
 * per context) whose first use removes them all and evaluates `source()` in the guest, named `file`.
 * What that evaluation throws (the program broke a built-in the polyfill uses as it loads) is
 * thrown on inside the guest. Returns what frees the handles kept.
 */
export function installLazily(
  context: QuickJSContext,
  names: readonly string[],
  source: () => string,
  file: string,
): () => void {
  let installed = false;
  let remove: QuickJSHandle | undefined;
  const install = context.newFunction('install', () => {
    if (installed || remove === undefined) return;
    installed = true;
    context.unwrapResult(context.callFunction(remove, context.undefined)).dispose();
    const result = context.evalCode(source(), file);
    if (result.error !== undefined) throw result.error;
    result.value.dispose();
  });
  const stubs = `((stub) => (install) => stub(globalThis, ${JSON.stringify(names)}, install))(${stubBuiltins})`;
  const stub = context.unwrapResult(context.evalCode(stubs, `${file.replace(/\.js$/, '')}-stubs.js`));
  remove = context.unwrapResult(context.callFunction(stub, context.undefined, install));
  stub.dispose();
  install.dispose();
  return () => remove?.dispose();
}
