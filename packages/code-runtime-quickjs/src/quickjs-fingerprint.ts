import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { workerScript } from './quickjs-slot.js';

const require = createRequire(import.meta.url);

/** The WebAssembly build of QuickJS-ng every worker instantiates. */
export const quickJsWasmPath = require.resolve('@jitl/quickjs-ng-wasmfile-release-sync/wasm');

let fingerprint: string | undefined;

/**
 * `quickjs-ng:` and a SHA-256 (hex, first 32 digits) over the files that decide what a program sees
 * for given host results, as the workers load them: the engine's WebAssembly bytes, the worker's
 * guest code (globals, value crossing, clock, delivery order), the kit it imports (the web
 * globals) and the kit's compile thread (program preparation). Files rather than loaded code, so the host's own loader (a test runner's transform)
 * cannot change it. Read once per process.
 */
export function quickJsFingerprint(): string {
  if (fingerprint === undefined) {
    const hash = createHash('sha256');
    const kit = require.resolve('@sluice/code-runtime-kit');
    // The compile thread prepares the program the engine sees (normalisation and the TypeScript strip).
    const compileThread = join(dirname(kit), 'compile-thread-main.js');
    const parts = [
      readFileSync(quickJsWasmPath),
      readFileSync(workerScript),
      readFileSync(kit),
      readFileSync(compileThread),
    ];
    for (const part of parts) {
      hash.update(part);
      hash.update('\0');
    }
    fingerprint = `quickjs-ng:${hash.digest('hex').slice(0, 32)}`;
  }
  return fingerprint;
}
