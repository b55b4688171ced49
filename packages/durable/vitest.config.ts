import { defineProject } from 'vitest/config';

// One PostgreSQL server and one PGlite template for every test file (src/__fixtures__/test-stores-setup.ts).
export default defineProject({
  test: { name: '@sluice/durable', globalSetup: ['./src/__fixtures__/test-stores-setup.ts'] },
});
