// The order vitest starts test files in: the slowest first, whatever their project, so a run does not
// end with one long file alone on the machine. vitest's own order takes the projects one after another
// (alphabetically), which starts the durable fault files, among the longest, halfway through a run.
// How long a file takes comes from vitest's cache of the last run when it has one (never on a clean
// clone); otherwise the files of `slowFiles` go first, in its order, then the others, larger first.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const root = join(import.meta.dirname, '..');

/**
 * The test files that take longest (15 s or more alone on a quiet 2-core machine), longest first.
 * Most wait on processes, clocks or leases rather than compute, so they overlap well with the rest.
 * A file named here that no longer exists fails the run: rename it here too.
 */
export const slowFiles = [
  'packages/durable/src/durable-faults-sigkill.test.ts',
  'packages/code-runtime-conformance/src/conformance.test.ts',
  'packages/code-runtime-quickjs/src/quickjs-console-adversarial.test.ts',
  'packages/code-runtime-quickjs/src/quickjs-adversarial.test.ts',
  'packages/durable/src/durable-faults-sigterm.test.ts',
  'packages/code-runtime-python/src/python-start-burst.test.ts',
  'packages/code-runtime-worker-thread/src/conformance.test.ts',
  'packages/code-runtime-python/src/conformance.test.ts',
  'packages/code-runtime-quickjs/src/conformance.test.ts',
  'packages/durable/src/durable-faults-divergence.test.ts',
  'packages/durable/src/durable-crash.test.ts',
  'packages/cli/src/cli-durable.test.ts',
  'packages/code-runtime-python/src/python-value-edges.test.ts',
  'packages/mcp/src/mcp-durable-store.test.ts',
  'packages/mcp/src/mcp-durable.test.ts',
  'packages/durable/src/durable-faults-store-outage.test.ts',
  'packages/mcp/src/mcp-server.test.ts',
  'packages/cli/src/cli-bin.test.ts',
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const missing = slowFiles.filter((file) => !existsSync(join(root, file)));
    if (missing.length > 0)
      throw new Error(`scripts/vitest-sequencer.ts names test files that do not exist: ${missing.join(', ')}`);
    const cache = this.ctx.cache;
    const known = (spec: TestSpecification) => {
      // vitest's cache key for a file.
      const key = `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
      const rank = slowFiles.indexOf(relative(root, spec.moduleId));
      return {
        results: cache.getFileTestResults(key),
        rank: rank === -1 ? slowFiles.length : rank,
        size: cache.getFileStats(key)?.size ?? 0,
      };
    };
    const keyed = files.map((spec) => ({ spec, ...known(spec) }));
    keyed.sort((a, b) => {
      if (a.results && b.results) {
        if (a.results.failed !== b.results.failed) return a.results.failed ? -1 : 1;
        return b.results.duration - a.results.duration;
      }
      if (a.rank !== b.rank) return a.rank - b.rank;
      return b.size - a.size;
    });
    return keyed.map(({ spec }) => spec);
  }
}
