// Helpers the durable tests share across runtimes.
import type { JsonValue } from '@sluice/code-runtime';
import type { Tool } from '@sluice/permissions';
import type { RunStore } from '@sluice/run-store';
import { expect } from 'vitest';
import type { DurableOutcome } from '../index.js';

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
