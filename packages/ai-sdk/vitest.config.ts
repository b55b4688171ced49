import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

// The examples import the package by name, as a user would; in tests that name means this source.
export default defineProject({
  resolve: { alias: { '@sluice/ai-sdk': fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
  test: { name: '@sluice/ai-sdk', testTimeout: 30_000 },
});
