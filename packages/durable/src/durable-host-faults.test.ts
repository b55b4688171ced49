import type { Bindings, HostFunction, JsonValue } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { okValue, startedRun } from './__fixtures__/durable-test-kit.js';
import { useQuickJsAndStore } from './__fixtures__/quickjs-and-store.js';
import { createDurableRuns, type DurableRuns } from './index.js';

// Host functions that answer with what JSON cannot carry, or throw what cannot be read: the program
// sees an error, the journal holds that error, a replay after a crash gives the program the same
// error without calling the function again, and the host goes on.

const env = useQuickJsAndStore(2);

function nestedArrays(depth: number): unknown[] {
  let value: unknown[] = [];
  for (let level = 1; level < depth; level += 1) value = [value];
  return value;
}

function throwing(): never {
  throw new Error('read on purpose');
}

/** Every trap throws. */
function trapped(): object {
  return new Proxy(
    {},
    { get: throwing, getPrototypeOf: throwing, ownKeys: throwing, getOwnPropertyDescriptor: throwing, has: throwing },
  );
}

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/** Values a host function answers with that are not JSON, and why. */
const hostileResults: Record<string, () => unknown> = {
  'a throwing getter': () => ({
    get secret() {
      return throwing();
    },
  }),
  // Awaiting it reads its `then`, which throws: the engine's TypeError is the answer.
  'a revoked Proxy': revoked,
  'a Proxy whose ownKeys throws': () => new Proxy({ a: 1 }, { ownKeys: throwing }),
  'a BigInt': () => ({ count: 10n }),
  'a cycle': () => {
    const node: Record<string, unknown> = { name: 'loop' };
    node.self = node;
    return node;
  },
  'a throwing toJSON': () => ({ toJSON: throwing }),
  'arrays nested 100,000 deep': () => nestedArrays(100_000),
  // Over the runtime's host-call budget (1 MiB): JSON, but not what the program gets.
  'a 2 MB string': () => 'x'.repeat(2_000_000),
};

/** What a host function throws that cannot be read as an ordinary error. */
const hostileThrows: Record<string, () => unknown> = {
  'an Error whose message, name and stack getters throw': () => {
    const error = new Error('hidden');
    // The stack first: V8 reads the message when the stack is redefined.
    for (const key of ['stack', 'message', 'name']) Object.defineProperty(error, key, { get: throwing });
    return error;
  },
  'a Proxy whose every trap throws': trapped,
  'a revoked Proxy': revoked,
  null: () => null,
};

const program = `
let answer;
try { answer = { ok: true, value: await host.hostile({}) }; }
catch (error) { answer = { ok: false, message: String(error.message) }; }
const after = await host.plain({});
return { answer, after, at: Date.now() };`;

function hostRuns(hostile: HostFunction): { runs: DurableRuns; invoked: string[] } {
  const invoked: string[] = [];
  const bindings: Bindings = {
    host: {
      hostile: (input, context) => {
        invoked.push('hostile');
        return hostile(input, context);
      },
      plain: () => {
        invoked.push('plain');
        return 'fine';
      },
    },
  };
  const runs = createDurableRuns({
    runtime: env.runtime,
    store: env.store,
    tools: [],
    policy: { default: 'allow', rules: [] },
    bindings,
  });
  return { runs, invoked };
}

/**
 * Runs the program against `hostile`, then replays its journal as a host that crashed after the
 * calls would: returns the first run's value and its journal, after checking the replay agrees.
 */
async function runAndReplay(hostile: HostFunction) {
  const { runs, invoked } = hostRuns(hostile);
  const first = await runs.start({ program });
  const value = okValue(first) as { answer: { ok: boolean; message?: string }; after: JsonValue };
  expect(invoked).toEqual(['hostile', 'plain']);
  const journal = await env.store.readJournal(first.runId);
  const record = await env.store.getRun(first.runId);
  if (record === undefined) throw new Error('the run was not stored');

  const { fingerprint, language } = record.start;
  const crashed = await startedRun(env.store, { fingerprint, language, program });
  for (const entry of journal) {
    await env.store.recordIntent(crashed, entry.seq, entry.intent);
    if (entry.outcome !== undefined) await env.store.recordOutcome(crashed, entry.seq, entry.outcome);
  }
  const replay = hostRuns(() => {
    throw new Error('a replay must not call the host function again');
  });
  const again = await replay.runs.resume(crashed);
  expect(okValue(again)).toEqual({ ...value, at: expect.any(Number) });
  expect(replay.invoked).toEqual([]);
  return { value, journal };
}

describe('durable runs: host functions that answer with what JSON cannot carry', { timeout: 30_000 }, () => {
  it.each(Object.keys(hostileResults))('journals %s as the error the program saw, and replays it', async (name) => {
    const make = hostileResults[name] as () => unknown;
    const { value, journal } = await runAndReplay(() => make() as JsonValue);
    expect(value.answer.ok).toBe(false);
    if (name !== 'a revoked Proxy') expect(value.answer.message).toMatch(/^host\.hostile returned /);
    expect(value.after).toBe('fine');
    expect(journal.map((entry) => entry.outcome)).toEqual([
      { ok: false, message: value.answer.message },
      { ok: true, value: 'fine' },
    ]);
  });

  it.each(Object.keys(hostileResults))('does the same when %s comes as a resolved promise', async (name) => {
    const make = hostileResults[name] as () => unknown;
    const { value, journal } = await runAndReplay(async () => make() as JsonValue);
    if (name !== 'a revoked Proxy') expect(value.answer.message).toMatch(/^host\.hostile returned /);
    expect(journal[0]?.outcome).toEqual({ ok: false, message: value.answer.message });
  });
});

describe('durable runs: host functions that throw what cannot be read', { timeout: 30_000 }, () => {
  it.each(Object.keys(hostileThrows))(
    'journals a thrown %s as the error the program saw, and replays it',
    async (name) => {
      const make = hostileThrows[name] as () => unknown;
      for (const hostile of [
        () => {
          throw make();
        },
        () => Promise.reject(make()),
      ] satisfies HostFunction[]) {
        const { value, journal } = await runAndReplay(hostile);
        expect(value.answer.ok).toBe(false);
        expect(typeof value.answer.message).toBe('string');
        expect(value.answer.message).not.toBe('');
        expect(value.after).toBe('fine');
        expect(journal[0]?.outcome).toEqual({ ok: false, message: value.answer.message });
      }
    },
  );
});
