import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { compileInThread, terminateCompileThread } from './compile-thread.js';
import { createWorkerThreadCodeRuntime } from './index.js';

const runtime = createWorkerThreadCodeRuntime({});
afterAll(async () => {
  await runtime.dispose();
});

describe('the compile thread', () => {
  it('keeps the TypeScript parser out of the host thread', async () => {
    expect(await runtime.run({ program: 'const n: number = 20;\nn + 22' })).toMatchObject({ ok: true, value: 42 });
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    expect(loaded.filter((file) => /[\\/]typescript[\\/]lib[\\/]typescript\.js$/.test(file))).toEqual([]);
  });

  it('fails the compiles it held when it dies, and a new one serves the next run', async () => {
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
  });
});
