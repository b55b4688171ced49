import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FinishedSluice, runSluice } from './cli-process.test-helper.js';

// The built command, as a user runs it, over a run store in a temporary directory.
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'sluice-cli-durable-'));
// Each command starts Node, the embedded database and QuickJS: seconds each on a loaded two-core machine.
const slow = { timeout: 120_000 };

function sluice(...args: string[]): Promise<FinishedSluice> {
  return runSluice(args, work);
}

/** The payments the tools module made, one line each: a replayed call would not add one. */
function payments(): string[] {
  const file = join(work, 'payments.log');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
}

const stored = ['--run-store', 'runs', '--tools', 'tools.mjs', '--policy', 'policy.json'];

beforeAll(() => {
  if (!existsSync(join(packageDir, 'dist', 'bin.js'))) throw new Error('Build @sluice/cli first (npm test does).');
  writeFileSync(
    join(work, 'tools.mjs'),
    `import { appendFileSync } from 'node:fs';
export const tools = [
  {
    name: 'invoices.find',
    description: 'Finds an invoice.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    execute: ({ id }) => ({ id, amount: 40 }),
  },
  {
    name: 'payments.pay',
    description: 'Pays an invoice.',
    inputSchema: { type: 'object', properties: { invoice: { type: 'string' }, amount: { type: 'number' } } },
    execute: (input) => {
      appendFileSync('payments.log', JSON.stringify(input) + '\\n');
      return { receipt: 'r-' + input.invoice };
    },
  },
];
`,
  );
  writeFileSync(
    join(work, 'policy.json'),
    JSON.stringify({
      default: 'allow',
      rules: [{ tool: 'payments.*', effect: 'ask', description: 'payments need a person' }],
    }),
  );
  writeFileSync(
    join(work, 'pay.ts'),
    `const invoice = await invoices.find({ id: 'inv-7' });
console.log('paying', invoice.id);
const { receipt } = await payments.pay({ invoice: invoice.id, amount: invoice.amount });
return receipt;`,
  );
  writeFileSync(
    join(work, 'count.ts'),
    "const seen = (await sluice.load('seen')) ?? 0;\nawait sluice.store('seen', seen + 1);\nreturn seen + 1;",
  );
  writeFileSync(join(work, 'count.py'), 'return 1');
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('sluice run --run-store and sluice resume (the built command)', slow, () => {
  it('pauses on an ask, prints the token and the command that continues, and exits 3; resume --allow runs the call once, twice the same', async () => {
    const paused = await sluice('run', 'pay.ts', '--runtime', 'quickjs', ...stored);
    expect(paused.stdout).toBe('paying inv-7\n');
    expect(paused.stderr).toMatch(/^sluice: durable run durable_[\w-]+ in runs\n/);
    expect(paused.stderr).toContain(
      'sluice: paused: payments.pay({"invoice":"inv-7","amount":40}) waits for a person\'s approval: payments need a person.\n',
    );
    const command =
      /sluice: continue with: sluice resume (pause_[\w-]+) --allow --run-store runs --tools tools\.mjs --policy policy\.json\n/.exec(
        paused.stderr,
      );
    expect(command, paused.stderr).not.toBeNull();
    expect(paused.code).toBe(3);
    expect(payments()).toEqual([]);

    const token = command![1]!;
    const waiting = await sluice('resume', '--run', /durable_[\w-]+/.exec(paused.stderr)![0], ...stored);
    expect(waiting.code).toBe(3);
    expect(waiting.stderr).toContain(`sluice resume ${token} --allow`);

    const resumed = await sluice('resume', token, '--allow', ...stored);
    expect(resumed.stdout).toBe('paying inv-7\n"r-inv-7"\n');
    expect(resumed.stderr).toMatch(/^sluice: ok · \d+ ms · .*2 host calls · 1 log line\n$/);
    expect(resumed.code).toBe(0);
    expect(payments()).toEqual(['{"invoice":"inv-7","amount":40}']);

    const again = await sluice('resume', token, '--deny', ...stored);
    expect(again).toEqual(resumed);
    expect(payments()).toHaveLength(1);
  });

  it('refuses an unknown token with one sentence and exit 2', async () => {
    const { code, stdout, stderr } = await sluice('resume', 'pause_unknown', '--allow', ...stored);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('sluice: There is no pause with this token: check the token, or the store.\n');
  });

  it('keeps sluice.store values between the runs of one --conversation', async () => {
    const count = ['run', 'count.ts', '--runtime', 'quickjs', '--run-store', 'runs', '--conversation', 'c1'];
    expect(await sluice(...count)).toMatchObject({ code: 0, stdout: '1\n' });
    expect(await sluice(...count)).toMatchObject({ code: 0, stdout: '2\n' });
  });

  it('runs a Python program durably: the python runtime replays a program exactly', async () => {
    const { code, stdout } = await sluice('run', 'count.py', '--run-store', 'runs');
    expect(code).toBe(0);
    expect(stdout).toBe('1\n');
  });
});
