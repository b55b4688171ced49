import { type ChildProcess, spawn } from 'node:child_process';
import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';

// A reused worker's log buffer still held the previous run's end when the next run's first drain
// came; on a busy machine a quiet run then received the flood run's lines and failed as
// `protocol`. Two CPU-bound processes beside the test make that window wide.
describe('worker-thread: the logs of one run never reach another', () => {
  const burners: ChildProcess[] = [];
  beforeAll(() => {
    for (let index = 0; index < 2; index += 1) {
      burners.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    }
  });
  afterAll(() => {
    for (const burner of burners) burner.kill('SIGKILL');
  });

  it('gives every quiet run exactly its own lines while flood runs alternate with it', {
    timeout: 120_000,
  }, async () => {
    const runtime = createWorkerThreadCodeRuntime({ poolSize: 4, wallTimeMs: 60_000 });
    const echo: HostFunction = async (input) => input;
    const flood = [
      'for (let line = 0; line < 2000; line += 1) console.log("flood " + line);',
      'return "flooded";',
    ].join('\n');
    const problems: string[] = [];
    try {
      await Promise.all(
        Array.from({ length: 8 }, async (_, caller) => {
          for (let round = 0; round < 60; round += 1) {
            const loud = await runtime.run({ program: flood });
            if (!loud.ok || loud.logs.length !== 2000 || loud.logs[1999]?.text !== 'flood 1999') {
              problems.push(`flood run: ${loud.ok ? `${loud.logs.length} lines` : loud.failure.message}`);
            }
            const index = caller * 1000 + round;
            const quiet = await runtime.run({
              program: `return await tools.echo(${index});`,
              bindings: { tools: { echo } },
            });
            if (!quiet.ok || quiet.value !== index || quiet.logs.length !== 0) {
              problems.push(
                `quiet run: ${quiet.ok ? `${quiet.logs.length} lines` : `${quiet.failure.kind}: ${quiet.failure.message}`}`,
              );
            }
          }
        }),
      );
    } finally {
      await runtime.dispose();
    }
    expect(problems.slice(0, 5)).toEqual([]);
  });
});
