import type { CodeRunResult, HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';
import { childPids } from './worker-processes.test-helper.js';

// Each of these programs aborted the whole host process when the workers lived in it (V8 treats
// a worker's heap exhausted by one large allocation as fatal for the process). Each must now end
// as a result, and the same runtime must serve the next run; this test process staying alive is
// the rest of the assertion.
const mebibyte = 1024 * 1024;
const echo: HostFunction = async (input) => input;

function kindOf(result: CodeRunResult): string {
  return result.ok ? 'ok' : result.failure.kind;
}

const growingArray = 'const rows: number[] = [];\nwhile (true) rows.push(Math.random());';

async function stillServes(runtime: ReturnType<typeof createWorkerThreadCodeRuntime>): Promise<void> {
  expect(
    await runtime.run({ program: 'return await tools.echo(41) + 1;', bindings: { tools: { echo } } }),
  ).toMatchObject({
    ok: true,
    value: 42,
  });
}

describe('worker-thread: the host survives what a program does to its memory', () => {
  it('ends a plain growing array as a result with the default settings', { timeout: 120_000 }, async () => {
    const runtime = createWorkerThreadCodeRuntime({});
    try {
      const result = await runtime.run({ program: growingArray });
      // Memory, or the busy-time budget when the collector thrashes on a loaded machine.
      expect(['memory', 'timeout']).toContain(kindOf(result));
      await stillServes(runtime);
    } finally {
      await runtime.dispose();
    }
  });

  // A small heap and budgets far away, so that only the memory budget can end these.
  const runtime = createWorkerThreadCodeRuntime({
    memoryBytes: 48 * mebibyte,
    cpuTimeMs: 100_000,
    wallTimeMs: 100_000,
  });
  afterAll(() => runtime.dispose());

  const shapes: Array<[string, string]> = [
    ['a plain growing array', growingArray],
    ['one huge array filled at once', 'return new Array(5e7).fill(0).length;'],
    [
      'an object gaining keys in a loop',
      'const keys: Record<string, number> = {};\nfor (let i = 0; ; i += 1) keys["k" + i] = i;',
    ],
    [
      'a Map growing in a loop',
      'const seen = new Map<number, string>();\nfor (let i = 0; ; i += 1) seen.set(i, "v" + i);',
    ],
    ['a 256 MiB string returned', "return 'x'.repeat(256 * 1024 * 1024);"],
  ];
  for (const [name, program] of shapes) {
    it(`ends ${name} as memory and serves the next run`, { timeout: 120_000 }, async () => {
      const result = await runtime.run({ program });
      expect(kindOf(result), JSON.stringify(result.ok ? result.value : result.failure).slice(0, 300)).toBe('memory');
      await stillServes(runtime);
    });
  }

  it('refuses a million-deep argument and return value with the path and the depth limit', {
    timeout: 120_000,
  }, async () => {
    const roomy = createWorkerThreadCodeRuntime({ cpuTimeMs: 100_000, wallTimeMs: 100_000 });
    try {
      const nest = 'let deep: unknown = 0;\nfor (let i = 0; i < 1_000_000; i += 1) deep = [deep];\n';
      const argument = await roomy.run({
        program: `${nest}try { await tools.echo(deep); return 'sent'; } catch (error) { return String(error); }`,
        bindings: { tools: { echo } },
      });
      expect(argument).toMatchObject({ ok: true });
      expect(argument.ok ? String(argument.value) : '').toContain('nested deeper than 512 levels');
      const returned = await roomy.run({ program: `${nest}return deep;` });
      expect(returned).toMatchObject({ ok: false, failure: { kind: 'invalid-output' } });
      expect(returned.ok ? '' : returned.failure.message).toContain('nested deeper than 512 levels');
      await stillServes(roomy);
    } finally {
      await roomy.dispose();
    }
  });
});

describe('worker-thread: a dead worker process', () => {
  it('ends the run it held as substrate-exit when it is killed from outside, and is replaced', async () => {
    const runtime = createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 });
    try {
      expect(await runtime.run({ program: 'return 1;' })).toMatchObject({ ok: true });
      const pidsBefore = childPids();
      let waiting: () => void = () => {};
      const inCall = new Promise<void>((resolve) => {
        waiting = resolve;
      });
      const wait: HostFunction = () => {
        waiting();
        return new Promise(() => {});
      };
      const run = runtime.start({ program: 'await tools.wait(null); return 2;', bindings: { tools: { wait } } });
      // Once the program is inside its process, kill that process from outside, as the OOM killer would.
      await inCall;
      const pids = childPids();
      expect(pids.length).toBeGreaterThan(0);
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      const result = await run.result;
      expect(result).toMatchObject({ ok: false, failure: { kind: 'substrate-exit' } });
      expect(pidsBefore.length).toBeGreaterThan(0);
      const after = await runtime.run({ program: 'return 3;' });
      expect(after, JSON.stringify(after)).toMatchObject({ ok: true, value: 3 });
    } finally {
      await runtime.dispose();
    }
  });
});

describe('worker-thread: a burst of runs', () => {
  it('settles every one of 400 runs started at once, some cancelled while they wait, some looping', {
    timeout: 120_000,
  }, async () => {
    const runtime = createWorkerThreadCodeRuntime({ poolSize: 2, wallTimeMs: 60_000, cpuTimeMs: 200 });
    try {
      const runs = Array.from({ length: 400 }, (_, index) => {
        const program = index % 10 === 3 ? 'while (true) {}' : `return await tools.echo(${index});`;
        const run = runtime.start({ program, bindings: { tools: { echo } } });
        if (index % 4 === 1) run.cancel('the caller moved on');
        return { index, run };
      });
      const results = await Promise.all(runs.map(({ run }) => run.result));
      results.forEach((result, index) => {
        if (index % 4 === 1) expect(kindOf(result)).toBe('abort');
        else if (index % 10 === 3) expect(kindOf(result)).toBe('timeout');
        else expect(result).toMatchObject({ ok: true, value: index });
      });
      await stillServes(runtime);
    } finally {
      await runtime.dispose();
    }
  });
});

describe('worker-thread: a dead TypeScript compiler', () => {
  it('restarts esbuild when its service process was killed, instead of failing every program as a syntax error', async () => {
    const runtime = createWorkerThreadCodeRuntime({ poolSize: 1 });
    try {
      // An enum: types blanked in place need no esbuild, so these programs go the esbuild way.
      expect(await runtime.run({ program: 'enum A { One = 1 }\nreturn A.One;' })).toMatchObject({ ok: true, value: 1 });
      const services = childPids('--service=');
      expect(services.length).toBeGreaterThan(0);
      for (const pid of services) process.kill(pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const after = await runtime.run({ program: 'enum B { Two = 2 }\nreturn B.Two;' });
      expect(after, JSON.stringify(after)).toMatchObject({ ok: true, value: 2 });
    } finally {
      await runtime.dispose();
    }
  });
});
