// The web-global makers are the kit's (shared with the QuickJS provider), taken from its built file
// by path so that esbuild bundles them into this package's scripts: the worker process may read only
// its own script, so it cannot import the kit when it runs.

import {
  builtinsPolyfillFunction,
  polyfilledBuiltins,
  stubBuiltins,
} from '../../code-runtime-kit/dist/guest-builtins.js';
import {
  codemodeReadings,
  makeEncodingGlobals,
  makeInspector,
  makePrintf,
  makeSearchParams,
  makeUrlGlobals,
  makeUrlHost,
  makeWebBasics,
} from '../../code-runtime-kit/dist/web-globals.js';
import { makeClock } from './prelude-clock.js';
import { captureIntrinsics } from './prelude-intrinsics.js';
import { makeJsonWriter } from './prelude-json.js';
import { makeLogWriter } from './prelude-log.js';
import { preludeMain } from './prelude-main.js';
import { installMeter } from './prelude-meter.js';
import { makeOrder } from './prelude-order.js';
import { makeTimers } from './prelude-timers.js';
import { hardenWorkerRealm } from './worker-harden.js';
import { workerMain } from './worker-main.js';

// These functions are turned back into source text: each is self-contained by construction (see
// their files). The whole script is strict, which keeps every frame of ours out of reach of
// `CallSite.getFunction()` and `getThis()` in a program's `Error.prepareStackTrace`. Transpilers
// that keep function names (tsx, some test runners) insert calls to a `__name` helper; a local
// no-op stands in for it, inside a function scope so it is never a global of the context.
const nameShim = 'const __name = (target) => target;';

/** The prelude script evaluated first in every run's context; its completion value is the pump. */
export const preludeSource = `'use strict';\n(() => {\n${nameShim}\nreturn (${preludeMain})(${captureIntrinsics}, ${makeLogWriter}, ${makeJsonWriter}, ${makeInspector}, ${makePrintf}, ${installMeter}, ${makeTimers}, ${makeClock}, ${makeOrder}, ${codemodeReadings}, ${stubBuiltins}, ${JSON.stringify(polyfilledBuiltins)}, ${builtinsPolyfillFunction}, [${makeWebBasics}, ${makeEncodingGlobals}, ${makeSearchParams}, ${makeUrlHost}, ${makeUrlGlobals}]);\n})();\n`;

/** The worker thread's source, evaluated with `eval: true`. */
export const workerSource = `'use strict';\n(() => {\n${nameShim}\n(${workerMain})(require, ${hardenWorkerRealm});\n})();\n`;
