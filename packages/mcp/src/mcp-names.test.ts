import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labServer, runValue, type SluiceProcess, startSluice } from './__fixtures__/sluice-process.js';

// Upstream tool names that are hard to bind (issue 27): two that map to one binding, and a reserved word.
describe('sluice mcp with upstream tools whose names collide or are reserved words', () => {
  let sluice: SluiceProcess;

  beforeAll(async () => {
    sluice = await startSluice({
      mcpServers: { lab: labServer({ LAB_NAMES: '1' }) },
      sluice: { policy: { default: 'allow', rules: [] }, runtime: { wallTimeMs: 60_000 } },
    });
  }, 60_000);

  afterAll(async () => {
    await sluice?.close();
  });

  it('keeps both of two tools that map to one binding, the second under a suffix the declarations explain', async () => {
    const { tools } = await sluice.client.listTools();
    const description = tools[0]!.description ?? '';
    expect(description).toContain('get_time(');
    expect(description).toContain('Tool "lab__get-time", named get_time_2 because lab.get_time is another tool.');
    expect(description).toContain('get_time_2(');
    expect(await runValue(sluice.client, 'return [await lab.get_time(), await lab.get_time_2()];')).toEqual([
      'called get_time',
      'called get-time',
    ]);
    expect(sluice.stderr()).not.toContain('left out');
  });

  it('calls a tool named delete by its own name, and by the old delete_', async () => {
    const { tools } = await sluice.client.listTools();
    expect(tools[0]!.description ?? '').toContain('  delete(input?: {');
    expect(await runValue(sluice.client, 'return [await lab.delete(), await lab.delete_()];')).toEqual([
      'called delete',
      'called delete',
    ]);
  });
});
