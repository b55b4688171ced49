import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FinishedSluice, runSluice, sluiceBin } from './cli-process.test-helper.js';

// What a newcomer meets on a fresh clone (issue 25), each case through the built command.
const work = mkdtempSync(join(tmpdir(), 'sluice-cli-newcomer-'));
// Each case starts a fresh Node process: generous, for a loaded two-core machine.
const slow = { timeout: 60_000 };

function sluice(...args: string[]): Promise<FinishedSluice> {
  return runSluice(args, work);
}

/** Runs `sluice args` with `input` piped to its stdin. */
function sluicePiped(input: string, ...args: string[]): Promise<FinishedSluice> {
  const child = spawn(process.execPath, [sluiceBin, ...args], { cwd: work, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString('utf8');
  });
  child.stdin.end(input);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, ...output })));
}

function file(name: string, text: string): string {
  writeFileSync(join(work, name), text);
  return name;
}

beforeAll(() => {
  file(
    'tools.ts',
    `export const tools = [
  { name: 'issues.list', description: 'Lists issues.', inputSchema: { type: 'object' }, execute: async () => [] },
  { name: 'issues.close', description: 'Closes one.', inputSchema: { type: 'object' }, execute: async () => 'closed' },
];
`,
  );
  file('calls-tool.ts', 'const open = await issues.list({});\nreturn open.length;');
  file('calls-tool.py', 'found = await issues.list()\nreturn len(found)');
  file('undefined-name.ts', 'return totl + 1;');
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('sluice run, as a newcomer meets it', slow, () => {
  it('says a directory given as the program is a directory, and what it expects instead', async () => {
    mkdirSync(join(work, 'programs'));
    const { code, stderr } = await sluice('run', 'programs');
    expect(code).toBe(2);
    expect(stderr).toBe('sluice: programs is a directory; sluice run needs a program file (or - for stdin).\n');
  });

  it('shows where a tools module has a syntax error: file, line, column and the error', async () => {
    file('broken-tools.ts', "export const tools = [\n  { name: 'a.b', execute: async () => 1 ;\n];\n");
    const { code, stderr } = await sluice('run', 'calls-tool.ts', '--tools', 'broken-tools.ts');
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^sluice: The tools module broken-tools\.ts failed to load: broken-tools\.ts:2:\d+: Expected "}" but found ";"\n/,
    );
  });

  it('adds, on stderr, that no tools were given when a program without --tools names an undefined identifier', async () => {
    const typescript = await sluice('run', 'calls-tool.ts');
    expect(typescript.code).toBe(1);
    expect(typescript.stderr).toContain(
      'sluice: the program failed (exception): ReferenceError: issues is not defined',
    );
    expect(typescript.stderr).toContain(
      'sluice: issues is not defined: no tools were given (--tools <module> provides them).\n',
    );
    const python = await sluice('run', 'calls-tool.py');
    expect(python.code).toBe(1);
    expect(python.stderr).toContain("NameError: name 'issues' is not defined");
    expect(python.stderr).toContain('sluice: issues is not defined: no tools were given');
    // With --json the result on stdout is the program's, unchanged; the hint is on stderr only.
    const json = await sluice('run', 'calls-tool.ts', '--json');
    expect(JSON.parse(json.stdout).failure.message).toMatch(/^ReferenceError: issues is not defined/);
    expect(json.stderr).toContain('no tools were given');
    // With tools given, a misspelt name is the program's own mistake: no hint.
    const withTools = await sluice('run', 'undefined-name.ts', '--tools', 'tools.ts');
    expect(withTools.code).toBe(1);
    expect(withTools.stderr).not.toContain('no tools were given');
  });

  it('says a TypeScript syntax error on stdin looks like Python, and names --language python', async () => {
    const python = 'import json\n\ndef double(x):\n    return x * 2\n\nfor i in range(2):\n    print(double(i))\n';
    const { code, stderr } = await sluicePiped(python, 'run', '-');
    expect(code).toBe(1);
    expect(stderr).toContain('sluice: the program failed (exception): SyntaxError');
    expect(stderr).toContain(
      'sluice: the program on stdin looks like Python; sluice run - reads TypeScript unless told: add --language python.\n',
    );
    // print('hi') compiles as TypeScript; it fails as an undefined name, and is Python all the same.
    const printed = await sluicePiped("print('hi')\n", 'run', '-');
    expect(printed.stderr).toContain('looks like Python');
    expect(printed.stderr).not.toContain('no tools were given');
    const typescript = await sluicePiped('const x = ;\nreturn x;', 'run', '-');
    expect(typescript.code).toBe(1);
    expect(typescript.stderr).not.toContain('looks like Python');
    const told = await sluicePiped(python, 'run', '-', '--language', 'python');
    expect(told.stdout).toBe('0\n2\n');
    expect(told.code).toBe(0);
  });

  it('warns about a policy pattern that names no tool of the tools module, as sluice mcp does', async () => {
    file(
      'typo-policy.json',
      JSON.stringify({
        default: 'allow',
        rules: [
          { tool: 'issues.clsoe', effect: 'deny' },
          { tool: 'issues.*', effect: 'allow' },
        ],
      }),
    );
    const { code, stderr } = await sluice(
      'run',
      'calls-tool.ts',
      '--tools',
      'tools.ts',
      '--policy',
      'typo-policy.json',
    );
    expect(code).toBe(0);
    expect(stderr).toContain(
      'sluice: warning: typo-policy.json rules[0].tool "issues.clsoe" names no tool of tools.ts, so its rule never applies\n',
    );
    expect(stderr).not.toContain('"issues.*"');
  });
});

// `script` gives the command a terminal, as a person at a shell has one.
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

describe('sluice run - at a terminal', slow, () => {
  it.skipIf(!hasScript)('says how to end the program, and shows no progress line while it waits for it', async () => {
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(sluiceBin)} run -`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: work, stdio: ['pipe', 'pipe', 'pipe'] });
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
    });
    const done = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      // Long past the progress line's 300 ms, while the command waits for its program.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const waiting = seen;
      child.stdin.write('return 6 * 7\n');
      child.stdin.write('\x04');
      expect(await done).toBe(0);
      expect(waiting).toContain('sluice: reading the program from stdin; end it with Ctrl-D.');
      expect(waiting).not.toContain('running ·');
      expect(seen).toContain('42');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('sluice run on the worker-thread runtime, killed', slow, () => {
  it('leaves no sluice-worker folder in the temp directory after kill -9', async () => {
    const temp = mkdtempSync(join(work, 'tmp-'));
    file('forever.ts', "console.log('started');\nwhile (true) {}");
    const child = spawn(process.execPath, [sluiceBin, 'run', 'forever.ts'], {
      cwd: work,
      env: { ...process.env, TMPDIR: temp },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const done = new Promise((resolve) => child.on('close', resolve));
    const workerFolders = () => readdirSync(temp).filter((name) => name.startsWith('sluice-worker-'));
    while (!stdout.includes('started')) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(workerFolders()).not.toEqual([]);
    child.kill('SIGKILL');
    await done;
    // The folders go once the host is gone; bounded, since the cleaner needs a moment to see it.
    for (let waited = 0; waited < 5_000 && workerFolders().length > 0; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(workerFolders()).toEqual([]);
    expect(existsSync(temp)).toBe(true);
  });
});

describe('sluice run --run-store, paused, as a newcomer continues it', slow, () => {
  /** Runs `command` (its words) in `work` from a shell with no `sluice` on its PATH and no npm around it. */
  function fromPlainShell(command: readonly string[]): Promise<FinishedSluice> {
    const env: NodeJS.ProcessEnv = { PATH: '/usr/bin:/bin', HOME: process.env.HOME };
    const [program, ...args] = command;
    const executable = program === 'node' ? process.execPath : program!;
    const child = spawn(executable, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => {
      output.stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output.stderr += chunk.toString('utf8');
    });
    return new Promise((resolve) => {
      child.on('error', (error) => resolve({ code: null, stdout: '', stderr: String(error) }));
      child.on('close', (code) => resolve({ code, ...output }));
    });
  }

  it('prints a resume command that runs as pasted, started the way the first command was', async () => {
    file(
      'ask-policy.json',
      JSON.stringify({
        default: 'allow',
        rules: [{ tool: 'issues.close', effect: 'ask', description: 'a person decides' }],
      }),
    );
    file('closes.ts', "await issues.close({ id: 'A-1' });\nreturn 'done';");
    const bin = relative(work, sluiceBin);
    const paused = await fromPlainShell(
      // A wall clock for a loaded machine: the embedded store starts inside the run.
      [
        'node',
        bin,
        'run',
        'closes.ts',
        '--tools',
        'tools.ts',
        '--policy',
        'ask-policy.json',
        '--run-store',
        'runs',
      ].concat(['--wall-time-ms', '120000']),
    );
    expect(paused.code, paused.stderr).toBe(3);
    const line = paused.stderr.split('\n').find((text) => text.startsWith('sluice: continue with: '));
    expect(line).toBeDefined();
    const command = line!.slice('sluice: continue with: '.length).split(' ');
    expect(command.slice(0, 3)).toEqual(['node', bin, 'resume']);
    const resumed = await fromPlainShell(command);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('"done"\n');
  });
});
