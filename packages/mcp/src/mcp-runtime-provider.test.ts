import { describe, expect, it } from 'vitest';
import { labServer, runValue, startSluice } from './__fixtures__/sluice-process.js';

describe('sluice mcp with runtime.provider', () => {
  it('runs TypeScript programs in QuickJS, with its own settings', async () => {
    // `deterministic` is a QuickJS setting: the worker-thread runtime refuses it, and its clock is real.
    const sluice = await startSluice({
      mcpServers: { lab: labServer() },
      sluice: { runtime: { provider: 'quickjs', deterministic: { seed: 7, startTime: 1_000_000 } } },
    });
    try {
      const value = await runValue(
        sluice.client,
        `const before = Date.now();
         const { sum } = await lab.add({ a: 2, b: 3 });
         return { before, sum, process: typeof process, require: typeof require };`,
      );
      expect(value).toEqual({ before: 1_000_000, sum: 5, process: 'undefined', require: 'undefined' });
    } finally {
      await sluice.close();
    }
  });
});
