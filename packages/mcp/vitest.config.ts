import { defineProject } from 'vitest/config';

// The tests spawn real processes (our server, upstream servers, workers); a loaded machine is slow, never wrong.
export default defineProject({
  test: { name: '@sluice/mcp', testTimeout: 60_000, hookTimeout: 60_000 },
});
