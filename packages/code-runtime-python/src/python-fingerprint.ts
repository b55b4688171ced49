import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PythonRuntimeConfig } from './python-settings.js';

const require = createRequire(import.meta.url);
const fingerprints = new Map<string, string>();

/** The hash seed every zygote starts with (see python-interpreter's `zygoteCommand`). */
export const pythonHashSeed = '0';

/**
 * `cpython-<version>:` and a SHA-256 (hex, first 32 digits) over what decides what a program sees for
 * given host results: the runner's Python files as they are on disk (what the zygote loads), the
 * interpreter's `sys.version`, the hash seed, this package's built host side (`dist/`), the kit's
 * entry (the run controller) and the platform. Files rather than loaded code, so a test runner's
 * transform cannot change it. Computed once per process and configured executable.
 */
export function pythonFingerprint(config: PythonRuntimeConfig): string {
  let fingerprint = fingerprints.get(config.executable);
  if (fingerprint === undefined) {
    const version = interpreterVersion(config.executable);
    const hash = createHash('sha256');
    for (const file of [
      ...filesIn(fileURLToPath(new URL('../python/', import.meta.url)), '.py'),
      ...filesIn(fileURLToPath(new URL('../dist/', import.meta.url)), '.js'),
      require.resolve('@sluice/code-runtime-kit'),
    ]) {
      hash.update(readFileSync(file));
      hash.update('\0');
    }
    hash.update(JSON.stringify({ version, hashSeed: pythonHashSeed, platform: process.platform, arch: process.arch }));
    fingerprint = `cpython-${version.split(' ')[0] || 'unknown'}:${hash.digest('hex').slice(0, 32)}`;
    fingerprints.set(config.executable, fingerprint);
  }
  return fingerprint;
}

function filesIn(directory: string, suffix: string): string[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith(suffix))
    .sort()
    .map((name) => join(directory, name));
}

/** `sys.version` of the configured interpreter, or '' when it cannot say (runs then fail anyway, as a result). */
function interpreterVersion(executable: string): string {
  try {
    return execFileSync(executable, ['-I', '-S', '-c', 'import sys; sys.stdout.write(sys.version)'], {
      encoding: 'utf8',
      timeout: 15_000,
      maxBuffer: 64 * 1024,
      windowsHide: true,
    });
  } catch {
    return '';
  }
}
