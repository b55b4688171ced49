import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The command, spawned the way a user runs it: `npx sluice` runs bin/sluice.js, which loads the
// built dist/bin.js (`npm test` builds before testing).
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(packageDir, 'bin', 'sluice.js');
const built = join(packageDir, 'dist', 'bin.js');
const work = mkdtempSync(join(tmpdir(), 'sluice-cli-e2e-'));
// Each case starts a fresh Node process (and maybe Python): generous, for a loaded two-core machine.
const slow = { timeout: 60_000 };

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function start(
  args: readonly string[],
  entry = bin,
  options: { readonly stdin?: 'pipe'; readonly detached?: boolean; readonly env?: NodeJS.ProcessEnv } = {},
): { child: ChildProcess; output: { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [entry, ...args], {
    cwd: work,
    ...(options.env === undefined ? {} : { env: options.env }),
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString('utf8');
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString('utf8');
  });
  return { child, output };
}

function finished(child: ChildProcess, output: { stdout: string; stderr: string }): Promise<Finished> {
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, ...output })));
}

function sluice(...args: string[]): Promise<Finished> {
  const { child, output } = start(args);
  return finished(child, output);
}

function file(name: string, text: string): string {
  writeFileSync(join(work, name), text);
  return name;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

beforeAll(() => {
  if (!existsSync(built)) throw new Error(`${built} is missing: build @sluice/cli first (npm test does).`);
  file(
    'tools.ts',
    `import { existsSync } from 'node:fs';
interface CityInput { city: string }
export const tools = [
  {
    name: 'weather.forecast',
    description: 'Chance of rain tomorrow.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    outputSchema: { type: 'object', properties: { city: { type: 'string' }, rain: { type: 'number' } } },
    execute: async (input: CityInput) => ({ city: input.city, rain: input.city.length / 10 }),
  },
  {
    name: 'gate.wait',
    description: 'Resolves once the named file exists.',
    inputSchema: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
    execute: async (input: { file: string }, { signal }: { signal: AbortSignal }) => {
      while (!existsSync(input.file) && !signal.aborted) await new Promise((resolve) => setTimeout(resolve, 20));
      return 'open';
    },
  },
  {
    name: 'clock.sleep',
    description: 'Waits ms milliseconds.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
    execute: (input: { ms: number }) => new Promise((resolve) => setTimeout(() => resolve(input.ms), input.ms)),
  },
  {
    name: 'admin.reset',
    description: 'Resets everything.',
    inputSchema: { type: 'object' },
    execute: async () => 'reset',
  },
];
`,
  );
  file(
    'fan-out.ts',
    `const cities: string[] = ['Oslo', 'Lima', 'Reykjavik'];
const all = await Promise.all(cities.map((city) => weather.forecast({ city })));
console.log('checked', all.length, 'cities');
console.warn('careful');
return all.filter((entry) => entry.rain > 0.5).map((entry) => entry.city);`,
  );
  file('plain.js', "console.log('from js'); return 6 * 7;");
  file(
    'fan-out.py',
    `results = await asyncio.gather(*(weather.forecast(city=city) for city in ["Oslo", "Reykjavik"]))
print("checked", len(results))
return [entry["city"] for entry in results if entry["rain"] > 0.5]`,
  );
  file('throws.ts', "console.log('about to fail');\nthrow new Error('no such city');");
  file('reset.ts', 'return await admin.reset({});');
  file(
    'policy.json',
    JSON.stringify({ default: 'allow', rules: [{ tool: 'admin.*', effect: 'deny', reason: 'admin tools are off' }] }),
  );
  file('bad-policy.json', JSON.stringify({ default: 'maybe', rules: [] }));
  file('not-json.json', '{ "default": ');
  file('empty-tools.ts', 'export const answer = 42;');
  file('empty.ts', '  \n');
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('sluice (the built command)', slow, () => {
  it('prints help naming every command and exits 0, and each command prints its own', async () => {
    const { code, stdout } = await sluice('--help');
    expect(code).toBe(0);
    expect(stdout).toContain('sluice run <program.ts|.js|.py|->');
    expect(stdout).toMatch(/^ {2}mcp +Serves MCP/m);
    const run = await sluice('run', '--help');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: sluice run /);
    expect(run.stdout).toContain('--cpu-time-ms <ms>');
    const mcp = await sluice('mcp', '--help');
    expect(mcp.code).toBe(0);
    expect(mcp.stdout + mcp.stderr).toMatch(/^Usage: sluice mcp --config/);
    expect(stdout).toMatch(/^ {2}console +Serves the operator console/m);
    const console = await sluice('console', '--help');
    expect(console.code).toBe(0);
    expect(console.stdout).toMatch(/^Usage: sluice console --run-store/);
  });

  it('serves the console of a store with sluice console, printing its URL, until Ctrl-C', async () => {
    const { child, output } = start(['console', '--run-store', 'console-runs', '--port', '0'], bin, {});
    const done = finished(child, output);
    await until(() => /^http:\/\/127\.0\.0\.1:\d+\/console\/$/m.test(output.stdout));
    const url = output.stdout.trim();
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await page.text()).toContain('No runs match.');
    child.kill('SIGINT');
    expect((await done).code).toBe(0);
  });

  it('runs a program piped on stdin when the program is -', async () => {
    const { child, output } = start(['run', '-', '--tools', 'tools.ts'], bin, { stdin: 'pipe' });
    child.stdin!.end("const { rain } = await weather.forecast({ city: 'Lima' });\nreturn rain;");
    const { code, stdout, stderr } = await finished(child, output);
    expect(stderr).toMatch(/^sluice: ok · /);
    expect(code).toBe(0);
    expect(stdout).toBe('0.4\n');
  });

  it('exits 130 on Ctrl-C after cancelling the run and stopping its sandbox', async () => {
    file('held.ts', "console.log('holding');\nawait gate.wait({ file: 'never-created' });\nwhile (true) {}");
    // Its own process group, signalled as a whole, as a terminal does on Ctrl-C.
    const { child, output } = start(['run', 'held.ts', '--tools', 'tools.ts'], bin, { detached: true });
    const done = finished(child, output);
    try {
      await until(() => output.stdout.includes('holding'));
      process.kill(-child.pid!, 'SIGINT');
      const { code, stderr } = await done;
      // The run ended as a cancelled run (its result printed), and the process then left on its own.
      expect(stderr).toContain('sluice: the program failed (abort): The run was cancelled: interrupted with Ctrl-C.');
      expect(code).toBe(130);
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  });

  it('exits 130 on Ctrl-C while it waits for a program on stdin', async () => {
    const { child, output } = start(['run', '-', '--verbose'], bin, { stdin: 'pipe' });
    const done = finished(child, output);
    try {
      // --verbose prints the budgets before reading the program: stdin is being read from then on.
      await until(() => output.stderr.includes('sluice: isolation: '));
      child.kill('SIGINT');
      const { code, stderr } = await done;
      expect(stderr).toContain('sluice: Interrupted while reading the program from stdin.');
      expect(code).toBe(130);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('runs from the built file directly too', async () => {
    const { child, output } = start(['--version'], built);
    const { code, stdout } = await finished(child, output);
    expect(code).toBe(0);
    expect(stdout).toBe('0.0.0\n');
  });

  it('runs a TypeScript program against a TypeScript tools module: logs, value, usage line, exit 0', async () => {
    const { code, stdout, stderr } = await sluice('run', 'fan-out.ts', '--tools', 'tools.ts');
    expect(code).toBe(0);
    expect(stdout).toBe('checked 3 cities\n[\n  "Reykjavik"\n]\n');
    expect(stderr).toMatch(/^careful\nsluice: ok · \d+ ms · .*3 host calls · 2 log lines\n$/);
  });

  it('runs a TypeScript program on the QuickJS provider with --runtime quickjs, budget flags applied', async () => {
    const { code, stdout, stderr } = await sluice(
      'run',
      'fan-out.ts',
      '--tools',
      'tools.ts',
      '--runtime',
      'quickjs',
      '--memory-bytes',
      '10485760',
      '--verbose',
    );
    expect(code).toBe(0);
    expect(stdout).toBe('checked 3 cities\n[\n  "Reykjavik"\n]\n');
    expect(stderr).toMatch(/^sluice: quickjs runtime · .*memory-bytes 10485760 /);
    expect(stderr).toContain('sluice: isolation: Each run gets a fresh QuickJS-ng runtime');
    expect(stderr).toMatch(/\nsluice: ok · \d+ ms · .*3 host calls · 2 log lines\n$/);
  });

  it("describes the QuickJS provider's limits with declarations --runtime quickjs", async () => {
    const quickjs = await sluice('declarations', '--tools', 'tools.ts', '--runtime', 'quickjs');
    expect(quickjs.code).toBe(0);
    expect(quickjs.stdout).toContain('- Memory: 64 MiB.');
    const workerThread = await sluice('declarations', '--tools', 'tools.ts');
    expect(workerThread.stdout).toContain('- Memory: 128 MiB.');
  });

  it('draws no progress line when stderr is not a terminal, even for a run long enough to get one', async () => {
    file('sleepy.ts', 'await clock.sleep({ ms: 800 });');
    const { code, stderr } = await sluice('run', 'sleepy.ts', '--tools', 'tools.ts');
    expect(code).toBe(0);
    expect(stderr).not.toContain('\x1b');
    expect(stderr).not.toContain('running ·');
  });

  it('runs a JavaScript program with no tools', async () => {
    const { code, stdout } = await sluice('run', 'plain.js');
    expect(code).toBe(0);
    expect(stdout).toBe('from js\n42\n');
  });

  it('runs a Python program against the same tools', async () => {
    const { code, stdout, stderr } = await sluice('run', 'fan-out.py', '--tools', 'tools.ts');
    expect(stderr).toMatch(/sluice: ok · /);
    expect(code).toBe(0);
    expect(stdout).toBe('checked 2\n[\n  "Reykjavik"\n]\n');
  });

  it('prints a failure on stderr and exits 1', async () => {
    const { code, stdout, stderr } = await sluice('run', 'throws.ts');
    expect(code).toBe(1);
    expect(stdout).toBe('about to fail\n');
    expect(stderr).toMatch(/^sluice: the program failed \(exception\): .*no such city.*\n {2}at line 2, column \d+\n/);
    expect(stderr).toMatch(/sluice: failed: exception · /);
  });

  it('prints the whole result as JSON with --json, and nothing else on stdout', async () => {
    const { code, stdout } = await sluice('run', 'fan-out.ts', '--tools', 'tools.ts', '--json');
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ ok: true, value: ['Reykjavik'], logsTruncated: false });
    expect(result.logs).toEqual([
      { level: 'log', text: 'checked 3 cities' },
      { level: 'warn', text: 'careful' },
    ]);
    expect(result.calls).toHaveLength(3);
  });

  it('applies a policy file: a denied call fails in the program with the reason', async () => {
    const { code, stderr } = await sluice('run', 'reset.ts', '--tools', 'tools.ts', '--policy', 'policy.json');
    expect(code).toBe(1);
    expect(stderr).toContain('Permission denied: admin.reset is not allowed: admin tools are off.');
  });

  it('streams logs while the program is still running', async () => {
    const flag = join(work, 'gate-open');
    file(
      'gated.ts',
      `console.log('before');\nawait gate.wait({ file: ${JSON.stringify(flag)} });\nconsole.log('after');`,
    );
    const { child, output } = start(['run', 'gated.ts', '--tools', 'tools.ts']);
    const done = finished(child, output);
    await until(() => output.stdout.includes('before'));
    expect(child.exitCode).toBeNull();
    expect(output.stdout).not.toContain('after');
    writeFileSync(flag, '');
    const { code, stdout } = await done;
    expect(code).toBe(0);
    expect(stdout).toBe('before\nafter\n');
  });

  it('prints what the model reads for a tools module, in TypeScript and in Python', async () => {
    const typescript = await sluice('declarations', '--tools', 'tools.ts');
    expect(typescript.code).toBe(0);
    expect(typescript.stdout).toContain('Run a TypeScript program');
    expect(typescript.stdout).toContain('declare const weather: {');
    expect(typescript.stdout).toMatch(/- Wall clock: \d+ s per run/);
    const python = await sluice(
      'declarations',
      '--tools',
      'tools.ts',
      '--language',
      'python',
      '--policy',
      'policy.json',
    );
    expect(python.code).toBe(0);
    expect(python.stdout).toContain('async def forecast(*, city: str) -> ForecastOutput:');
    expect(python.stdout).not.toContain('reset');
    expect(python.stderr).toMatch(/^sluice: 4 tools, all declared in full, \d+ tokens of declarations/);
  });

  it('answers each bad input with one sentence and exit 2', async () => {
    const cases: [string[], string][] = [
      [
        [],
        'sluice: Name a command: run, resume, declarations, demo, mcp, serve or console.\nRun "sluice --help" for usage.\n',
      ],
      [
        ['run', 'fan-out.ts', '--fast'],
        'sluice: Unknown option --fast for sluice run.\nRun "sluice run --help" for usage.\n',
      ],
      [
        ['run', 'fan-out.ts', '--memory-bytes', '1024'],
        'sluice: Bad --memory-bytes: Setting memoryBytes must be an integer from 16777216 to 17179869184, got 1024.\n',
      ],
      [
        ['run', 'fan-out.ts', '--runtime', 'quickjs', '--memory-bytes', '1024'],
        'sluice: Bad --memory-bytes: Setting memoryBytes must be an integer from 8388608 to 1073741824, got 1024.\n',
      ],
      [['run', 'fan-out.ts', '--runtime', 'v8'], 'sluice: --runtime must be worker-thread or quickjs, got "v8".\n'],
      [
        ['run', 'fan-out.py', '--runtime', 'quickjs'],
        'sluice: --runtime quickjs runs TypeScript and JavaScript; Python programs have one runtime.\n',
      ],
      [['run', 'missing.ts'], 'sluice: The program missing.ts does not exist.\n'],
      [
        ['run', 'policy.json'],
        'sluice: sluice run needs a .ts, .js or .py program (or --language), got policy.json.\n',
      ],
      [['run', 'empty.ts'], 'sluice: The program empty.ts is empty.\n'],
      [['run', 'plain.js', '--tools', 'nowhere.ts'], 'sluice: The tools module nowhere.ts does not exist.\n'],
      [['run', 'plain.js', '--tools', 'empty-tools.ts'], 'sluice: The tools module empty-tools.ts exports no tools'],
      [['run', 'plain.js', '--policy', 'bad-policy.json'], 'sluice: Bad policy: bad-policy.json: '],
      [['run', 'plain.js', '--policy', 'not-json.json'], 'sluice: Bad policy: not-json.json: Policy is not valid JSON'],
      [['run', 'plain.js', '--policy', 'absent.json'], 'sluice: The policy file absent.json does not exist.\n'],
    ];
    const outcomes = await Promise.all(cases.map(([args]) => sluice(...args)));
    for (const [index, [args, message]] of cases.entries()) {
      const { code, stdout, stderr } = outcomes[index]!;
      expect({ args, code }).toEqual({ args, code: 2 });
      expect(stdout).toBe('');
      expect(stderr.startsWith(message)).toBe(true);
      expect(stderr.split('\n').filter((line) => line !== '').length).toBeLessThanOrEqual(2);
    }
  });

  it('runs the demo: both languages, a denied call on QuickJS, a wall-clock timeout, and the round trips replaced', async () => {
    const { code, stdout, stderr } = await sluice('demo');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('1. TypeScript: fan out, filter, aggregate');
    expect(stdout).toContain('2. Python: fan out with asyncio.gather, filter, aggregate');
    expect(stdout).toMatch(
      /Permission denied: issues\.close is not allowed: PAY issues are closed by the payments team/,
    );
    expect(stdout).toMatch(/3\. TypeScript: a call the policy denies =+\n.* It runs on the QuickJS runtime/);
    expect(stdout).toMatch(/\[run_code\] failed: timeout · /);
    expect(stdout).toMatch(/The 4 programs made (\d+) tool calls\./);
    expect(stdout).not.toContain('(demo: expected');
  });
});

describe('sluice run leaves nothing behind', () => {
  it('removes the full text of a cut result when the command ends', slow, async () => {
    const temp = mkdtempSync(join(work, 'tmp-'));
    const { child, output } = start(['run', file('long.ts', 'return "x".repeat(200_000);'), '--quiet'], bin, {
      env: { ...process.env, TMPDIR: temp },
    });
    const done = await finished(child, output);
    expect(done.code).toBe(0);
    expect(done.stdout.length).toBeGreaterThan(200_000);
    expect(readdirSync(temp).filter((name) => name.startsWith('sluice-results-'))).toEqual([]);
  });
});
