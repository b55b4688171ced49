import type { CodeRuntime } from '@sluice/code-runtime';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { type BenchRow, type BenchSuite, percentile } from './bench-harness.js';

/** A compute-heavy program both TypeScript providers run, and the value it must return. */
interface HeavyCase {
  readonly name: string;
  readonly program: string;
  readonly check: (value: unknown) => boolean;
}

/** Row names are `compute-heavy: <case>, <provider>`; `quickjs-report.ts` pairs them. */
export const computeHeavyPrefix = 'compute-heavy: ';

// Numbers come from a fixed linear congruential generator, so both providers sort the same array.
const sortProgram = `let seed = 12345;
const numbers: number[] = new Array(100_000);
for (let index = 0; index < numbers.length; index += 1) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  numbers[index] = seed / 2147483648;
}
numbers.sort((a, b) => a - b);
let ordered = true;
for (let index = 1; index < numbers.length; index += 1) if (numbers[index - 1]! > numbers[index]!) ordered = false;
return { ordered, count: numbers.length };`;

// About 1 MB of JSON text is built, parsed, transformed (filter, map, group) and written again.
const jsonProgram = `interface Order { id: number; customer: string; total: number; items: { sku: string; quantity: number }[] }
const orders: Order[] = [];
for (let id = 0; id < 11_300; id += 1) {
  orders.push({ id, customer: 'customer-' + (id % 250), total: (id * 37) % 1000, items: [{ sku: 'sku-' + (id % 97), quantity: 1 + (id % 5) }] });
}
const text = JSON.stringify(orders);
const parsed = JSON.parse(text) as Order[];
const byCustomer: Record<string, { orders: number; total: number; quantity: number }> = {};
for (const order of parsed.filter((entry) => entry.total > 100)) {
  const entry = (byCustomer[order.customer] ??= { orders: 0, total: 0, quantity: 0 });
  entry.orders += 1;
  entry.total += order.total;
  entry.quantity += order.items.reduce((sum, item) => sum + item.quantity, 0);
}
const output = JSON.stringify(byCustomer);
return { inputBytes: text.length, customers: Object.keys(byCustomer).length, outputBytes: output.length };`;

export const heavyCases: readonly HeavyCase[] = [
  {
    name: 'sort 100 000 numbers',
    program: sortProgram,
    check: (value) => JSON.stringify(value) === '{"ordered":true,"count":100000}',
  },
  {
    name: 'JSON transform of 1 MB',
    program: jsonProgram,
    check: (value) => {
      const result = value as { inputBytes?: number; customers?: number };
      return (result.inputBytes ?? 0) > 1_000_000 && result.customers === 250;
    },
  },
];

/**
 * What an interpreter costs where it costs: each compute-heavy case on the worker-thread provider
 * (V8 with its JIT) and on the QuickJS provider, sequential runs of the same (cached) program.
 */
export const suite: BenchSuite = {
  name: 'compute-heavy',
  async measure(scale) {
    const runs = Math.max(5, Math.round(20 * scale));
    const providers: [string, () => CodeRuntime][] = [
      ['worker-thread', () => createWorkerThreadCodeRuntime()],
      ['quickjs', () => createQuickJsCodeRuntime()],
    ];
    const rows: BenchRow[] = [];
    for (const [providerName, create] of providers) {
      const runtime = create();
      try {
        for (const heavy of heavyCases) {
          const times: number[] = [];
          const cpu: number[] = [];
          for (let index = 0; index < runs + 2; index += 1) {
            const start = performance.now();
            const result = await runtime.run({ program: heavy.program });
            const elapsed = performance.now() - start;
            if (!result.ok || !heavy.check(result.value)) {
              const what = result.ok
                ? JSON.stringify(result.value)
                : `${result.failure.kind}: ${result.failure.message}`;
              throw new Error(`bench: ${heavy.name} on ${providerName} went wrong: ${what}`);
            }
            // The first two runs warm the pool and the compile cache.
            if (index < 2) continue;
            times.push(elapsed);
            if (result.usage.cpuMs !== undefined) cpu.push(result.usage.cpuMs);
          }
          rows.push({
            substrate: `${computeHeavyPrefix}${heavy.name}, ${providerName}`,
            p50Ms: percentile(times, 50),
            p95Ms: percentile(times, 95),
            note: `${runs} sequential runs of the same program${cpu.length === 0 ? '' : `; CPU p50 ${percentile(cpu, 50).toFixed(1)} ms as the provider reports it`}`,
          });
        }
      } finally {
        await runtime.dispose();
      }
    }
    return rows;
  },
};
