import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliStream } from './cli-io.js';
import { runCli } from './cli-main.js';

const cwd = mkdtempSync(join(tmpdir(), 'sluice-cli-main-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function stream(isTTY: boolean): CliStream & { text: string } {
  return {
    isTTY,
    text: '',
    write(chunk: string) {
      this.text += chunk;
    },
  };
}

writeFileSync(
  join(cwd, 'tools.mjs'),
  "export const tools = [{ name: 'clock.sleep', execute: (input) => new Promise((resolve) => setTimeout(() => resolve(input.ms), input.ms)) }];",
);
writeFileSync(join(cwd, 'sleepy.ts'), "await clock.sleep({ ms: 900 });\nconsole.log('awake');\nreturn 'rested';");

describe('runCli', () => {
  it('draws the progress line on a terminal while a run takes a while, and clears it', async () => {
    const stdout = stream(true);
    const stderr = stream(true);
    const code = await runCli(['run', 'sleepy.ts', '--tools', 'tools.mjs'], { stdout, stderr, cwd });
    expect(code).toBe(0);
    expect(stdout.text).toBe('awake\n"rested"\n');
    expect(stderr.text).toMatch(/\r\x1b\[2Krunning · \d+\.\d s · 1 host call/);
    expect(stderr.text).toMatch(/\r\x1b\[2Ksluice: ok · /);
  }, 60_000);

  it('cancels the run when the signal aborts, reporting an abort failure', async () => {
    const stdout = stream(false);
    const stderr = stream(false);
    const controller = new AbortController();
    const running = runCli(['run', 'sleepy.ts', '--tools', 'tools.mjs'], { stdout, stderr, cwd }, controller.signal);
    controller.abort('interrupted with Ctrl-C');
    expect(await running).toBe(1);
    expect(stderr.text).toContain(
      'sluice: the program failed (abort): The run was cancelled: interrupted with Ctrl-C.',
    );
  }, 60_000);
});
