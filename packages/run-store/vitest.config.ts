import { defineProject } from 'vitest/config';

// PGlite compiles PostgreSQL's WebAssembly and runs initdb for each new database (seconds on a
// loaded machine), and the PostgreSQL tests start a real server: slow, never wrong.
export default defineProject({
  test: { name: '@sluice/run-store', testTimeout: 30_000, hookTimeout: 120_000 },
});
