import { type CodeRunResult, type CodeRuntime, specificationVersion } from '@sluice/code-runtime';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createContext } from './context.js';
import { CapabilityConflictError } from './errors/capability-conflict-error.js';
import { CapabilityMissingError } from './errors/capability-missing-error.js';
import { ContextDisposedError } from './errors/context-disposed-error.js';
import { InvalidCapabilityError } from './errors/invalid-capability-error.js';
import type { CapabilityPlugin } from './plugin.js';

interface StubCodeRuntime extends CodeRuntime {
  readonly disposeCalls: number;
}

// A runtime that runs nothing: a run's value is its program text. `order` records each disposal.
function createStubCodeRuntime(label = 'stub', order: string[] = []): StubCodeRuntime {
  let disposeCalls = 0;
  const runtime: StubCodeRuntime = {
    specificationVersion,
    id: label,
    language: 'typescript',
    isolation: 'None: the stub runs nothing.',
    get disposeCalls() {
      return disposeCalls;
    },
    start(request) {
      const result: CodeRunResult = {
        ok: true,
        runId: `${label}-run`,
        value: request.program,
        logs: [],
        logsTruncated: false,
        calls: [],
        usage: { wallMs: 0, hostCalls: 0, outputBytes: 0 },
      };
      return { id: result.runId, result: Promise.resolve(result), cancel: () => undefined };
    },
    run: (request) => runtime.start(request).result,
    async dispose() {
      disposeCalls += 1;
      order.push(label);
    },
  };
  return runtime;
}

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the action to throw');
}

const stubPlugin = {
  name: 'stub-plugin',
  capability: 'codeRuntime',
  create: (settings?: { label?: string }) => createStubCodeRuntime(settings?.label ?? 'from-plugin'),
} as const;

describe('createContext', () => {
  it('returns a context that holds nothing', () => {
    const ctx = createContext();
    expect(ctx.has('codeRuntime')).toBe(false);
  });

  it('types ctx.codeRuntime and ctx.get from Capabilities', () => {
    const ctx = createContext();
    expectTypeOf(ctx.get<'codeRuntime'>).returns.toEqualTypeOf<CodeRuntime>();
    expectTypeOf<typeof ctx.codeRuntime>().toEqualTypeOf<CodeRuntime>();
  });
});

describe('Context.provide', () => {
  it('makes the value readable as ctx.codeRuntime and ctx.get', async () => {
    const ctx = createContext();
    const runtime = createStubCodeRuntime();
    ctx.provide('codeRuntime', runtime);
    expect(ctx.codeRuntime).toBe(runtime);
    expect(ctx.get('codeRuntime')).toBe(runtime);
    expect(ctx.has('codeRuntime')).toBe(true);
    await expect(ctx.codeRuntime.run({ program: 'return 1' })).resolves.toMatchObject({ ok: true, value: 'return 1' });
  });

  it('throws CapabilityConflictError on a taken name and keeps the first value', () => {
    const ctx = createContext();
    const first = createStubCodeRuntime('first');
    const second = createStubCodeRuntime('second');
    ctx.provide('codeRuntime', first, { provider: 'worker-thread' });
    const error = thrown(() => ctx.provide('codeRuntime', second));
    expect(CapabilityConflictError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ capability: 'codeRuntime' });
    expect((error as Error).message).toContain('already provided by worker-thread');
    expect((error as Error).message).toContain('{ replace: true }');
    expect(ctx.codeRuntime).toBe(first);
    expect(first.disposeCalls).toBe(0);
    expect(second.disposeCalls).toBe(0);
  });

  it('replaces with { replace: true } and disposes the old value', () => {
    const ctx = createContext();
    const first = createStubCodeRuntime('first');
    const second = createStubCodeRuntime('second');
    ctx.provide('codeRuntime', first);
    ctx.provide('codeRuntime', second, { replace: true });
    expect(ctx.codeRuntime).toBe(second);
    expect(first.disposeCalls).toBe(1);
    expect(second.disposeCalls).toBe(0);
  });

  it('does not dispose a value replaced by itself', async () => {
    const ctx = createContext();
    const runtime = createStubCodeRuntime();
    ctx.provide('codeRuntime', runtime);
    ctx.provide('codeRuntime', runtime, { replace: true });
    expect(runtime.disposeCalls).toBe(0);
    await ctx.dispose();
    expect(runtime.disposeCalls).toBe(1);
  });

  it('accepts { replace: true } when nothing is provided yet', () => {
    const ctx = createContext();
    const runtime = createStubCodeRuntime();
    ctx.provide('codeRuntime', runtime, { replace: true });
    expect(ctx.codeRuntime).toBe(runtime);
  });

  it('refuses a codeRuntime that does not speak code-runtime-v1', () => {
    const ctx = createContext();
    const future = { ...createStubCodeRuntime(), specificationVersion: 'code-runtime-v2' };
    const error = thrown(() => ctx.provide('codeRuntime', future as unknown as CodeRuntime));
    expect(InvalidCapabilityError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      'The value provided as codeRuntime must implement code-runtime-v1, got specificationVersion "code-runtime-v2".',
    );
    expect(ctx.has('codeRuntime')).toBe(false);
  });

  it.each([
    ['null', null],
    ['a string', 'runtime'],
    ['an object without methods', { specificationVersion }],
  ])('refuses %s as a codeRuntime', (_label, value) => {
    const ctx = createContext();
    expect(() => ctx.provide('codeRuntime', value as unknown as CodeRuntime)).toThrow(InvalidCapabilityError);
  });

  it('refuses undefined and points at remove', () => {
    const ctx = createContext();
    const error = thrown(() => ctx.provide('codeRuntime', undefined as unknown as CodeRuntime));
    expect(InvalidCapabilityError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("ctx.remove('codeRuntime')");
  });

  it.each(['get', 'provide', 'plugin', 'has', 'declare', 'remove', 'dispose', 'then', 'constructor', '__proto__'])(
    'refuses the name %j, which would hide a member of the context',
    (name) => {
      const ctx = createContext();
      const error = thrown(() => ctx.provide(name as 'codeRuntime', createStubCodeRuntime()));
      expect(CapabilityConflictError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ capability: name });
    },
  );

  it.each(['', 'code-runtime', '1st', 'a b'])('refuses the name %j, which is not an identifier', (name) => {
    const ctx = createContext();
    expect(() => ctx.provide(name as 'codeRuntime', createStubCodeRuntime())).toThrow(InvalidCapabilityError);
  });

  it('keeps the context awaitable as a plain object', async () => {
    const ctx = createContext();
    expect(await Promise.resolve(ctx)).toBe(ctx);
  });
});

describe('Context.get', () => {
  it('throws CapabilityMissingError naming the packages to install for codeRuntime', () => {
    const ctx = createContext();
    const error = thrown(() => ctx.codeRuntime);
    expect(CapabilityMissingError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      capability: 'codeRuntime',
      install: ['@sluice/code-runtime-worker-thread', '@sluice/code-runtime-quickjs', '@sluice/code-runtime-python'],
    });
    expect((error as Error).message).toBe(
      'No codeRuntime is provided to this context. Install @sluice/code-runtime-worker-thread, ' +
        "@sluice/code-runtime-quickjs or @sluice/code-runtime-python and provide it where the context is created: ctx.provide('codeRuntime', value) " +
        'or ctx.plugin(plugin, settings).',
    );
  });

  it('throws the same error from ctx.get', () => {
    const ctx = createContext();
    expect(() => ctx.get('codeRuntime')).toThrow(CapabilityMissingError);
  });

  it('names the packages of a declared capability', () => {
    const ctx = createContext();
    ctx.declare('codeRuntime', { install: ['@acme/code-runtime-lua'] });
    expect(thrown(() => ctx.codeRuntime)).toMatchObject({
      install: ['@acme/code-runtime-lua'],
      message: expect.stringContaining('Install @acme/code-runtime-lua and provide it'),
    });
  });

  it('says when nobody declared a capability', () => {
    const ctx = createContext();
    const error = thrown(() => ctx.get('clock' as 'codeRuntime'));
    expect(error).toMatchObject({ capability: 'clock', install: [] });
    expect((error as Error).message).toContain('no package declared it');
  });

  it('lists three or more packages with commas', () => {
    const ctx = createContext({ capabilities: { codeRuntime: { install: ['@a/one', '@a/two', '@a/three'] } } });
    expect((thrown(() => ctx.codeRuntime) as Error).message).toContain('Install @a/one, @a/two or @a/three and');
  });

  it('reads through to the current value after a replacement', () => {
    const ctx = createContext();
    const first = createStubCodeRuntime('first');
    const second = createStubCodeRuntime('second');
    ctx.provide('codeRuntime', first);
    ctx.provide('codeRuntime', second, { replace: true });
    expect(ctx.codeRuntime).toBe(second);
  });
});

describe('Context.declare', () => {
  it('exposes a property for a capability declared in createContext', () => {
    const ctx = createContext({ capabilities: { codeRuntime: { install: ['@acme/runtime'] } } });
    expect(Object.getOwnPropertyDescriptor(ctx, 'codeRuntime')?.get).toBeTypeOf('function');
  });

  it('exposes capability properties as non-enumerable, so printing a context never throws', () => {
    const ctx = createContext();
    expect(Object.keys(ctx)).toEqual([]);
    expect(() => JSON.stringify(ctx)).not.toThrow();
  });

  it('runs a declared check when the capability is provided', () => {
    const ctx = createContext();
    ctx.declare('clock' as 'codeRuntime', {
      install: ['@acme/clock'],
      check: (value) => (typeof value === 'function' ? undefined : 'must be a function'),
    });
    expect(() => ctx.provide('clock' as 'codeRuntime', {} as CodeRuntime)).toThrow(
      'The value provided as clock must be a function.',
    );
  });

  it('refuses a declaration without an install list', () => {
    const ctx = createContext();
    expect(() => ctx.declare('codeRuntime', {} as never)).toThrow(InvalidCapabilityError);
    expect(() => ctx.declare('codeRuntime', { install: [1] } as never)).toThrow(InvalidCapabilityError);
  });
});

describe('Context.plugin', () => {
  it('provides what a plugin object creates, with its settings', () => {
    const ctx = createContext();
    ctx.plugin(stubPlugin, { label: 'configured' });
    expect(ctx.codeRuntime.id).toBe('configured');
  });

  it('passes undefined settings when none are given', () => {
    const ctx = createContext();
    ctx.plugin(stubPlugin);
    expect(ctx.codeRuntime.id).toBe('from-plugin');
  });

  it('checks for a conflict before creating anything', () => {
    const ctx = createContext();
    ctx.provide('codeRuntime', createStubCodeRuntime());
    let creates = 0;
    const counting: CapabilityPlugin<'codeRuntime'> = {
      name: 'counting',
      capability: 'codeRuntime',
      create: () => {
        creates += 1;
        return createStubCodeRuntime();
      },
    };
    expect(() => ctx.plugin(counting)).toThrow(CapabilityConflictError);
    expect(creates).toBe(0);
  });

  it('names the plugin that holds a capability in a later conflict', () => {
    const ctx = createContext();
    ctx.plugin(stubPlugin);
    expect(() => ctx.provide('codeRuntime', createStubCodeRuntime())).toThrow('already provided by stub-plugin');
  });

  it('replaces with { replace: true } and disposes the old value', () => {
    const ctx = createContext();
    const first = createStubCodeRuntime('first');
    ctx.provide('codeRuntime', first);
    ctx.plugin(stubPlugin, { label: 'second' }, { replace: true });
    expect(ctx.codeRuntime.id).toBe('second');
    expect(first.disposeCalls).toBe(1);
  });

  it('disposes a created value that the context refuses', async () => {
    const ctx = createContext();
    let disposed = 0;
    const broken = {
      name: 'broken',
      capability: 'codeRuntime',
      create: () => ({
        specificationVersion: 'code-runtime-v0',
        dispose: async () => {
          disposed += 1;
        },
      }),
    } as unknown as CapabilityPlugin<'codeRuntime'>;
    expect(() => ctx.plugin(broken)).toThrow(InvalidCapabilityError);
    await Promise.resolve();
    expect(disposed).toBe(1);
  });

  it('calls a function plugin with the context and the settings', () => {
    const ctx = createContext();
    ctx.plugin(
      (context, settings?: { label: string }) => {
        context.provide('codeRuntime', createStubCodeRuntime(settings?.label));
      },
      { label: 'from-function' },
    );
    expect(ctx.codeRuntime.id).toBe('from-function');
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['a string', 'worker-thread'],
    ['an object without a name', { capability: 'codeRuntime', create: () => null }],
    ['an object without a capability', { name: 'x', create: () => null }],
    ['an object without create', { name: 'x', capability: 'codeRuntime' }],
  ])('refuses %s as a plugin', (_label, plugin) => {
    const ctx = createContext();
    expect(() => ctx.plugin(plugin as unknown as CapabilityPlugin)).toThrow(InvalidCapabilityError);
  });
});

describe('Context.remove', () => {
  it('removes and disposes the value', async () => {
    const ctx = createContext();
    const runtime = createStubCodeRuntime();
    ctx.provide('codeRuntime', runtime);
    await ctx.remove('codeRuntime');
    expect(runtime.disposeCalls).toBe(1);
    expect(ctx.has('codeRuntime')).toBe(false);
    expect(() => ctx.codeRuntime).toThrow(CapabilityMissingError);
  });

  it('frees the name for a new provider', async () => {
    const ctx = createContext();
    ctx.provide('codeRuntime', createStubCodeRuntime('first'));
    await ctx.remove('codeRuntime');
    const second = createStubCodeRuntime('second');
    ctx.provide('codeRuntime', second);
    expect(ctx.codeRuntime).toBe(second);
  });

  it('does nothing for a capability nobody provided', async () => {
    const ctx = createContext();
    await expect(ctx.remove('codeRuntime')).resolves.toBeUndefined();
  });

  it('rejects with the error of a failing dispose', async () => {
    const ctx = createContext();
    const runtime = { ...createStubCodeRuntime(), dispose: () => Promise.reject(new Error('stuck')) };
    ctx.provide('codeRuntime', runtime);
    await expect(ctx.remove('codeRuntime')).rejects.toThrow('stuck');
    expect(ctx.has('codeRuntime')).toBe(false);
  });

  it('leaves alone a value without dispose', async () => {
    const ctx = createContext();
    ctx.declare('clock' as 'codeRuntime', { install: [] });
    ctx.provide('clock' as 'codeRuntime', { now: () => 1 } as unknown as CodeRuntime);
    await expect(ctx.remove('clock' as 'codeRuntime')).resolves.toBeUndefined();
  });
});

describe('Context.dispose', () => {
  it('disposes every value in reverse order of provision', async () => {
    const order: string[] = [];
    const ctx = createContext({ capabilities: { codeRuntime: { install: [] } } });
    ctx.provide('first' as 'codeRuntime', createStubCodeRuntime('first', order));
    ctx.provide('second' as 'codeRuntime', createStubCodeRuntime('second', order));
    ctx.provide('codeRuntime', createStubCodeRuntime('third', order));
    await ctx.dispose();
    expect(order).toEqual(['third', 'second', 'first']);
  });

  it('counts a replacement as a new provision', async () => {
    const order: string[] = [];
    const ctx = createContext();
    ctx.provide('codeRuntime', createStubCodeRuntime('old', order));
    ctx.provide('other' as 'codeRuntime', createStubCodeRuntime('other', order));
    ctx.provide('codeRuntime', createStubCodeRuntime('new', order), { replace: true });
    await ctx.dispose();
    expect(order).toEqual(['old', 'new', 'other']);
  });

  it('disposes each value once, even when it is held under two names', async () => {
    const ctx = createContext();
    const runtime = createStubCodeRuntime();
    ctx.provide('codeRuntime', runtime);
    ctx.provide('backupRuntime' as 'codeRuntime', runtime);
    await ctx.dispose();
    expect(runtime.disposeCalls).toBe(1);
  });

  it('does not dispose a replaced value still held under another name', async () => {
    const ctx = createContext();
    const shared = createStubCodeRuntime('shared');
    ctx.provide('codeRuntime', shared);
    ctx.provide('backupRuntime' as 'codeRuntime', shared);
    ctx.provide('codeRuntime', createStubCodeRuntime('new'), { replace: true });
    expect(shared.disposeCalls).toBe(0);
    await ctx.remove('backupRuntime' as 'codeRuntime');
    expect(shared.disposeCalls).toBe(1);
  });

  it('is idempotent and returns the same promise', async () => {
    const ctx = createContext();
    const runtime = createStubCodeRuntime();
    ctx.provide('codeRuntime', runtime);
    const first = ctx.dispose();
    const second = ctx.dispose();
    expect(second).toBe(first);
    await first;
    await ctx.dispose();
    expect(runtime.disposeCalls).toBe(1);
  });

  it('makes later provide, get, has, plugin, declare and remove throw ContextDisposedError', async () => {
    const ctx = createContext();
    ctx.provide('codeRuntime', createStubCodeRuntime());
    await ctx.dispose();
    expect(() => ctx.provide('codeRuntime', createStubCodeRuntime())).toThrow(ContextDisposedError);
    expect(() => ctx.get('codeRuntime')).toThrow(ContextDisposedError);
    expect(() => ctx.codeRuntime).toThrow(ContextDisposedError);
    expect(() => ctx.has('codeRuntime')).toThrow(ContextDisposedError);
    expect(() => ctx.plugin(stubPlugin)).toThrow(ContextDisposedError);
    expect(() => ctx.declare('codeRuntime', { install: [] })).toThrow(ContextDisposedError);
    await expect(ctx.remove('codeRuntime')).rejects.toThrow(ContextDisposedError);
  });

  it('refuses use of the context from inside a dispose that is running', async () => {
    const ctx = createContext();
    let seen: unknown;
    ctx.provide('codeRuntime', {
      ...createStubCodeRuntime(),
      dispose: async () => {
        seen = thrown(() => ctx.get('codeRuntime'));
      },
    });
    await ctx.dispose();
    expect(ContextDisposedError.isInstance(seen)).toBe(true);
  });

  it('waits for the disposal of a replaced value', async () => {
    const ctx = createContext();
    let finish!: () => void;
    let finished = false;
    const slow = {
      ...createStubCodeRuntime(),
      dispose: () =>
        new Promise<void>((resolve) => {
          finish = () => {
            finished = true;
            resolve();
          };
        }),
    };
    ctx.provide('codeRuntime', slow);
    ctx.provide('codeRuntime', createStubCodeRuntime(), { replace: true });
    const disposal = ctx.dispose();
    let settled = false;
    void disposal.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    finish();
    await disposal;
    expect(finished).toBe(true);
  });

  it('disposes every value even when some fail, then rejects with an AggregateError naming them', async () => {
    const order: string[] = [];
    const ctx = createContext();
    const failing = { ...createStubCodeRuntime(), dispose: () => Promise.reject(new Error('stuck')) };
    const throwing = {
      ...createStubCodeRuntime(),
      dispose: () => {
        throw new Error('sync');
      },
    };
    ctx.provide('first' as 'codeRuntime', createStubCodeRuntime('first', order));
    ctx.provide('codeRuntime', failing);
    ctx.provide('third' as 'codeRuntime', throwing as unknown as CodeRuntime);
    const error = await ctx.dispose().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors.map((cause: Error) => cause.message)).toEqual(['sync', 'stuck']);
    expect((error as Error).message).toContain('(third, codeRuntime)');
    expect(order).toEqual(['first']);
  });

  it('reports a replaced value whose dispose failed', async () => {
    const ctx = createContext();
    ctx.provide('codeRuntime', { ...createStubCodeRuntime(), dispose: () => Promise.reject(new Error('old')) });
    ctx.provide('codeRuntime', createStubCodeRuntime(), { replace: true });
    await expect(ctx.dispose()).rejects.toThrow('1 dispose() call(s) failed (codeRuntime)');
  });

  it('resolves for an empty context', async () => {
    await expect(createContext().dispose()).resolves.toBeUndefined();
  });
});
