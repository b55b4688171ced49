import { spawnSync } from 'node:child_process';
import { type Browser, chromium } from 'playwright-core';
import { describe, it } from 'vitest';

/**
 * Debian's Chromium, which `node scripts/install-test-packages.mjs` installs (`SLUICE_CHROMIUM` names
 * another build): playwright-core drives it and downloads no browser of its own. `{ skip }` says why
 * there is none.
 */
export function findChromium(): { readonly executable: string } | { readonly skip: string } {
  const executable = process.env.SLUICE_CHROMIUM || '/usr/bin/chromium';
  const probe = spawnSync(executable, ['--version'], { stdio: 'ignore', timeout: 60_000 });
  if (probe.status === 0) return { executable };
  return {
    skip: `${executable} does not run; run \`node scripts/install-test-packages.mjs\` as root on Debian (it installs Debian's chromium), or set SLUICE_CHROMIUM`,
  };
}

/**
 * A headless Chromium for one test file. As root, Chromium refuses to start with its own sandbox on,
 * so there it runs with `--no-sandbox`: it only ever loads the test's own local server.
 */
export function launchChromium(executable: string): Promise<Browser> {
  return chromium.launch({
    executablePath: executable,
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

/**
 * `describe` for tests that need a browser: they run when Chromium does; without it they skip,
 * saying why, except on CI (`CI` set), where one failing test says why instead — a console nobody
 * clicked through is a gap CI must not hide.
 */
export function describeInBrowser(name: string, body: (executable: string) => void): void {
  const found = findChromium();
  if ('executable' in found) {
    describe(name, () => body(found.executable));
    return;
  }
  if (process.env.CI) {
    describe(name, () => {
      it('has a browser to run in', () => {
        throw new Error(`no browser for the console's browser tests: ${found.skip}`);
      });
    });
    return;
  }
  console.warn(`${name}: skipped: ${found.skip}`);
  describe.skip(name, () => body(''));
}
