import type { CodeRuntime } from '@sluice/code-runtime';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { durableVersion } from '@sluice/durable';
import type { PolicyDefinition, Tool } from '@sluice/permissions';
import { createPGliteRunStore, type RunStore } from '@sluice/run-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunCodeTool, type RunCodeToolOptions } from './run-code-tool.js';

let runtime: CodeRuntime;
let store: RunStore;

beforeAll(async () => {
  runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 10_000 });
  store = createPGliteRunStore();
  // The embedded database and the engine load on first use: seconds on a busy machine.
  await Promise.all([store.readValues('warm-up'), runtime.run({ program: 'return 1' })]);
}, 60_000);

afterAll(async () => {
  await runtime.dispose();
  await store.close();
});

const policy: PolicyDefinition = {
  default: 'allow',
  rules: [{ tool: 'pay', effect: 'ask', description: 'payments need a person' }],
};

/** A lookup and a payment that count their invocations, so a replayed call is told from a live one. */
function payTools() {
  const paid: unknown[] = [];
  const tools: Tool[] = [
    {
      name: 'lookup',
      description: 'Finds an invoice.',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      execute: (input) => ({ id: (input as { id: string }).id, amount: 40 }),
    },
    {
      name: 'pay',
      description: 'Pays an amount.',
      inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
      execute: (input) => {
        paid.push(input);
        return { receipt: `r-${paid.length}` };
      },
    },
  ];
  return { paid, tools };
}

function durableTool(overrides: Partial<RunCodeToolOptions> = {}, conversation?: string) {
  const { paid, tools } = payTools();
  const runCode = createRunCodeTool({
    context: { codeRuntime: runtime },
    tools,
    policy,
    durable: { store, ...(conversation === undefined ? {} : { conversation }) },
    ...overrides,
  });
  return { paid, runCode };
}

const payProgram = `
const invoice = await tools.lookup({ id: 'inv-7' });
console.log('paying', invoice.id);
const { receipt } = await tools.pay({ amount: invoice.amount });
console.log('paid');
return receipt;`;

describe('run_code with durable runs', () => {
  it('renders a paused run for the model without its token, and gives the token to the host', async () => {
    const { paid, runCode } = durableTool();
    const outcome = await runCode.run({ code: payProgram });
    expect(outcome.durable?.status).toBe('paused');
    if (outcome.durable?.status !== 'paused') return;
    const { token } = outcome.durable.pause;
    expect(outcome.durable.pause).toMatchObject({ binding: 'tools.pay', input: { amount: 40 } });
    const text = outcome.rendered.text;
    expect(text).toMatch(/^\[run_code\] paused: waiting for approval · \d+ ms so far · 1 log line\n/);
    expect(text).toContain('waiting for a person to approve tools.pay({"amount":40}): payments need a person.');
    expect(text).toContain('The run continues on its own once they decide');
    expect(text).toContain('--- logs so far ---\npaying inv-7\n');
    expect(text).not.toContain(token);
    expect(JSON.stringify(outcome.structured)).not.toContain(token);
    expect(paid).toEqual([]);
  });

  it('continues a paused run on decide and renders its result, the tool run once, the same when decided twice', async () => {
    const { paid, runCode } = durableTool();
    const paused = await runCode.run({ code: payProgram });
    if (paused.durable?.status !== 'paused') throw new Error(paused.rendered.text);
    const done = await runCode.decide(paused.durable.pause.token, { decision: 'allow' });
    expect(done.durable?.status).toBe('finished');
    expect(done.rendered.text).toMatch(/^\[run_code\] ok · /);
    expect(done.rendered.text).toContain('--- logs ---\npaying inv-7\npaid\n--- value (JSON) ---\n"r-1"');
    expect(done.structured).toMatchObject({ ok: true, value: 'r-1' });
    expect(paid).toEqual([{ amount: 40 }]);

    const again = await runCode.decide(paused.durable.pause.token, { decision: 'deny' });
    expect(again.rendered.text).toBe(done.rendered.text);
    expect(paid).toHaveLength(1);
  });

  it('replays a run that loaded the built-ins polyfill the same way: the same random draws, the same call', async () => {
    const { paid, runCode } = durableTool();
    const code = `const invoices = [{ id: 'a', status: 'due', amount: 40 }, { id: 'b', status: 'paid', amount: 5 }, { id: 'c', status: 'due', amount: 2 }];
const before = Math.random();
const groups = Object.groupBy(invoices, (invoice) => invoice.status);
const statuses = [...new Set(['due']).union(new Set(invoices.map((invoice) => invoice.status)))];
const after = Math.random();
console.log('due', groups.due.length, before, after);
const { receipt } = await tools.pay({ amount: groups.due.values().map((invoice) => invoice.amount).reduce((sum, amount) => sum + amount, 0) });
return { receipt, statuses, before, after };`;
    const paused = await runCode.run({ code });
    if (paused.durable?.status !== 'paused') throw new Error(paused.rendered.text);
    expect(paused.durable.pause.input).toEqual({ amount: 42 });
    const logged = (paused.result?.logs ?? []).map((line) => line.text);
    const done = await runCode.decide(paused.durable.pause.token, { decision: 'allow' });
    expect(done.durable?.status, done.rendered.text).toBe('finished');
    expect(done.result?.logs.map((line) => line.text)).toEqual(logged);
    const [, , before, after] = logged[0]!.split(' ').map(Number);
    expect(done.structured).toMatchObject({
      ok: true,
      value: { receipt: 'r-1', statuses: ['due', 'paid'], before, after },
    });
    expect(paid).toEqual([{ amount: 42 }]);
  });

  it('gives the program the denial and its reason when the person denies the call', async () => {
    const { paid, runCode } = durableTool();
    const paused = await runCode.run({
      code: `try { await tools.pay({ amount: 5 }); } catch (error) { return error.message; }`,
    });
    if (paused.durable?.status !== 'paused') throw new Error(paused.rendered.text);
    const done = await runCode.decide(paused.durable.pause.token, { decision: 'deny', reason: 'over budget' });
    expect(done.rendered.text).toMatch(/over budget/);
    expect(paid).toEqual([]);
  });

  it('keeps values with sluice.store for the next run of the conversation, and says so in the description', async () => {
    const conversation = `conversation-${Math.random().toString(36).slice(2)}`;
    const { runCode } = durableTool({}, conversation);
    expect(runCode.description).toContain('`await sluice.store(key, value)` keeps a JSON value');
    const first = await runCode.run({ code: `await sluice.store('seen', ['inv-7']); return 'kept';` });
    expect(first.rendered.text).toMatch(/^\[run_code\] ok · /);
    const second = await runCode.run({ code: `return await sluice.load('seen');` });
    expect(second.result).toMatchObject({ ok: true, value: ['inv-7'] });

    const elsewhere = durableTool({}, `${conversation}-other`).runCode;
    expect((await elsewhere.run({ code: `return await sluice.load('seen');` })).result).toMatchObject({ value: null });
    expect(durableTool().runCode.description).not.toContain('sluice.store');
    expect(createRunCodeTool({ context: { codeRuntime: runtime }, tools: [], policy }).description).not.toContain(
      'sluice.store',
    );
  });

  it('passes a call with no argument as {} to a tool whose input properties are all optional, as without durable', async () => {
    const list: Tool = {
      name: 'list_invoices',
      description: 'Lists invoices.',
      inputSchema: { type: 'object', properties: { status: { type: 'string' } } },
      execute: (input) => ({ got: input }),
    };
    const { runCode } = durableTool({ tools: [list] });
    const outcome = await runCode.run({ code: 'return await tools.list_invoices();' });
    expect(outcome.result).toMatchObject({ ok: true, value: { got: {} } });
  });

  it('renders a replay that took another path as a failure naming both calls', async () => {
    const { paid, runCode } = durableTool();
    const runId = `durable_test_${Math.random().toString(36).slice(2)}`;
    // A run as a host leaves it when it dies after its first call: the journal holds another call.
    await store.createRun(
      {
        runId,
        program: 'return await tools.pay({ amount: 1 });',
        language: 'typescript',
        seed: 1,
        startTime: 1_700_000_000_000,
        fingerprint: `${runtime.determinism?.fingerprint}+durable-${durableVersion}`,
        metadata: { values: {} },
      },
      'a-host-that-died',
      1,
    );
    await store.recordIntent(runId, 1, { namespace: 'tools', name: 'lookup', input: { id: 'inv-1' } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const outcome = await runCode.resume(runId);
    expect(outcome.durable?.status).toBe('diverged');
    expect(outcome.rendered.text).toMatch(/^\[run_code\] failed: diverged · /);
    expect(outcome.rendered.text).toMatch(
      /stopped\. The program took another path than its journal: call 1 was tools\.lookup\(.*\) when the run started, and is tools\.pay\(/,
    );
    expect(paid).toEqual([]);
  });

  it('is refused at creation over a runtime that cannot replay, and decide is refused without durable', async () => {
    const plain = { ...runtime, id: 'worker-thread', determinism: undefined } as unknown as CodeRuntime;
    expect(() => createRunCodeTool({ context: { codeRuntime: plain }, tools: [], policy, durable: { store } })).toThrow(
      /worker-thread code runtime cannot run a program deterministically.*createQuickJsCodeRuntime/,
    );
    const plainTool = createRunCodeTool({ context: { codeRuntime: runtime }, tools: [], policy });
    await expect(plainTool.decide('pause_x', { decision: 'allow' })).rejects.toThrow(/durable option/);
    await expect(durableTool().runCode.decide('pause_unknown', { decision: 'allow' })).rejects.toThrow(
      /no pause with this token/,
    );
  });
});
