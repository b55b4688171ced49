import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './scripts/vitest-sequencer.js';

export default defineConfig({
  test: {
    projects: ['packages/*', { test: { name: 'scripts', include: ['scripts/**/*.test.ts'] } }],
    // One more file at a time than there are cores: most files wait on other processes (Python
    // children, workers, PostgreSQL, MCP servers) as much as they compute. vitest's default, one
    // fewer than the cores, runs one file at a time on a 2-core machine.
    maxWorkers: availableParallelism() + 1,
    // The slowest files first, across projects (see the file).
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
