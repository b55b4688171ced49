import { describe, expect, it } from 'vitest';
import { invocationWords } from './cli-invocation.js';

const script = '/repo/packages/cli/bin/sluice.js';

describe('invocationWords', () => {
  it('says npx sluice when npx started it', () => {
    expect(invocationWords(script, '/repo', { npm_command: 'exec', PATH: '' })).toEqual(['npx', 'sluice']);
  });

  it("gives node and the script's path relative to the working directory when no sluice is on the PATH", () => {
    expect(invocationWords(script, '/repo', { PATH: '/nowhere' })).toEqual(['node', 'packages/cli/bin/sluice.js']);
    expect(invocationWords(script, '/repo/packages/cli/examples', { PATH: '/nowhere' })).toEqual([
      'node',
      '../bin/sluice.js',
    ]);
  });

  it('does not trust the PATH an npm script adds node_modules/.bin to', () => {
    expect(invocationWords(script, '/repo', { npm_lifecycle_event: 'demo', PATH: '/bin' })).toEqual([
      'node',
      'packages/cli/bin/sluice.js',
    ]);
  });
});
