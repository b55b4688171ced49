import { spawnSync } from 'node:child_process';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createContext } from '@sluice/context';
import type { PolicyDefinition, Tool } from '@sluice/permissions';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunCodeTool } from './run-code-tool.js';

// Debian's python3 with python3-matplotlib and python3-pandas (`node scripts/install-test-packages.mjs`), or SLUICE_DATA_PYTHON.
const python = [process.env.SLUICE_DATA_PYTHON, '/usr/bin/python3'].find(
  (candidate) =>
    candidate !== undefined &&
    candidate !== '' &&
    spawnSync(candidate, ['-c', 'import matplotlib, pandas']).status === 0,
);
if (python === undefined) {
  console.warn(
    'code mode python figures test skipped: no interpreter imports matplotlib and pandas; run scripts/install-test-packages.mjs',
  );
}

const allowAll: PolicyDefinition = { default: 'allow', rules: [] };
const sales: Tool = {
  name: 'shop.sales',
  description: 'Sales rows.',
  inputSchema: { type: 'object', properties: {} },
  execute: () => [
    { region: 'north', amount: 3 },
    { region: 'south', amount: 5 },
  ],
};

describe.skipIf(python === undefined)('run_code with a Python runtime that preloads matplotlib', () => {
  const ctx = createContext();
  ctx.provide(
    'codeRuntime',
    createPythonCodeRuntime({
      pythonExecutable: python ?? 'python3',
      preloadModules: ['pandas', 'matplotlib.pyplot'],
      wallTimeMs: 60_000,
      acquireTimeoutMs: 150_000,
    }),
  );
  afterAll(() => ctx.dispose());

  it('sends a figure the program shows as image content, and the text says which was sent', {
    timeout: 180_000,
  }, async () => {
    const runCode = createRunCodeTool({
      context: ctx,
      tools: [sales],
      policy: allowAll,
      result: { attachImages: true },
    });
    const outcome = await runCode.run({
      code: [
        'import pandas as pd, matplotlib.pyplot as plt',
        'frame = pd.DataFrame(await shop.sales())',
        'frame.plot.bar(x="region", y="amount", title="Sales by region")',
        'plt.show()',
        'frame["amount"].sum()',
      ].join('\n'),
    });
    expect(outcome.images).toHaveLength(1);
    expect(outcome.images?.[0]?.mimeType).toBe('image/png');
    expect(
      Buffer.from(outcome.images?.[0]?.data ?? '', 'base64')
        .subarray(1, 4)
        .toString('ascii'),
    ).toBe('PNG');
    expect(outcome.rendered.text).toContain('"title": "Sales by region"');
    expect(outcome.rendered.text).toMatch(/"data": "\(image 1: image\/png, [\d.]+ KiB, sent with this result\)"/);
    expect(outcome.structured?.value).toMatchObject({ value: 8, figures: [{ figure: 1, title: 'Sales by region' }] });
  });
});
