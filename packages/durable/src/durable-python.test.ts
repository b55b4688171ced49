import { createPythonCodeRuntime, type PythonCodeRuntime } from '@sluice/code-runtime-python';
import type { PolicyRule, Tool } from '@sluice/permissions';
import { createPGliteRunStore, type RunStore } from '@sluice/run-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectPauseAndReplay,
  expectReplayOfJournaledCalls,
  okValue,
  payAsks,
  slowSearchTools,
} from './__fixtures__/durable-test-kit.js';
import { createDurableRuns } from './index.js';

// The Python provider's deterministic mode under durable runs: the same journal, replay and pause as
// on QuickJS (durable-runs.test.ts), in a CPython child forked from the zygote.

let runtime: PythonCodeRuntime;
let store: RunStore;

beforeAll(async () => {
  runtime = createPythonCodeRuntime({ wallTimeMs: 10_000 });
  store = createPGliteRunStore();
  await Promise.all([store.readValues('warm-up'), runtime.run({ program: 'return 1' })]);
}, 60_000);

afterAll(async () => {
  await runtime.dispose();
  await store.close();
});

function durableRuns(tools: Tool[], rules: PolicyRule[] = []) {
  return createDurableRuns({ runtime, store, tools, policy: { default: 'allow', rules } });
}

describe('durable runs on the python runtime', () => {
  it('records the fingerprint of the python runtime', () => {
    expect(durableRuns([]).fingerprint).toMatch(/^cpython-[^:]+:[0-9a-f]{32}\+durable-/);
  });

  it('replays journaled calls on resume, gather included, and gives the value the first run would have', async () => {
    const { invoked, tool } = slowSearchTools();
    const runs = durableRuns([tool('search'), tool('fetch')]);
    const program = `
import random, time
order = []

async def one(name):
    reply = await (tools.search({'q': 'one'}) if name == 'search' else tools.fetch({'id': 2}))
    order.append(name)
    return reply['n']

a, b = await asyncio.gather(one('search'), one('fetch'))
c = (await tools.search({'q': 'three', 'at': time.time_ns() // 1000000}))['n']
return {'a': a, 'b': b, 'c': c, 'order': order, 'at': time.time_ns() // 1000000, 'r': random.random()}`;
    await expectReplayOfJournaledCalls(runs, store, 'python', program, invoked);
  }, 60_000);

  it('pauses on ask and resumes by replay, with the clock and randomness the first run had', async () => {
    const { invoked, tool } = slowSearchTools();
    const runs = durableRuns([tool('lookup'), tool('pay')], payAsks);
    const program = `
import json, random, time, uuid
seen = await tools.lookup({})
before = {'at': time.time_ns() // 1000000, 'r': random.random(), 'id': str(uuid.uuid4())}
print('before', json.dumps(before))
await asyncio.sleep(1)
paid = await tools.pay({'amount': 40})
print('after', paid['n'])
return {'before': before, 'paid': paid['input']['amount'], 'waited': time.time_ns() // 1000000 - before['at'], 'lookup': seen['n']}`;
    await expectPauseAndReplay(runs, program, invoked);
  }, 60_000);

  it('keeps values with sluice.store and reads them with sluice.load in the next run of the conversation', async () => {
    const runs = durableRuns([]);
    const conversation = `c-${Math.random()}`;
    const first = await runs.start({
      conversation,
      program: `await sluice.store('seen', {'ids': [1, 2]})\nreturn await sluice.load('seen')`,
    });
    expect(okValue(first)).toEqual({ ids: [1, 2] });
    const second = await runs.start({ conversation, program: `return await sluice.load('seen')` });
    expect(okValue(second)).toEqual({ ids: [1, 2] });
    const failed = await runs.start({ conversation, program: `await sluice.store('x', 1)\nraise ValueError('no')` });
    expect(failed.result.ok).toBe(false);
    expect(await store.readValues(conversation)).toEqual({ seen: { ids: [1, 2] } });
  }, 60_000);
});
