import { InvalidSettingsError } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { callBinding, recordingTool } from './__fixtures__/test-support.js';
import { createAuditLog } from './audit-log.js';
import { deriveBindings } from './derive-bindings.js';

describe('createAuditLog', () => {
  it('collects every decision in a form that survives JSON', async () => {
    const log = createAuditLog();
    const bindings = deriveBindings(
      [recordingTool('search').tool, recordingTool('fs.delete').tool],
      {
        rules: [
          { tool: 'search', effect: 'allow' },
          { tool: 'fs.*', effect: 'deny', reason: 'read-only' },
        ],
      },
      { onDecision: log.record },
    );
    await callBinding(bindings, 'tools.search', { q: 'x' });
    await callBinding(bindings, 'fs.delete_', { path: '/srv' }).catch(() => undefined);
    const stored = JSON.parse(JSON.stringify(log)) as ReturnType<typeof log.toJSON>;
    expect(stored.dropped).toBe(0);
    expect(stored.entries).toEqual(log.entries());
    expect(stored.entries.map((entry) => [entry.tool, entry.decision, entry.rule?.index])).toEqual([
      ['search', 'allow', 0],
      ['fs.delete', 'deny', 1],
    ]);
  });

  it('keeps the newest decisions within its limit and counts the dropped ones', async () => {
    const log = createAuditLog({ limit: 2 });
    const bindings = deriveBindings(
      [recordingTool('search').tool],
      { default: 'allow', rules: [] },
      { onDecision: log.record },
    );
    for (const n of [1, 2, 3]) await callBinding(bindings, 'tools.search', { n });
    expect(log.entries().map((entry) => entry.arguments)).toEqual([{ n: 2 }, { n: 3 }]);
    expect(log.dropped).toBe(1);
    log.clear();
    expect(log.entries()).toEqual([]);
    expect(log.dropped).toBe(0);
  });

  it('throws InvalidSettingsError for a limit that is not a positive integer', () => {
    expect(() => createAuditLog({ limit: 0 })).toThrow(InvalidSettingsError);
    expect(() => createAuditLog({ limit: 1.5 })).toThrow(/positive integer/);
  });
});
