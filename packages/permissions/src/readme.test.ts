import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from './policy-file.js';

const packageDir = join(import.meta.dirname, '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const read = (file: string) => readFileSync(join(packageDir, file), 'utf8').trimEnd();

describe('README', () => {
  it('quotes every example file exactly, so what it shows is what the example tests run', () => {
    for (const file of ['examples/policy-in-code.ts', 'examples/policy.json', 'examples/policy-from-json.ts']) {
      const fence = file.endsWith('.json') ? 'json' : 'ts';
      expect(readme, file).toContain(`\`\`\`${fence}\n${read(file)}\n\`\`\``);
    }
  });

  it('shows a JSON policy that loads', () => {
    expect(() => parsePolicy(read('examples/policy.json'))).not.toThrow();
  });
});
