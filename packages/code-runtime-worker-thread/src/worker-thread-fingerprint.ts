import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workerProcessScript } from './worker-process-spawn.js';

const require = createRequire(import.meta.url);

let fingerprint: string | undefined;

/**
 * `v8-<version>:` and a SHA-256 (hex, first 32 digits) over what decides what a program sees for
 * given host results, read from disk as the provider runs it: the worker process's script (the
 * worker, the preludes, the web globals, the clock), the host side of this package (calls and
 * replies), the kit it imports (the run controller) and the kit's compile thread (program shapes
 * and the TypeScript strip), with the versions of esbuild, TypeScript and ts-blank-space it loads, Node, V8, ICU,
 * the time-zone data and the platform. Files rather than loaded code, so a test runner's transform
 * cannot change it (the worker processes load `dist/` either way). Read once per process.
 */
export function workerThreadFingerprint(): string {
  if (fingerprint === undefined) {
    const kit = require.resolve('@sluice/code-runtime-kit');
    const compileThread = join(dirname(kit), 'compile-thread-main.js');
    const fromKit = createRequire(compileThread);
    const version = (name: string) =>
      (JSON.parse(readFileSync(fromKit.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
    const { node, v8, icu, unicode, tz } = process.versions;
    const environment = JSON.stringify({
      node,
      v8,
      icu,
      unicode,
      tz,
      platform: process.platform,
      arch: process.arch,
      esbuild: version('esbuild'),
      typescript: version('typescript'),
      'ts-blank-space': version('ts-blank-space'),
    });
    const host = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const hash = createHash('sha256');
    for (const part of [
      readFileSync(workerProcessScript),
      readFileSync(host),
      readFileSync(kit),
      readFileSync(compileThread),
    ]) {
      hash.update(part);
      hash.update('\0');
    }
    hash.update(environment);
    fingerprint = `v8-${v8}:${hash.digest('hex').slice(0, 32)}`;
  }
  return fingerprint;
}
