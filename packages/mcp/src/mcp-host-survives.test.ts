import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labServer, resultText, runValue, type SluiceProcess, startSluice } from './__fixtures__/sluice-process.js';

// One allocation too large for the worker's heap is fatal for the process that holds the worker.
// When that was the server's own process, the client saw "Connection closed"; now it is one failed
// run, and the server keeps serving.
describe('sluice mcp survives a program that exhausts its memory', () => {
  let sluice: SluiceProcess;

  beforeAll(async () => {
    sluice = await startSluice({
      mcpServers: { lab: labServer() },
      sluice: { runtime: { wallTimeMs: 60_000, memoryBytes: 48 * 1024 * 1024 } },
    });
  }, 60_000);

  afterAll(async () => {
    await sluice?.close();
  });

  it('returns the run as a memory failure and answers the next call', { timeout: 120_000 }, async () => {
    const result = await sluice.client.callTool({
      name: 'run_code',
      arguments: { code: 'return new Array(5e7).fill(0).length;' },
    });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('failed: memory');
    expect(await runValue(sluice.client, 'return await lab.add({ a: 2, b: 3 });')).toEqual({ sum: 5 });
  });
});
