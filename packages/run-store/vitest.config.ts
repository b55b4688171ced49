import { defineProject } from 'vitest/config';

// PGlite compiles PostgreSQL's WebAssembly and runs initdb for each new database (seconds on a
// loaded machine), and the PostgreSQL tests start a real server: slow, never wrong. Each test
// process raises V8's WebAssembly tiering budget, as the CLI does: PGlite's short-lived PostgreSQL
// stays on the baseline compiler instead of being optimised for a few queries (this file's tests:
// 25 s -> 22 s of CPU). What runs, and what it answers, is the same.
export default defineProject({
  test: {
    name: '@sluice/run-store',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    execArgv: ['--wasm-tiering-budget=100000000'],
  },
});
