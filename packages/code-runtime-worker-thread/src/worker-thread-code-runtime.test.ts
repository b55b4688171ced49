import { type CodeRunEvent, type HostFunction, InvalidSettingsError, RuntimeDisposedError } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime, workerThreadDefaults } from './index.js';

const runtime = createWorkerThreadCodeRuntime({ poolSize: 2, wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

const echo: HostFunction = async (input) => input;
const tools = { echo };

describe('createWorkerThreadCodeRuntime', () => {
  it('names itself and states what isolates a program', () => {
    expect(runtime.id).toBe('worker-thread');
    expect(runtime.language).toBe('typescript');
    expect(runtime.specificationVersion).toBe('code-runtime-v1');
    expect(runtime.isolation).toContain('fresh V8 context');
    expect(runtime.isolation).toContain('supervised child process');
    expect(runtime.isolation).toContain("shares the host's kernel");
    expect(runtime.isolation).toContain('128 MiB');
  });

  it('fills in the documented defaults', () => {
    expect(createWorkerThreadCodeRuntime().settings).toEqual(workerThreadDefaults);
    expect(workerThreadDefaults).toMatchObject({ wallTimeMs: 30_000, cpuTimeMs: 10_000, poolSize: 4, timers: 1_000 });
  });

  it('rejects a bad setting at once, naming it', () => {
    const bad = [{ cpuTimeMs: 0 }, { memoryBytes: 1024 }, { poolSize: 1.5 }, { wallTimeMs: '5' }, { walltimeMs: 5 }];
    for (const settings of bad) {
      let thrown: unknown;
      try {
        createWorkerThreadCodeRuntime(settings as never);
      } catch (error) {
        thrown = error;
      }
      expect(InvalidSettingsError.isInstance(thrown)).toBe(true);
      expect((thrown as InvalidSettingsError).setting).toBe(Object.keys(settings)[0]);
    }
  });

  it('refuses to start after dispose', async () => {
    const disposable = createWorkerThreadCodeRuntime({ poolSize: 1 });
    expect((await disposable.run({ program: 'return 1;' })).ok).toBe(true);
    await disposable.dispose();
    expect(() => disposable.start({ program: 'return 1;' })).toThrow(RuntimeDisposedError);
  });
});

describe('WorkerThreadCodeRuntime programs', () => {
  it('runs a TypeScript body with top-level await and return', async () => {
    const program = [
      'interface Reply { x: number }',
      'enum Step { One = 1 }',
      'const reply = (await tools.echo({ x: Step.One })) as Reply;',
      'return reply.x satisfies number;',
    ].join('\n');
    const result = await runtime.run({ program, bindings: { tools } });
    expect(result).toMatchObject({ ok: true, value: 1 });
  });

  it('reports a syntax error with its line and column, without running anything', async () => {
    const calls: unknown[] = [];
    const record: HostFunction = async (input) => {
      calls.push(input);
      return null;
    };
    const result = await runtime.run({
      program: "await tools.record('sent');\nconst x: number = 1;\nconst broken = ;",
      bindings: { tools: { record } },
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.failure).toMatchObject({ kind: 'exception', name: 'SyntaxError', line: 3, column: 16 });
    expect(calls).toEqual([]);
  });

  it('maps thrown errors and their stack back to the program lines', async () => {
    const program = [
      'type Point = { x: number };',
      'function check(point: Point): void {',
      "  if (point.x > 0) throw new RangeError('too far');",
      '}',
      'await tools.echo(null);',
      'check({ x: 1 });',
    ].join('\n');
    const result = await runtime.run({ program, bindings: { tools } });
    expect(!result.ok && result.failure).toMatchObject({ kind: 'exception', name: 'RangeError', line: 3, column: 26 });
    const stack = !result.ok && result.failure.kind === 'exception' ? result.failure.stack : '';
    expect(stack).toBe('RangeError: too far\n    at check (program.ts:3:26)\n    at program.ts:6:1');
  });

  it('formats console output readably, one entry per line', async () => {
    const program = [
      "console.log('plain', 1, -0, 2n, null, undefined, true);",
      "console.info({ a: [1, 'two', { deep: { deeper: { deepest: 1 } } }], 'b c': new Map([['k', new Set([1])]]) });",
      "console.warn('two\\nlines');",
      'class Point { constructor(public x: number) {} }',
      'console.error(new Point(1), [function named() {}, Symbol("s")], new Error("shown"));',
      'console.debug({ get lazy() { throw new Error("never run") } });',
      "console.log('%s has %d items, %i%% done: %j %o', 'cart', 3, 42.9, { a: 1 }, 'quoted', 'extra');",
    ].join('\n');
    const result = await runtime.run({ program });
    expect(result.ok).toBe(true);
    const texts = result.logs.map((entry) => `${entry.level}|${entry.text.split('\n')[0]}`);
    expect(texts).toEqual([
      'log|plain 1 -0 2n null undefined true',
      "info|{ a: [ 1, 'two', { deep: [Object] } ], 'b c': Map(1) { 'k' => Set(1) { 1 } } }",
      'warn|two',
      'warn|lines',
      'error|Point { x: 1 } [ [Function: named], Symbol(s) ] Error: shown',
      'error|    at program.ts:5:65',
      'debug|{ lazy: [Getter] }',
      `log|cart has 3 items, 42% done: {"a":1} 'quoted' extra`,
    ]);
  });

  it('streams logs and host-call events while the run is going', async () => {
    const events: CodeRunEvent[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const wait: HostFunction = async () => {
      await gate;
      return 'released';
    };
    const run = runtime.start({
      program: "console.log('before');\nconst answer = await tools.wait();\nconsole.log('after');\nreturn answer;",
      bindings: { tools: { wait } },
      onEvent: (event) => events.push(event),
    });
    await expect.poll(() => events.map((event) => event.type)).toEqual(['log', 'host-call-start']);
    release();
    const result = await run.result;
    expect(result).toMatchObject({ ok: true, value: 'released' });
    expect(events.map((event) => event.type)).toEqual(['log', 'host-call-start', 'host-call-end', 'log']);
  });

  it('fans host calls out concurrently with Promise.all', async () => {
    let inFlight = 0;
    let peak = 0;
    const slow: HostFunction = async (input) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 30));
      inFlight -= 1;
      return input;
    };
    const result = await runtime.run({
      program: 'return await Promise.all([1, 2, 3, 4].map((n) => tools.slow(n)));',
      bindings: { tools: { slow } },
    });
    expect(result).toMatchObject({ ok: true, value: [1, 2, 3, 4] });
    expect(peak).toBe(4);
  });

  it('offers setTimeout and clearTimeout for backoff', async () => {
    const program = [
      'let fired = 0;',
      'const cleared = setTimeout(() => { fired += 100; }, 5);',
      'clearTimeout(cleared);',
      'await new Promise((resolve) => setTimeout(() => { fired += 1; resolve(null); }, 10));',
      'return fired;',
    ].join('\n');
    expect(await runtime.run({ program })).toMatchObject({ ok: true, value: 1 });
  });

  it('leaves nothing of one run to the next', async () => {
    await runtime.run({ program: "globalThis.leftover = 'mine'; Object.prototype.polluted = 1; return 1;" });
    for (let index = 0; index < 4; index += 1) {
      const result = await runtime.run({ program: 'return [typeof leftover, typeof ({} as any).polluted];' });
      expect(result).toMatchObject({ ok: true, value: ['undefined', 'undefined'] });
    }
  });

  it('returns nothing, null, and refuses values JSON cannot carry', async () => {
    expect(await runtime.run({ program: 'return;' })).not.toHaveProperty('value');
    expect(await runtime.run({ program: 'return null;' })).toMatchObject({ ok: true, value: null });
    const nan = await runtime.run({ program: 'return { list: [1, { ratio: 0 / 0 }] };' });
    expect(!nan.ok && nan.failure.kind).toBe('invalid-output');
    expect(!nan.ok && nan.failure.message).toContain('$.list[1].ratio is NaN');
  });

  it('ends un-awaited host calls with the run and aborts their signal', async () => {
    let aborted: boolean | undefined;
    const slow: HostFunction = async (_input, { signal }) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      aborted = signal.aborted;
      return 'late';
    };
    const result = await runtime.run({ program: "tools.slow(null);\nreturn 'done';", bindings: { tools: { slow } } });
    expect(result).toMatchObject({ ok: true, value: 'done' });
    expect(result.calls).toMatchObject([{ name: 'slow', ok: false }]);
    await expect.poll(() => aborted).toBe(true);
  });
});
