#!/usr/bin/env node
// Installs the Debian packages some tests need, through one apt-get run where this machine allows it:
// - python-data: Debian's python3 with numpy, pandas and matplotlib, for the Python provider's
//   data-analysis tests (packages/code-runtime-python/src/python-data-analysis.test.ts);
// - chromium: Debian's Chromium (/usr/bin/chromium), for the console's browser tests
//   (packages/mcp/src/console-browser.test.ts), driven by playwright-core, which downloads no browser.
// Where apt-get cannot run (not Debian, not root, no network), it says why and exits 0: the data-analysis
// tests then skip, printing the same reason; the browser tests skip too, except on CI (CI=true), where
// they fail, since a console nobody clicked through is a gap CI must not hide.
// Usage: node scripts/install-test-packages.mjs
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const groups = [
  {
    name: 'python-data',
    packages: ['python3-numpy', 'python3-pandas', 'python3-matplotlib'],
    present: () =>
      existsSync('/usr/bin/python3') &&
      spawnSync('/usr/bin/python3', ['-c', 'import numpy, pandas, matplotlib'], { stdio: 'ignore' }).status === 0,
  },
  {
    name: 'chromium',
    packages: ['chromium'],
    present: () =>
      existsSync('/usr/bin/chromium') &&
      spawnSync('/usr/bin/chromium', ['--version'], { stdio: 'ignore' }).status === 0,
  },
];

function say(message) {
  console.log(`install-test-packages: ${message}`);
}

function run(command, args) {
  say(`${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status === 0;
}

const missing = groups.filter((group) => !group.present());
const names = missing.map((group) => group.name).join(', ');
const packages = missing.flatMap((group) => group.packages);
if (missing.length === 0) {
  say(`already installed: ${groups.map((group) => group.name).join(', ')}`);
} else if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get') || !existsSync('/etc/debian_version')) {
  say(`skipped ${names}: not a Debian-based Linux with apt-get; the tests that need them will say so`);
} else if (process.getuid?.() !== 0) {
  say(`skipped ${names}: not root (apt-get needs it); run as root: apt-get install -y ${packages.join(' ')}`);
} else if (!run('apt-get', ['update']) || !run('apt-get', ['install', '-y', '--no-install-recommends', ...packages])) {
  say(`apt-get failed (see above); the tests that need ${names} will say so`);
} else {
  const still = missing.filter((group) => !group.present());
  if (still.length > 0) say(`installed, but still missing: ${still.map((group) => group.name).join(', ')}`);
  else say(`installed: ${names}`);
}
