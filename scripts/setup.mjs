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

const localPnpm = join(root, 'node_modules', '.bin', 'pnpm');
const [command, args] = existsSync(localPnpm)
  ? [localPnpm, ['install']]
  : ['npx', ['--yes', `pnpm@${version}`, 'install']];
if (process.env.CI) args.push('--frozen-lockfile');
console.log(
  `setup: ${[command === localPnpm ? 'pnpm' : `npx pnpm@${version}`, ...args.slice(command === localPnpm ? 0 : 2)].join(' ')}`,
);
execFileSync(command, args, { cwd: root, stdio: 'inherit' });
