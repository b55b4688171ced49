import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo, CliStream } from './cli-io.js';
import { runCli } from './cli-main.js';

// A directory that is not the process's: every relative path must be resolved against it.
const cwd = mkdtempSync(join(tmpdir(), 'sluice-cli-main-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const slow = { timeout: 60_000 };

function stream(isTTY: boolean): CliStream & { text: string } {
  return {
    isTTY,
    text: '',
    write(chunk: string) {
      this.text += chunk;
    },
  };
}

async function sluice(argv: string[], extra: Partial<CliIo> = {}) {
  const stdout = stream(false);
  const stderr = stream(false);
  const code = await runCli(argv, { stdout, stderr, cwd, ...extra });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

writeFileSync(
  join(cwd, 'tools.mjs'),
  `export const tools = [
  { name: 'clock.sleep', execute: (input) => new Promise((resolve) => setTimeout(() => resolve(input.ms), input.ms)) },
  { name: 'admin.reset', execute: () => 'reset' },
];`,
);
writeFileSync(join(cwd, 'sleepy.ts'), "await clock.sleep({ ms: 900 });\nconsole.log('awake');\nreturn 'rested';");
writeFileSync(join(cwd, 'reset.ts'), 'await clock.sleep({ ms: 1 });\nreturn await admin.reset({});');
writeFileSync(
  join(cwd, 'policy.json'),
  JSON.stringify({ default: 'allow', rules: [{ tool: 'admin.*', effect: 'deny', reason: 'admin tools are off' }] }),
);

describe('runCli', slow, () => {
  it('draws the progress line on a terminal while a run takes a while, and clears it', async () => {
    const stdout = stream(true);
    const stderr = stream(true);
    const code = await runCli(['run', 'sleepy.ts', '--tools', 'tools.mjs'], { stdout, stderr, cwd });
    expect(code).toBe(0);
    expect(stdout.text).toBe('awake\n"rested"\n');
    expect(stderr.text).toMatch(/\r\x1b\[2Krunning · \d+\.\d s · 1 host call/);
    expect(stderr.text).toMatch(/\r\x1b\[2Ksluice: ok · /);
  });

  it('draws no progress line and no usage line with --quiet, even on a terminal', async () => {
    const stdout = stream(true);
    const stderr = stream(true);
    const code = await runCli(['run', 'sleepy.ts', '--tools', 'tools.mjs', '--quiet'], { stdout, stderr, cwd });
    expect(code).toBe(0);
    expect(stdout.text).toBe('awake\n"rested"\n');
    expect(stderr.text).toBe('');
  });

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
  });

  it('reads the program, the tools module and the policy relative to the given cwd', async () => {
    expect(process.cwd()).not.toBe(cwd);
    const run = await sluice(['run', 'reset.ts', '--tools', 'tools.mjs', '--policy', 'policy.json']);
    expect(run.stderr).toContain('Permission denied: admin.reset is not allowed: admin tools are off.');
    expect(run.code).toBe(1);
    const declarations = await sluice(['declarations', '--tools', 'tools.mjs', '--policy', 'policy.json']);
    expect(declarations.code).toBe(0);
    expect(declarations.stdout).toContain('sleep');
    expect(declarations.stdout).not.toContain('reset');
  });

  it('names a policy file that is missing as it was given', async () => {
    const { code, stderr } = await sluice(['run', 'reset.ts', '--policy', 'absent.json']);
    expect(code).toBe(2);
    expect(stderr).toBe('sluice: The policy file absent.json does not exist.\n');
  });

  it('runs a program read from stdin with -, in TypeScript by default and in Python with --language', async () => {
    const typescript = await sluice(['run', '-', '--tools', 'tools.mjs'], {
      stdin: Readable.from([Buffer.from('const ms: number = await clock.sleep({ ms: 1 });\n'), 'return ms + 1;']),
    });
    expect(typescript).toMatchObject({ code: 0, stdout: '2\n' });
    const python = await sluice(['run', '-', '--language', 'python'], {
      stdin: Readable.from(['print("from stdin")\nreturn 6 * 7']),
    });
    expect(python).toMatchObject({ code: 0, stdout: 'from stdin\n42\n' });
  });

  it('refuses - without a stdin, and an empty program on stdin', async () => {
    expect(await sluice(['run', '-'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'sluice: sluice run - reads the program from stdin, but there is none here.\n',
    });
    expect(await sluice(['run', '-'], { stdin: Readable.from([' \n']) })).toMatchObject({
      code: 2,
      stderr: 'sluice: The program on stdin is empty.\n',
    });
  });

  it('prints whole milliseconds with --json', async () => {
    const { code, stdout } = await sluice(['run', 'reset.ts', '--tools', 'tools.mjs', '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.value).toBe('reset');
    expect(result.calls).toHaveLength(2);
    for (const ms of [
      result.usage.wallMs,
      result.usage.cpuMs,
      ...result.calls.map((call: { ms: number }) => call.ms),
    ]) {
      expect(Number.isInteger(ms)).toBe(true);
    }
  });

  it('applies budget flags to the run and to the declarations', async () => {
    const run = await sluice(['run', 'sleepy.ts', '--tools', 'tools.mjs', '--host-calls', '0']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/host call/i);
    expect(run.stdout).not.toContain('awake');
    const declarations = await sluice(['declarations', '--tools', 'tools.mjs', '--wall-time-ms', '7000']);
    expect(declarations.stdout).toMatch(/- Wall clock: 7 s per run/);
  });

  it("refuses a bad budget flag with the provider's message before loading the tools", async () => {
    writeFileSync(join(cwd, 'loud-tools.mjs'), "console.log('tools loaded'); export const tools = [];");
    const { code, stdout, stderr } = await sluice([
      'run',
      'sleepy.ts',
      '--tools',
      'loud-tools.mjs',
      '--wall-time-ms',
      '0',
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'sluice: Bad --wall-time-ms: Setting wallTimeMs must be an integer from 1 to 2147483647, got 0.\nRun "sluice run --help" for usage.\n',
    );
  });

  it('prints the budgets and isolation before the run and each host call after it with --verbose', async () => {
    const { code, stderr } = await sluice([
      'run',
      'reset.ts',
      '--tools',
      'tools.mjs',
      '--verbose',
      '--cpu-time-ms',
      '4000',
    ]);
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /^sluice: worker-thread runtime · wall-time-ms 30000 · cpu-time-ms 4000 · memory-bytes \d+ · /,
    );
    expect(stderr).toMatch(/\nsluice: isolation: \S/);
    expect(stderr).toMatch(/\nsluice: c\S* clock\.sleep: ok, \d+ ms\nsluice: c\S* admin\.reset: ok, \d+ ms\n/);
  });

  it('prints help for each command and names sluice mcp in the overview', async () => {
    expect((await sluice(['--help'])).stdout).toContain('  sluice mcp --config <file.json>');
    const run = await sluice(['run', '--help']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Usage: sluice run /);
    expect(run.stdout).toContain('--wall-time-ms <ms>');
    expect((await sluice(['help', 'declarations'])).stdout).toMatch(/^Usage: sluice declarations /);
    expect((await sluice(['help', 'mcp'])).stdout).toMatch(/^Usage: sluice mcp --config/);
  });
});
