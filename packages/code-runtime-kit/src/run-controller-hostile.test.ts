import { type Bindings, normalizeBindings, utf8ByteLength } from '@sluice/code-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { RunController } from './run-controller.js';
import { defaultRunLimits, type RunLimits } from './run-limits.js';

const created: RunController[] = [];

afterEach(() => {
  for (const controller of created.splice(0)) controller.cancel('the test ended');
});

function createController(options: { bindings?: Bindings; limits?: Partial<RunLimits> } = {}): RunController {
  const controller = new RunController({
    bindings: normalizeBindings(options.bindings),
    limits: { ...defaultRunLimits, ...options.limits },
  });
  created.push(controller);
  return controller;
}

function thrower(): never {
  throw new Error('trap');
}

function throwingProxy(target: object = {}): object {
  return new Proxy(target, {
    get: thrower,
    has: thrower,
    ownKeys: thrower,
    getOwnPropertyDescriptor: thrower,
    getPrototypeOf: thrower,
    isExtensible: thrower,
  });
}

function nested(depth: number): unknown[] {
  const root: unknown[] = [];
  let current = root;
  for (let level = 1; level < depth; level += 1) {
    const next: unknown[] = [];
    current.push(next);
    current = next;
  }
  return root;
}

class UnreadableError extends Error {
  override get message(): string {
    return thrower();
  }
}

describe('RunController with hostile host functions and values', () => {
  it.each<[string, () => unknown]>([
    ['an Error whose message getter throws', () => new UnreadableError()],
    [
      'a null-prototype object with a throwing getter',
      () => Object.defineProperty(Object.create(null), 'x', { get: thrower, enumerable: true }),
    ],
    ['a Proxy whose every trap throws', () => throwingProxy()],
    ['a symbol', () => Symbol('odd')],
    ['undefined', () => undefined],
    ['an object whose toJSON and Symbol.toPrimitive throw', () => ({ toJSON: thrower, [Symbol.toPrimitive]: thrower })],
  ])('replies with a readable error when a host function throws %s', async (_label, make) => {
    const run = createController({
      bindings: {
        tools: {
          fail: () => {
            throw make();
          },
        },
      },
    });
    const reply = await run.call('tools', 'fail', null);
    expect(reply?.ok).toBe(false);
    expect(typeof (reply as { error: string }).error).toBe('string');
    run.finish({ ok: true });
    expect((await run.result).ok).toBe(true);
  });

  it('cuts a 5 MB error message to the hostCallBytes budget, in the reply and in calls[].error', async () => {
    const run = createController({
      bindings: { tools: { fail: () => Promise.reject(new Error('é'.repeat(2_500_000))) } },
      limits: { hostCallBytes: 4096 },
    });
    const reply = await run.call('tools', 'fail', null);
    const error = reply?.ok === false ? reply.error : '';
    expect(utf8ByteLength(error)).toBeLessThanOrEqual(4096);
    expect(error).toMatch(/\[cut: 2500000 characters in all\]$/);
    run.finish({ ok: true });
    const [call] = (await run.result).calls;
    expect(utf8ByteLength(call?.error ?? '')).toBeLessThanOrEqual(4096);
  });

  it('refuses a host function result that is a Proxy whose every trap throws', async () => {
    // `then` reads as undefined, so the value is not taken for a promise and reaches the check.
    const odd = new Proxy(
      {},
      {
        get: (_target, key) => (key === 'then' ? undefined : thrower()),
        ownKeys: thrower,
        getOwnPropertyDescriptor: thrower,
        getPrototypeOf: thrower,
      },
    );
    const run = createController({ bindings: { tools: { odd: () => odd as never } } });
    expect(await run.call('tools', 'odd', null)).toEqual({
      ok: false,
      error:
        'tools.odd returned a value that is not JSON: $ is an object that throws when it is read (a Proxy or another exotic object), which JSON cannot carry.',
    });
  });

  it('refuses a million-deep argument with a message naming the depth, without overflowing the stack', async () => {
    let invoked = false;
    const run = createController({
      bindings: {
        tools: {
          take: () => {
            invoked = true;
            return null;
          },
        },
      },
    });
    const reply = await run.call('tools', 'take', nested(1_000_000));
    expect(invoked).toBe(false);
    expect(reply).toMatchObject({ ok: false, error: expect.stringContaining('is nested deeper than 512 levels') });
  }, 60_000);

  it('refuses a million-deep host function result without overflowing the stack', async () => {
    const run = createController({ bindings: { tools: { deep: () => nested(1_000_000) as never } } });
    const reply = await run.call('tools', 'deep', null);
    expect(reply).toMatchObject({
      ok: false,
      error: expect.stringContaining('tools.deep returned a value that is not JSON'),
    });
  }, 60_000);

  it('ends a run whose program value is a million levels deep as invalid-output', async () => {
    const run = createController();
    run.finish({ ok: true, value: nested(1_000_000) });
    const result = await run.result;
    expect(result.ok ? undefined : result.failure).toMatchObject({
      kind: 'invalid-output',
      message: expect.stringContaining('is nested deeper than 512 levels'),
    });
  }, 60_000);

  it('counts the value bytes from the one walk, exactly as JSON.stringify would write them', async () => {
    const value = { text: 'héllo "✓" 🌊\n', list: [1, -2.5, 1e21, true, null] };
    const run = createController();
    run.finish({ ok: true, value });
    expect((await run.result).usage.outputBytes).toBe(utf8ByteLength(JSON.stringify(value)));
  });

  it.each<[string, () => unknown]>([
    ['a Proxy whose every trap throws', () => throwingProxy()],
    ['an Error whose message getter throws', () => new UnreadableError()],
    ['an Error with a 5 MB message', () => new Error('x'.repeat(5_000_000))],
  ])('ends the run as abort when the request signal is aborted with %s', async (_label, make) => {
    const controller = new AbortController();
    const run = new RunController({
      bindings: normalizeBindings(undefined),
      limits: defaultRunLimits,
      signal: controller.signal,
    });
    created.push(run);
    controller.abort(make());
    const result = await run.result;
    expect(result.ok ? undefined : result.failure.kind).toBe('abort');
    expect(utf8ByteLength(result.ok ? '' : result.failure.message)).toBeLessThanOrEqual(2048);
  });

  it.each<[string, unknown]>([
    ['a 5 MB string', 'x'.repeat(5_000_000)],
    ['a symbol', Symbol('why')],
    ['a Proxy whose every trap throws', throwingProxy()],
  ])('ends the run as abort when cancel is given %s', async (_label, reason) => {
    const run = createController();
    run.cancel(reason as string);
    const result = await run.result;
    expect(result.ok ? undefined : result.failure.kind).toBe('abort');
    expect(utf8ByteLength(result.ok ? '' : result.failure.message)).toBeLessThanOrEqual(2048);
  });

  it('serves 100,000 calls queued behind a concurrency of 1', async () => {
    let served = 0;
    const run = createController({
      bindings: {
        tools: {
          echo: async (input) => {
            served += 1;
            return input;
          },
        },
      },
      limits: { hostCalls: 100_000, concurrentHostCalls: 1, wallTimeMs: 600_000 },
    });
    const calls: Promise<unknown>[] = [];
    for (let index = 0; index < 100_000; index += 1) calls.push(run.call('tools', 'echo', index));
    const replies = await Promise.all(calls);
    expect(served).toBe(100_000);
    expect(replies[99_999]).toEqual({ ok: true, value: 99_999 });
    run.finish({ ok: true });
    expect((await run.result).usage.hostCalls).toBe(100_000);
  }, 120_000);
});

describe('RunController: text for the caller is well-formed Unicode', () => {
  it('replaces a lone surrogate in a failure and in a host-call error with U+FFFD', async () => {
    const broken = 'Launch 🚀 party'.slice(0, 8);
    const run = new RunController({
      bindings: normalizeBindings({ tools: { fail: async () => Promise.reject(new Error(broken)) } }),
      limits: defaultRunLimits,
    });
    expect(await run.call('tools', 'fail', null)).toEqual({ ok: false, error: broken });
    run.finish({ ok: false, failure: { kind: 'exception', message: broken, stack: `Error: ${broken}` } });
    const result = await run.result;
    expect(result.calls[0]?.error).toBe('Launch \uFFFD');
    expect(result).toMatchObject({ ok: false, failure: { message: 'Launch \uFFFD', stack: 'Error: Launch \uFFFD' } });
  });
});
