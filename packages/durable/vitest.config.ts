import { defineProject } from 'vitest/config';

// One PostgreSQL server and one PGlite template for every test file (src/__fixtures__/test-stores-setup.ts).
// The WebAssembly tiering budget is raised as in @sluice/run-store's tests (see there).
export default defineProject({
  test: {
    name: '@sluice/durable',
    globalSetup: ['./src/__fixtures__/test-stores-setup.ts'],
    execArgv: ['--wasm-tiering-budget=100000000'],
  },
});
