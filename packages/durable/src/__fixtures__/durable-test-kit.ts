// Helpers the durable tests share across runtimes.
import type { JsonValue } from '@sluice/code-runtime';
import type { PolicyRule, Tool } from '@sluice/permissions';
import type { RunStore } from '@sluice/run-store';
import { expect } from 'vitest';
import type { DurableOutcome, DurableRuns } from '../index.js';

/**
 * Tools that count their invocations, so a test can tell a replayed call from a live one. `search`
 * finishes after the calls made after it: a deterministic program still sees results in call order.
 */
export function slowSearchTools() {
  const invoked: string[] = [];
  const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
    execute: async (input) => {
      invoked.push(`${name} ${JSON.stringify(input)}`);
      const n = invoked.length;
      await new Promise((resolve) => setTimeout(resolve, name === 'search' ? 30 : 1));
      return { name, input, n };
    },
    ...extra,
  });
  return { invoked, tool };
}

/** The value an outcome's run returned; fails the test, showing the result, when it did not succeed. */
export function okValue(outcome: DurableOutcome): JsonValue | undefined {
  expect(outcome.result.ok, JSON.stringify(outcome.result)).toBe(true);
  return outcome.result.ok ? outcome.result.value : undefined;
}

/** A run as a host leaves it when it dies right after creating it: a start record, its 1 ms lease run out. */
export async function startedRun(
  store: RunStore,
  start: { readonly fingerprint: string; readonly program: string; readonly language: string },
): Promise<string> {
  const runId = `durable_test_${Math.random().toString(36).slice(2)}`;
  await store.createRun(
    { runId, seed: 3, startTime: 1_700_000_000_000, metadata: { values: {} }, ...start },
    'a-host-that-died',
    1,
  );
  await new Promise((resolve) => setTimeout(resolve, 5));
  return runId;
}

/**
 * The replay scenario every runtime passes, `program` in its language: two calls made at once
 * (`search {q: one}` and `fetch {id: 2}`, their results' `n` as `a` and `b`), then `search {q:
 * three, at: now}` as `c`, returning `{ a, b, c, order, at: now, r: random }`. A host died after
 * committing the outcomes of the first two (the second first): resuming answers them from the
 * journal and calls only the third, at the recorded clock; a fresh run journals in call order.
 */
export async function expectReplayOfJournaledCalls(
  runs: DurableRuns,
  store: RunStore,
  language: string,
  program: string,
  invoked: readonly string[],
): Promise<void> {
  const runId = await startedRun(store, { language, fingerprint: runs.fingerprint, program });
  await store.recordIntent(runId, 1, { namespace: 'tools', name: 'search', input: { q: 'one' } });
  await store.recordIntent(runId, 2, { namespace: 'tools', name: 'fetch', input: { id: 2 } });
  await store.recordOutcome(runId, 2, { ok: true, value: { n: 102 } });
  await store.recordOutcome(runId, 1, { ok: true, value: { n: 101 } });
  const resumed = await runs.resume(runId);
  // Two results from the journal and one live call: the clock reads 3 ms past the start.
  expect(okValue(resumed)).toMatchObject({ a: 101, b: 102, c: 1, order: ['search', 'fetch'], at: 1_700_000_000_003 });
  expect(invoked).toEqual(['search {"q":"three","at":1700000000002}']);

  // A first run journals its calls in the order the program made them, not the order they finished.
  const fresh = await runs.start({ program });
  expect(okValue(fresh)).toMatchObject({ a: 2, b: 3, c: 4, order: ['search', 'fetch'], at: expect.any(Number) });
  const journal = await store.readJournal(fresh.runId);
  expect(journal.map((entry) => [entry.seq, entry.intent.name, entry.outcome?.ok])).toEqual([
    [1, 'search', true],
    [2, 'fetch', true],
    [3, 'search', true],
  ]);
  expect(invoked).toHaveLength(4);
}

/** The policy rule of {@link expectPauseAndReplay}: `pay` asks for a person. */
export const payAsks: PolicyRule[] = [{ tool: 'pay', effect: 'ask', description: 'payments need a person' }];

/**
 * The pause scenario every runtime passes, `program` in its language: `lookup {}`, then print
 * `before <JSON of { at: now, r: random, id: a random UUID }>`, wait 1 s, `pay {amount: 40}` (which
 * the policy asks about), print `after <its n>` and return `{ before, paid: amount, waited, lookup:
 * its n }`. Allowing it replays the run: the same first line, the same clock and seed.
 */
export async function expectPauseAndReplay(
  runs: DurableRuns,
  program: string,
  invoked: readonly string[],
): Promise<void> {
  const paused = await runs.start({ program });
  if (paused.status !== 'paused') throw new Error(`expected a pause, got ${JSON.stringify(paused)}`);
  expect(paused.pause).toMatchObject({ tool: 'pay', input: { amount: 40 } });
  const firstLogs = paused.result.logs.map((line) => line.text);
  expect(firstLogs).toHaveLength(1);
  expect(invoked).toEqual(['lookup {}']);

  const done = await runs.decide(paused.pause.token, { decision: 'allow' });
  expect(done.status).toBe('finished');
  const logs = done.result.logs.map((line) => line.text);
  // The replayed run printed the same first line: same clock, same seed, same recorded result.
  expect(logs).toEqual([firstLogs[0], 'after 2']);
  const before = JSON.parse(firstLogs[0]!.slice('before '.length)) as { at: number };
  expect(okValue(done)).toEqual({ before, paid: 40, waited: 1_001, lookup: 1 });
  expect(invoked).toEqual(['lookup {}', 'pay {"amount":40}']);
}

/**
 * `runs.resume(runId)` once the host holding the run has let its lease lapse: retried while the
 * store says another host holds it, for at most 30 s.
 */
export async function resumeWhenFree(runs: DurableRuns, runId: string): Promise<DurableOutcome> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await runs.resume(runId);
    } catch (error) {
      if (Date.now() > deadline || !String(error).includes('is held by')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
