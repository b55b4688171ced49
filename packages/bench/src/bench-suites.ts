/**
 * The suites `pnpm bench` runs, in order, each in its own Node process (flags: `--expose-gc`,
 * `--no-node-snapshot`). A suite is a module in this folder exporting `suite: BenchSuite`. Add a
 * line here to add one.
 */
export const benchSuites: readonly string[] = [
  './worker-thread.ts',
  './quickjs.ts',
  './anchor-fresh-worker.ts',
  './anchor-isolated-vm.ts',
  './anchor-quickjs.ts',
  './anchor-thread-round-trip.ts',
  './python-zygote.ts',
  './python-anchor-spawn.ts',
  './anchor-python-fork.ts',
  './anchor-monty.ts',
  './compute-heavy.ts',
  './cold-start.ts',
];
