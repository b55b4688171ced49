// Runs the README's "Data analysis" example on a real interpreter and writes the chart it returns to
// docs/images/python-data-analysis-chart.png. Needs Debian's python3 with numpy, pandas and matplotlib
// (`node scripts/install-test-packages.mjs`); PYTHON overrides the interpreter.
// `npx tsx packages/code-runtime-python/scripts/draw-readme-chart.ts` after building the package.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createPythonCodeRuntime } from '../dist/index.js';

const program = `
import pandas as pd
import matplotlib.pyplot as plt

orders = pd.DataFrame(await tools.orders(since="2026-10-01"))
orders["month"] = pd.to_datetime(orders["date"]).dt.strftime("%Y-%m")
by_month = orders.pivot_table(index="month", columns="region", values="amount", aggfunc="sum").fillna(0)

ax = by_month.plot.bar(figsize=(6, 3.5), rot=0, title="Revenue by month and region")
ax.set_ylabel("EUR")
ax.legend(title="region", loc="upper left", bbox_to_anchor=(1, 1))
plt.tight_layout()
plt.show()

by_month.sum().round(2)
`;

const regions = ['north', 'south', 'west'];
// Three months of orders: the north growing, the south shrinking, the west flat; amounts vary by a fixed pattern.
const trend: Record<string, number> = { north: 25, south: -15, west: 0 };
const orders = Array.from({ length: 90 }, (_, index) => {
  const month = index % 3;
  const region = regions[Math.floor(index / 3) % 3]!;
  return {
    date: `2026-${['10', '11', '12'][month]}-${String((index % 28) + 1).padStart(2, '0')}`,
    region,
    amount: 60 + month * trend[region]! + ((index * 37) % 40),
  };
});

const runtime = createPythonCodeRuntime({
  pythonExecutable: process.env.PYTHON ?? '/usr/bin/python3',
  preloadModules: ['numpy', 'pandas', 'matplotlib.pyplot'],
  acquireTimeoutMs: 120_000,
});
try {
  const result = await runtime.run({ program, bindings: { tools: { orders: async () => orders } } });
  if (!result.ok) throw new Error(`${result.failure.kind}: ${result.failure.message}`);
  const value = result.value as { figures: { data: string; title: string }[]; value: unknown };
  const target = fileURLToPath(new URL('../../../docs/images/python-data-analysis-chart.png', import.meta.url));
  mkdirSync(fileURLToPath(new URL('../../../docs/images/', import.meta.url)), { recursive: true });
  writeFileSync(target, Buffer.from(value.figures[0]!.data, 'base64'));
  const shown = {
    ...value,
    figures: value.figures.map((figure) => ({ ...figure, data: `<${figure.data.length} bytes of base64>` })),
  };
  console.log(JSON.stringify(shown, null, 2));
  console.log(`wrote ${target}`);
} finally {
  await runtime.dispose();
}
