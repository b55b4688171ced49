import { randomUUID } from 'node:crypto';
import type { JsonValue } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { okValue } from './__fixtures__/durable-test-kit.js';
import { useQuickJsAndStore } from './__fixtures__/quickjs-and-store.js';
import { createDurableRuns, type DurableRuns } from './index.js';

// `sluice.store` and `sluice.load` take keys and values from the program: hostile ones are refused
// with an error the program can catch, and what is kept is what the program stored.

const env = useQuickJsAndStore(1);

function durable(): DurableRuns {
  return createDurableRuns({
    runtime: env.runtime,
    store: env.store,
    tools: [],
    policy: { default: 'allow', rules: [] },
  });
}

const conversations = () => `values_${randomUUID()}`;

/** Runs `program` in a new conversation; `attempt(expression)` in it evaluates to the value or the error's message. */
async function inConversation(program: string, conversation = conversations()): Promise<JsonValue | undefined> {
  const attempt = `const attempt = async (call) => { try { return await call(); } catch (error) { return 'error: ' + error.message; } };`;
  return okValue(await durable().start({ conversation, program: `${attempt}\n${program}` }));
}

describe('durable runs: sluice.store and sluice.load with hostile input', { timeout: 30_000 }, () => {
  it('refuses keys that are not short non-empty strings', async () => {
    const value = await inConversation(`
const keys = ['', 'k'.repeat(257), 42, null, { a: 1 }, ['k']];
const out = [];
for (const key of keys) out.push(await attempt(() => sluice.store(key, 1)));
out.push(await attempt(() => sluice.load('')), await attempt(() => sluice.load(7)));
return out;`);
    expect(value).toHaveLength(8);
    for (const message of value as string[])
      expect(message).toMatch(/^error: .*key must be a non-empty string of at most 256/);
  });

  it('keeps keys named like Object.prototype members as values like any other', async () => {
    const conversation = conversations();
    const first = await inConversation(
      `
await sluice.store('__proto__', { polluted: true });
return [await sluice.load('constructor'), await sluice.load('toString'), await sluice.load('__proto__'), await sluice.load('polluted')];`,
      conversation,
    );
    expect(first).toEqual([null, null, { polluted: true }, null]);
    const next = await inConversation(
      `return [await sluice.load('__proto__'), await sluice.load('polluted')];`,
      conversation,
    );
    expect(next).toEqual([{ polluted: true }, null]);
    expect(Object.getPrototypeOf(await env.store.readValues(conversation))).toBe(Object.prototype);
  });

  it('refuses a value nested deeper than the host boundary carries, and a value whose getter throws, storing neither', async () => {
    const conversation = conversations();
    const value = (await inConversation(
      `
let deep = []; for (let i = 0; i < 600; i++) deep = [deep];
const hostile = { get secret() { throw new Error('getter ran'); } };
return [
  await attempt(() => sluice.store('deep', deep)),
  await attempt(() => sluice.store('hostile', hostile)),
  await sluice.load('deep'),
  await sluice.load('hostile'),
];`,
      conversation,
    )) as JsonValue[];
    expect(value[0]).toMatch(/^error: /);
    expect(value[1]).toMatch(/^error: .*getter ran/);
    expect(value.slice(2)).toEqual([null, null]);
    expect(await env.store.readValues(conversation)).toEqual({});
  });

  it("refuses a store that would pass the conversation's total, counting what earlier runs kept and what this one deletes", async () => {
    const conversation = conversations();
    // Four values just under a value's limit (256 Ki characters of JSON) fill most of the 1 Mi total.
    const fill = `for (const key of ['a', 'b', 'c', 'd']) await sluice.store(key, 'x'.repeat(250_000)); return 'filled';`;
    expect(await inConversation(fill, conversation)).toBe('filled');
    const value = await inConversation(
      `
const big = 'y'.repeat(100_000);
const refused = await attempt(() => sluice.store('e', big));
await sluice.store('a', null);
const stored = await attempt(() => sluice.store('e', big));
const replaced = await attempt(() => sluice.store('b', 'z'.repeat(250_000)));
return [refused, stored, replaced];`,
      conversation,
    );
    expect(value).toEqual([
      expect.stringMatching(/^error: .*would be 1100015 characters of JSON; the limit is 1048576/),
      null,
      null,
    ]);
    const kept = await env.store.readValues(conversation);
    expect(Object.keys(kept).sort()).toEqual(['b', 'c', 'd', 'e']);
    expect(kept.b).toBe('z'.repeat(250_000));
  });

  it("costs a store what its value costs, not a pass over the conversation's values", async () => {
    // A conversation of 90,000 small values (within the 1 Mi total): a run that stores 900 more
    // finishes well inside its 20 s wall clock. Measuring the whole conversation on every store took
    // over 100 ms of the host's own thread per call, and this run past two minutes.
    const values: Record<string, JsonValue> = {};
    for (let index = 0; index < 90_000; index += 1) values[`k${index}`] = index;
    const conversation = conversations();
    const runId = `durable_values_${randomUUID()}`;
    await env.store.createRun(
      {
        runId,
        conversation,
        program: `for (let i = 0; i < 900; i++) await sluice.store('n' + i, i); return await sluice.load('k89999');`,
        language: 'typescript',
        seed: 1,
        startTime: 1_700_000_000_000,
        fingerprint: durable().fingerprint,
        metadata: { values },
      },
      'a-host-that-died',
      1,
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(okValue(await durable().resume(runId))).toBe(89_999);
    expect(Object.keys(await env.store.readValues(conversation))).toHaveLength(900);
  }, 60_000);
});
