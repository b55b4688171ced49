// What most durable test files need: a QuickJS runtime and an embedded store, for the file's tests.
import type { CodeRuntime } from '@sluice/code-runtime';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createPGliteRunStore, type RunStore } from '@sluice/run-store';
import { afterAll, beforeAll } from 'vitest';

/** The runtime and the store of {@link useQuickJsAndStore}: set once `beforeAll` has run. */
export interface QuickJsAndStore {
  runtime: CodeRuntime;
  store: RunStore;
}

/**
 * A QuickJS runtime (20 s wall clock) and a PGlite store in memory, created and warmed up before the
 * file's tests and closed after them.
 */
export function useQuickJsAndStore(poolSize: number): QuickJsAndStore {
  const env = {} as QuickJsAndStore;
  beforeAll(async () => {
    env.runtime = createQuickJsCodeRuntime({ poolSize, wallTimeMs: 20_000 });
    env.store = createPGliteRunStore();
    // The embedded database loads on first use (seconds on a busy machine).
    await Promise.all([env.store.readValues('warm-up'), env.runtime.run({ program: 'return 1' })]);
  }, 120_000);
  afterAll(async () => {
    await env.runtime?.dispose();
    await env.store?.close();
  });
  return env;
}
