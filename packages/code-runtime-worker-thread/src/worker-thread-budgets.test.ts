import type { CodeRunFailure, CodeRunResult, HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';

const mebibyte = 1024 * 1024;
const limits = { memoryBytes: 48 * mebibyte, logBytes: 2_048, valueBytes: 4_096, timers: 50 };
// Short time budgets so the kills of runaway code are quick; the CPU budget is far below the wall
// clock so that a `cpu-time` failure can only come from the busy-time meter.
const runaway = createWorkerThreadCodeRuntime({ poolSize: 2, wallTimeMs: 4_000, cpuTimeMs: 800, ...limits });
// The memory, flood and output tests do real work that busy time meters as wall time while the worker
// is descheduled (800 ms of it is spent on a loaded machine before 48 MiB is), so they keep the
// default time budgets: the limit they assert is what ends their runs.
const runtime = createWorkerThreadCodeRuntime({ poolSize: 2, ...limits });
afterAll(async () => {
  await Promise.all([runaway.dispose(), runtime.dispose()]);
});

const never: HostFunction = () => new Promise(() => {});
const echo: HostFunction = async (input) => input;
const tools = { echo, never };

function failure(result: CodeRunResult): CodeRunFailure | undefined {
  return result.ok ? undefined : result.failure;
}

async function stillServes(served = runtime): Promise<void> {
  expect(await served.run({ program: 'return 1 + 1;' })).toMatchObject({ ok: true, value: 2 });
}

describe('worker-thread budgets: runaway code is killed', () => {
  it('stops a synchronous loop and keeps what it printed', async () => {
    const result = await runaway.run({ program: "console.log('spinning');\nwhile (true) {}" });
    expect(failure(result)).toMatchObject({ kind: 'timeout', budget: 'cpu-time', limitMs: 800 });
    expect(result.logs.map((entry) => entry.text)).toEqual(['spinning']);
    await stillServes(runaway);
  });

  it('stops a loop after an await, and a microtask loop', async () => {
    const afterAwait = await runaway.run({
      program: "await tools.echo(1);\nconsole.log('after');\nwhile (true) {}",
      bindings: { tools },
    });
    expect(failure(afterAwait)).toMatchObject({ kind: 'timeout', budget: 'cpu-time' });
    expect(afterAwait.logs.map((entry) => entry.text)).toEqual(['after']);
    const microtasks = await runaway.run({ program: 'for (;;) await null;' });
    expect(failure(microtasks)).toMatchObject({ kind: 'timeout', budget: 'cpu-time' });
    await stillServes(runaway);
  });

  it('stops a hot loop behind an un-awaited host call that never resolves', async () => {
    const result = await runaway.run({
      program: 'tools.never();\nawait new Promise((resolve) => setTimeout(resolve, 5));\nwhile (true) {}',
      bindings: { tools },
    });
    expect(failure(result)).toMatchObject({ kind: 'timeout', budget: 'cpu-time' });
    expect(result.calls).toMatchObject([{ name: 'never', ok: false }]);
    await stillServes(runaway);
  });

  it('ends a run that never settles at the wall clock', async () => {
    const result = await runaway.run({ program: "console.log('waiting');\nawait new Promise(() => {});" });
    expect(failure(result)).toMatchObject({ kind: 'timeout', budget: 'wall-time', limitMs: 4_000 });
    expect(result.logs.map((entry) => entry.text)).toEqual(['waiting']);
  });

  it('is really dead after a kill: the worker exits', async () => {
    await runaway.run({ program: 'while (true) {}' });
    await runaway.quiet();
    await stillServes(runaway);
  });
});

describe('worker-thread budgets: memory', () => {
  it('ends a heap bomb as memory and keeps serving', async () => {
    const result = await runtime.run({
      program:
        "console.log('allocating');\nconst hoard: number[][] = [];\nwhile (true) hoard.push(new Array(100000).fill(hoard.length + 0.5));",
    });
    expect(failure(result)).toMatchObject({ kind: 'memory', limitBytes: 48 * mebibyte });
    expect(result.logs.map((entry) => entry.text)).toEqual(['allocating']);
    await stillServes();
  });

  it('meters ArrayBuffer memory outside the heap', async () => {
    const programs = [
      'const keep: ArrayBuffer[] = [];\nfor (let index = 0; index < 64; index += 1) keep.push(new ArrayBuffer(16 * 1024 * 1024));\nreturn keep.length;',
      'return new Float64Array(2 ** 28).length;',
      'const small = new Uint8Array(8 * 1024 * 1024);\nconst copies = [];\nfor (let index = 0; index < 16; index += 1) copies.push(small.toReversed());\nreturn copies.length;',
      'const source = new Uint8Array(8 * 1024 * 1024);\n(source as any).constructor = undefined;\nconst copies = [];\nfor (let index = 0; index < 16; index += 1) copies.push(source.slice());\nreturn copies.length;',
    ];
    for (const program of programs) {
      const result = await runtime.run({ program });
      expect(failure(result), program).toMatchObject({ kind: 'memory', limitBytes: 48 * mebibyte });
    }
    await stillServes();
  });

  it('reports memory even when the program catches the allocation error', async () => {
    const result = await runtime.run({
      program: "try { new ArrayBuffer(2 ** 30); } catch { console.log('caught'); }\nreturn 'carried on';",
    });
    expect(failure(result)).toMatchObject({ kind: 'memory' });
  });
});

describe('worker-thread budgets: floods and oversized output', () => {
  it('caps timers per run', async () => {
    const result = await runtime.run({ program: 'for (;;) setTimeout(() => {}, 1000);' });
    expect(failure(result)).toMatchObject({ kind: 'exception', name: 'RangeError' });
  });

  it('clears timers at the end of the run', async () => {
    const result = await runtime.run({
      program: "setTimeout(() => console.log('too late'), 50);\nreturn 'returned';",
    });
    expect(result).toMatchObject({ ok: true, value: 'returned', logs: [] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await stillServes();
  });

  it('truncates a log flood visibly', async () => {
    const result = await runtime.run({
      program: "for (let index = 0; index < 100000; index += 1) console.log('line ' + index);\nreturn 'flooded';",
    });
    expect(result).toMatchObject({ ok: true, value: 'flooded', logsTruncated: true });
    expect(result.logs.at(-1)?.text).toContain('Output truncated');
    expect(result.usage.outputBytes).toBeLessThanOrEqual(2_048 + 'flooded'.length + 2);
  });

  it('refuses a huge value without building it on the host', async () => {
    const huge = await runtime.run({ program: "return 'x'.repeat(10_000_000);" });
    expect(failure(huge)).toMatchObject({ kind: 'output-limit', limitBytes: 4_096 });
    const cyclic = await runtime.run({ program: 'const node: any = { name: "n" };\nnode.self = node;\nreturn node;' });
    expect(failure(cyclic)?.message).toContain('$.self is a cycle back to $');
    const bigint = await runtime.run({ program: 'return [1n];' });
    expect(failure(bigint)?.message).toContain('$[0] is a BigInt');
  });

  it('reports an unhandled rejection as a warning without failing the run', async () => {
    const result = await runtime.run({
      program:
        "Promise.reject(new Error('ignored'));\nawait new Promise((resolve) => setTimeout(resolve, 5));\nreturn 'fine';",
    });
    expect(result).toMatchObject({ ok: true, value: 'fine' });
    expect(result.logs[0]).toMatchObject({ level: 'warn' });
    expect(result.logs[0]?.text).toContain('ignored');
    expect(result.logs[1]?.text).toBe('    at program.ts:1:16');
  });

  it('fails a run whose timer callback throws', async () => {
    const result = await runtime.run({
      program: "setTimeout(() => { throw new TypeError('from a timer'); }, 1);\nawait new Promise(() => {});",
    });
    expect(failure(result)).toMatchObject({ kind: 'exception', name: 'TypeError', line: 1 });
  });

  it('refuses host calls past the budget and arguments that are not JSON', async () => {
    const limited = createWorkerThreadCodeRuntime({ poolSize: 1, hostCalls: 3, hostCallBytes: 100 });
    try {
      const result = await limited.run({
        program: [
          'const outcomes: string[] = [];',
          'for (let index = 0; index < 6; index += 1) {',
          "  try { await tools.echo(index); outcomes.push('ok'); } catch (error) { outcomes.push((error as Error).message.slice(0, 20)); }",
          '}',
          'return outcomes;',
        ].join('\n'),
        bindings: { tools },
      });
      expect(result.ok && result.value).toEqual([
        'ok',
        'ok',
        'ok',
        'The host-call budget',
        'The host-call budget',
        'The host-call budget',
      ]);
      const nonJson = await limited.run({
        program: 'try { await tools.echo({ when: 10n }); } catch (error) { return (error as Error).message; }',
        bindings: { tools },
      });
      expect(nonJson.ok && nonJson.value).toContain('$.when is a BigInt');
    } finally {
      await limited.dispose();
    }
  });
});
