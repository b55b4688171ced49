import { execFileSync } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { compileInThread, compileThreadActivity, terminateCompileThread } from './compile-thread.js';

/** A program the thread takes seconds to prepare: a megabyte of statements (the parse is linear, and slow at that size). */
// TypeScript (the annotation), so it is prepared by the parser, not taken as plain JavaScript.
const slowProgram = `let x: number = 0;\n${'x = x + 1;\n'.repeat(100_000)}return x;`;

/** Resolves once the thread has been working on what it was given for a moment. */
async function whileCompiling(): Promise<void> {
  expect(compileThreadActivity().compiling).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 200));
}

/** Waits until no compile is in the thread, none is being finished, and every terminated thread has exited. */
async function quiet(): Promise<void> {
  await vi.waitFor(
    () => {
      expect(compileThreadActivity()).toMatchObject({ compiling: false, finishing: false, ending: 0 });
    },
    { timeout: 10_000, interval: 20 },
  );
}

/** CPU time (ms) the process spends over a window in which the test itself does nothing. */
async function processCpuOver(windowMs: number): Promise<number> {
  const before = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

describe('the compile thread', () => {
  it('starts in a host started with flags a worker cannot take (node --input-type=module -e)', () => {
    const script = `
import { compileInThread } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
const result = await compileInThread('const x: number = 1;\\nreturn x;');
process.stdout.write(JSON.stringify({ ok: result.ok, kind: result.ok ? undefined : result.failure.kind }));
process.exit(0);
`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(output)).toEqual({ ok: true });
  }, 60_000);

  it('stops working on a compile when its signal aborts, and the process goes quiet', async () => {
    expect(await compileInThread('const warm: number = 1;\nreturn warm;')).toMatchObject({ ok: true });
    const controller = new AbortController();
    const pending = compileInThread(slowProgram, controller.signal);
    await whileCompiling();
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, failure: { kind: 'abort' } });
    expect(compileThreadActivity().compiling).toBe(false);
    await quiet();
    // A parse still going would take most of a core over the window; an ended thread takes none.
    expect(await processCpuOver(1_000)).toBeLessThan(500);
  }, 30_000);

  it('keeps a thread whose compile is given up while the parser loads, and never parses that program', async () => {
    // A new thread, which has not loaded the parser yet.
    await terminateCompileThread();
    await quiet();
    const controller = new AbortController();
    const abandoned = compileInThread(slowProgram, controller.signal);
    const behind = compileInThread('const after: string = "after";\nreturn after;');
    // Given up at once: the thread has not even started, let alone the program's own work.
    controller.abort();
    expect(await abandoned).toMatchObject({ ok: false, failure: { kind: 'abort' } });
    expect(compileThreadActivity()).toMatchObject({ compiling: false, finishing: true, waiting: 1, ending: 0 });
    // The compile behind it runs in the same thread, once the parser has loaded; none was terminated.
    expect(await behind).toMatchObject({ ok: true });
    expect(compileThreadActivity()).toMatchObject({ compiling: false, finishing: false, waiting: 0, ending: 0 });
    // Parsing the megabyte would take most of a core over the window; the thread dropped it.
    expect(await processCpuOver(1_000)).toBeLessThan(500);
  }, 60_000);

  it('sends the compiles waiting behind an abandoned one to a new thread, where they succeed', async () => {
    const controller = new AbortController();
    const abandoned = compileInThread(slowProgram, controller.signal);
    const behind = compileInThread('const after: string = "after";\nreturn after;');
    await whileCompiling();
    expect(compileThreadActivity().waiting).toBe(1);
    controller.abort();
    expect(await abandoned).toMatchObject({ ok: false, failure: { kind: 'abort' } });
    expect(await behind).toMatchObject({ ok: true });
    await quiet();
  }, 30_000);

  it('drops a waiting compile whose signal aborts and leaves the thread on its own compile', async () => {
    const working = compileInThread(`let y = 0;\n${'y = y + 1;\n'.repeat(20_000)}return y;`);
    const controller = new AbortController();
    const waiting = compileInThread('const never: number = 1;\nreturn never;', controller.signal);
    controller.abort();
    expect(await waiting).toMatchObject({ ok: false, failure: { kind: 'abort' } });
    expect(compileThreadActivity()).toMatchObject({ compiling: true, waiting: 0, ending: 0 });
    expect(await working).toMatchObject({ ok: true });
  }, 30_000);

  it('answers a compile whose signal has already aborted without starting it', async () => {
    const result = await compileInThread('return 1;', AbortSignal.abort());
    expect(result).toMatchObject({ ok: false, failure: { kind: 'abort' } });
    expect(compileThreadActivity()).toMatchObject({ compiling: false, waiting: 0 });
  });
});
