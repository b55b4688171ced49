import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const runnerDirectory = fileURLToPath(new URL('../python', import.meta.url));
const fixture = fileURLToPath(new URL('./__fixtures__/seccomp_verdicts.py', import.meta.url));

describe("python: the child's seccomp filter program", () => {
  it('decides every call number as its rules state, each within 20 instructions', () => {
    const output = execFileSync('python3', ['-I', '-S', fixture, runnerDirectory], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const { wrong, checked, mostInstructions } = JSON.parse(output);
    // 512 call numbers with 7 argument sets, and 3 calls from another ABI (killed).
    expect({ wrong, checked }).toEqual({ wrong: [], checked: 3587 });
    // A search, not a list: checked in order, the 80 special numbers took up to 88 instructions.
    expect(mostInstructions).toBeLessThanOrEqual(20);
  });
});
