import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { webGlobalsSource } from '@sluice/code-runtime-kit';
import { workerScript } from './quickjs-slot.js';

/** The WebAssembly build of QuickJS-ng every worker instantiates. */
export const quickJsWasmPath = createRequire(import.meta.url).resolve('@jitl/quickjs-ng-wasmfile-release-sync/wasm');

let fingerprint: string | undefined;

/**
 * `quickjs-ng:` and a SHA-256 (hex, first 32 digits) over everything that decides what a program
 * sees for given host results: the engine's WebAssembly bytes, the worker's guest code (globals,
 * value crossing, clock, delivery order) and the web globals' source. Read once per process.
 */
export function quickJsFingerprint(): string {
  if (fingerprint === undefined) {
    const hash = createHash('sha256');
    for (const part of [readFileSync(quickJsWasmPath), readFileSync(workerScript), webGlobalsSource()]) {
      hash.update(part);
      hash.update('\0');
    }
    fingerprint = `quickjs-ng:${hash.digest('hex').slice(0, 32)}`;
  }
  return fingerprint;
}
