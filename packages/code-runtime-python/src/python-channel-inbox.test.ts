import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const runnerDirectory = fileURLToPath(new URL('../python', import.meta.url));
const fixture = fileURLToPath(new URL('./__fixtures__/channel_many_replies.py', import.meta.url));

describe("python: the child's inbox of replies", () => {
  it('delivers 20 000 buffered replies in order with one cut of the inbox, not a copy per reply', () => {
    const output = execFileSync('python3', ['-I', '-S', fixture, runnerDirectory], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(JSON.parse(output)).toEqual({
      delivered: 20_000,
      left: '{"v":1,"type":"reply","id":',
      inboxes: 1,
      same: true,
    });
  });
});
