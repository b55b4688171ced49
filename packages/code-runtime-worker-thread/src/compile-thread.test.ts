import { createRequire } from 'node:module';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { compileInThread, compileThreadActivity, terminateCompileThread } from './compile-thread.js';
import { createWorkerThreadCodeRuntime } from './index.js';

const runtime = createWorkerThreadCodeRuntime({});
// A wall budget shorter than preparing `slowProgram` takes, and room for its megabyte.
const hurried = createWorkerThreadCodeRuntime({ wallTimeMs: 300, sourceBytes: 2 * 1024 * 1024 });
afterAll(async () => {
  await Promise.all([runtime.dispose(), hurried.dispose()]);
});

/** A program the compile thread takes seconds to prepare: a megabyte of statements. */
// TypeScript (the annotation), so it is prepared by the parser, not taken as plain JavaScript.
const slowProgram = `let x: number = 0;\n${'x = x + 1;\n'.repeat(100_000)}return x;`;

/** CPU time (ms) the host process spends over a window in which the test itself does nothing. */
async function processCpuOver(windowMs: number): Promise<number> {
  const before = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

describe('the compile thread', () => {
  it('keeps the TypeScript parser out of the host thread', async () => {
    expect(await runtime.run({ program: 'const n: number = 20;\nn + 22' })).toMatchObject({ ok: true, value: 42 });
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    expect(loaded.filter((file) => /[\\/]typescript[\\/]lib[\\/]typescript\.js$/.test(file))).toEqual([]);
  }, 30_000);

  it('fails the compile it held when it dies, and a new one serves the next run', async () => {
    // Long enough to be still in the thread when it is ended: a short program is ready in a millisecond.
    const pending = compileInThread(`const a: string = "first";\n${'a;\n'.repeat(50_000)}a`);
    await terminateCompileThread();
    const ended = await pending;
    expect(ended).toMatchObject({ ok: false, failure: { kind: 'substrate-exit' } });
    if (!ended.ok) expect(ended.failure.message).toContain('The thread that prepares TypeScript programs stopped');
    expect(await runtime.run({ program: 'const b: string = "second";\nb' })).toMatchObject({
      ok: true,
      value: 'second',
    });
  }, 30_000);

  it('stops preparing a program when its run times out, and the host goes quiet', async () => {
    expect(await runtime.run({ program: 'const warm: number = 1;\nwarm' })).toMatchObject({ ok: true });
    const result = await hurried.run({ program: slowProgram });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'timeout', budget: 'wall-time' } });
    expect(compileThreadActivity().compiling).toBe(false);
    await vi.waitFor(() => expect(compileThreadActivity()).toMatchObject({ compiling: false, ending: 0 }), {
      timeout: 10_000,
      interval: 20,
    });
    // A parse still going would take most of a core over the window; an ended compile thread takes none.
    expect(await processCpuOver(1_000)).toBeLessThan(500);
  }, 30_000);

  it("prepares another run's program when the one ahead of it is abandoned", async () => {
    const slow = hurried.run({ program: slowProgram });
    const other = runtime.run({ program: 'const other: string = "other";\nother' });
    await vi.waitFor(() => expect(compileThreadActivity()).toMatchObject({ compiling: true, waiting: 1 }));
    expect(await slow).toMatchObject({ ok: false, failure: { kind: 'timeout' } });
    expect(await other).toMatchObject({ ok: true, value: 'other' });
  }, 30_000);

  it('refuses 40 KB of nested blocks at once, as an exception', async () => {
    const result = await runtime.run({ program: `${'{'.repeat(20_000)}${'}'.repeat(20_000)}` });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'exception', name: 'SyntaxError' } });
  }, 30_000);
});
