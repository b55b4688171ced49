import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';

const runtime = createWorkerThreadCodeRuntime({ poolSize: 1 });
afterAll(() => runtime.dispose());
const weather: HostFunction = async (input) => ({ temp: 3, city: (input as { city: string }).city });
const bindings = { tools: { get_weather: weather } };

describe('worker-thread: a host call read before it is awaited', () => {
  it('throws naming the fix instead of giving undefined', async () => {
    const result = await runtime.run({
      program: 'const w = tools.get_weather({ city: "Oslo" });\nreturn w.temp < 5 ? "cold" : "mild";',
      bindings,
    });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'exception', line: 2 } });
    expect(result.ok ? '' : result.failure.message).toContain('write `(await tools.get_weather(...)).temp`');
  });

  it('still behaves as a promise: await, then/catch/finally, Promise.all and race, instanceof', async () => {
    const program = [
      'const one = await tools.get_weather({ city: "A" });',
      'const all = await Promise.all([tools.get_weather({ city: "B" }), tools.get_weather({ city: "C" })]);',
      'const chained = await tools.get_weather({ city: "D" }).then((w) => w.city).finally(() => {});',
      'const raced = await Promise.race([tools.get_weather({ city: "E" })]);',
      'const caught = await tools.get_weather({ city: "F" }).catch(() => null);',
      'return [one.city, ...all.map((w) => w.city), chained, raced.city, caught.city, tools.get_weather({ city: "G" }) instanceof Promise];',
    ].join('\n');
    expect(await runtime.run({ program, bindings })).toMatchObject({
      ok: true,
      value: ['A', 'B', 'C', 'D', 'E', 'F', true],
    });
  });
});
