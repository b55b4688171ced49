import { compileThreadActivity } from '@sluice/code-runtime-kit';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createQuickJsCodeRuntime } from './index.js';

// A wall budget shorter than preparing `slowProgram` takes, and room for its megabyte.
const hurried = createQuickJsCodeRuntime({ wallTimeMs: 300, sourceBytes: 2 * 1024 * 1024 });
const runtime = createQuickJsCodeRuntime({});
afterAll(async () => {
  await Promise.all([hurried.dispose(), runtime.dispose()]);
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

describe('QuickJsCodeRuntime, preparing programs', () => {
  it('stops preparing a program when its run times out, and the host goes quiet', async () => {
    // The parser loaded first: its load is the same for every program and V8 cannot interrupt it (a
    // run that times out during it leaves the thread to finish it, see the kit's compile-thread
    // tests), so the run below times out while its own program is being parsed.
    expect(await runtime.run({ program: 'const warm: number = 1;\nreturn warm;' })).toMatchObject({ ok: true });
    const result = await hurried.run({ program: slowProgram });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'timeout', budget: 'wall-time' } });
    expect(compileThreadActivity().compiling).toBe(false);
    const quiet = { compiling: false, finishing: false, ending: 0 };
    await vi.waitFor(() => expect(compileThreadActivity()).toMatchObject(quiet), {
      timeout: 10_000,
      interval: 20,
    });
    // A parse still going would take most of a core over the window; an ended compile thread takes none.
    expect(await processCpuOver(1_000)).toBeLessThan(500);
  }, 30_000);

  it('refuses 40 KB of nested blocks at once, as an exception', async () => {
    const result = await runtime.run({ program: `${'{'.repeat(20_000)}${'}'.repeat(20_000)}` });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'exception', name: 'SyntaxError' } });
  }, 30_000);
});
