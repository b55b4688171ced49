#!/usr/bin/env node
// Installs what the Python provider's data-analysis tests need: Debian's python3 with numpy, pandas and
// matplotlib (python3-numpy python3-pandas python3-matplotlib), through apt-get where this machine allows it.
// Where it does not (not Debian, not root, no apt-get, no network), it says why and exits 0: the tests then
// skip, printing the same reason (packages/code-runtime-python/src/python-data-analysis.test.ts).
// Usage: node scripts/install-python-data.mjs
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const interpreter = '/usr/bin/python3';
const packages = ['python3-numpy', 'python3-pandas', 'python3-matplotlib'];
const check = 'import numpy, pandas, matplotlib';

function say(message) {
  console.log(`install-python-data: ${message}`);
}

function hasModules() {
  return existsSync(interpreter) && spawnSync(interpreter, ['-c', check], { stdio: 'ignore' }).status === 0;
}

function run(command, args) {
  say(`${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status === 0;
}

if (hasModules()) {
  say(`${interpreter} already has numpy, pandas and matplotlib`);
} else if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get') || !existsSync('/etc/debian_version')) {
  say(`skipped: not a Debian-based Linux with apt-get; the data-analysis tests will skip`);
} else if (process.getuid?.() !== 0) {
  say(`skipped: not root (apt-get needs it); run as root: apt-get install -y ${packages.join(' ')}`);
} else if (!run('apt-get', ['update']) || !run('apt-get', ['install', '-y', '--no-install-recommends', ...packages])) {
  say('apt-get failed (see above); the data-analysis tests will skip');
} else if (!hasModules()) {
  say(`installed, but ${interpreter} still cannot "${check}"; the data-analysis tests will skip`);
} else {
  say(`${interpreter} now has numpy, pandas and matplotlib`);
}
