import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('the compile thread', () => {
  it('starts in a host started with flags a worker cannot take (node --input-type=module -e)', () => {
    const script = `
import { compileInThread } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
const result = await compileInThread('const x: number = 1;\\nreturn x;');
process.stdout.write(JSON.stringify({ ok: result.ok, kind: result.ok ? undefined : result.failure.kind }));
process.exit(0);
`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(output)).toEqual({ ok: true });
  }, 60_000);
});
