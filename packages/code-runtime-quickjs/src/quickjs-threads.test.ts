import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createQuickJsCodeRuntime } from './index.js';

/** The threads of this process, as Linux lists them. */
const threadCount = () => readdirSync('/proc/self/task').length;

async function settledThreadCount(atMost: number): Promise<number> {
  for (let waited = 0; waited < 10_000 && threadCount() > atMost; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return threadCount();
}

describe.runIf(process.platform === 'linux')('QuickJS worker threads', () => {
  it('ends every thread it retires: after runs that exhaust or nearly exhaust their memory, and after dispose', async () => {
    // The compile thread and V8's own threads live as long as the process: start them first (a
    // TypeScript program, as plain JavaScript is prepared without the compile thread).
    const warm = createQuickJsCodeRuntime({ poolSize: 1 });
    await warm.run({ program: 'const one: number = 1;\nreturn one;' });
    await warm.dispose();
    const baseline = await settledThreadCount(0);

    const runtime = createQuickJsCodeRuntime({ poolSize: 1, memoryBytes: 16 * 1024 * 1024 });
    const endings: string[] = [];
    for (const program of [
      'const rows: number[][] = []; while (true) rows.push(new Array(10_000).fill(1));',
      'const rows: number[][] = []; while (true) rows.push(new Array(10_000).fill(1));',
      // Succeeds, but grows the thread's memory past the point where the thread is replaced.
      'const big = new Array(1_200_000).fill(1.5); return big.length;',
    ]) {
      const result = await runtime.run({ program });
      endings.push(result.ok ? 'ok' : result.failure.kind);
    }
    expect(endings).toEqual(['memory', 'memory', 'ok']);
    expect((await runtime.run({ program: 'return "still serving";' })).ok).toBe(true);
    await runtime.dispose();
    expect(await settledThreadCount(baseline)).toBeLessThanOrEqual(baseline);
  }, 60_000);
});
