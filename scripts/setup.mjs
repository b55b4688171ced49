#!/usr/bin/env node
// Installs the workspace with the pnpm version pinned in package.json, on a machine that has only
// Node and npm. It is idempotent and cheap once installed, so `npm test` and `npm run demo` can
// both start with it on a fresh clone.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const [name, version] = String(packageManager).split('@');
if (name !== 'pnpm' || !version) {
  console.error(
    `setup: package.json "packageManager" must be "pnpm@<version>", got ${JSON.stringify(packageManager)}.`,
  );
  process.exit(2);
}

const lockfile = join(root, 'pnpm-lock.yaml');
const marker = join(root, 'node_modules', '.modules.yaml');
const installed = existsSync(marker) && existsSync(lockfile) && statSync(marker).mtimeMs >= statSync(lockfile).mtimeMs;
if (installed) process.exit(0);

// pnpm is itself a devDependency, so after the first install the workspace's own copy is used.
const localPnpm = join(root, 'node_modules', '.bin', 'pnpm');
const [command, prefix] = existsSync(localPnpm) ? [localPnpm, []] : ['npx', ['--yes', `pnpm@${version}`]];
const args = ['install', ...(process.env.CI ? ['--frozen-lockfile'] : [])];
console.log(`setup: pnpm@${version} ${args.join(' ')}`);
execFileSync(command, [...prefix, ...args], { cwd: root, stdio: 'inherit' });
