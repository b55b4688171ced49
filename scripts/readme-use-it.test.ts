import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The root README's "Use it" snippet, run where the README says it runs: saved at the repository
// root and started with tsx (the packages built, as `npm run demo` and `npm test` leave them).
const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

describe('the README\'s "Use it" snippet', () => {
  it('runs as written from the repository root and prints the rainy cities', () => {
    const start = readme.indexOf('## Use it');
    const open = readme.indexOf('```ts\n', start) + '```ts\n'.length;
    const snippet = readme.slice(open, readme.indexOf('\n```', open));
    expect(readme.slice(start, open)).toContain('npx tsx use-it.ts');
    const file = join(root, `use-it-${process.pid}.ts`);
    try {
      writeFileSync(file, snippet);
      const output = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8' });
      // The forecast is random: some of the three cities, printed as an array.
      expect(output).toMatch(/^\[.*\]\n$/s);
    } finally {
      rmSync(file, { force: true });
    }
  }, 60_000);
});
