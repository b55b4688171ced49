import type { CodeRuntime } from '@sluice/code-runtime';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type CapabilityName, type CapabilityProperties, type Context, createContext } from './index.js';

interface Clock {
  now(): number;
  dispose(): void;
}

// The README's declaration-merging example, against this package's own entry point.
declare module './index.js' {
  interface Capabilities {
    clock: Clock;
  }
}

function createFixedClock(at: number): Clock & { readonly disposed: boolean } {
  let disposed = false;
  return {
    now: () => at,
    dispose: () => {
      disposed = true;
    },
    get disposed() {
      return disposed;
    },
  };
}

describe('Capabilities', () => {
  it('gains a typed property and get() by declaration merging', () => {
    const ctx = createContext({ capabilities: { clock: { install: ['@acme/clock'] } } });
    ctx.provide('clock', createFixedClock(42));
    expect(ctx.clock.now()).toBe(42);
    expect(ctx.get('clock').now()).toBe(42);
    expectTypeOf(ctx.clock).toEqualTypeOf<Clock>();
    expectTypeOf(ctx.get('clock')).toEqualTypeOf<Clock>();
  });

  it('lists merged names in CapabilityName and CapabilityProperties', () => {
    expectTypeOf<CapabilityName>().toEqualTypeOf<'codeRuntime' | 'clock'>();
    expectTypeOf<CapabilityProperties>().toEqualTypeOf<{ readonly codeRuntime: CodeRuntime; readonly clock: Clock }>();
    expectTypeOf<Context['codeRuntime']>().toEqualTypeOf<CodeRuntime>();
  });

  it('refuses at compile time a value of the wrong type or a name nobody declared', () => {
    const ctx = createContext();
    const attempt = () => {
      // @ts-expect-error a clock needs now() and dispose()
      ctx.provide('clock', { now: () => 1 });
      // @ts-expect-error `calendar` is not a capability
      ctx.provide('calendar', {});
      // @ts-expect-error plugin settings are checked against create()
      ctx.plugin(
        { name: 'c', capability: 'clock', create: (settings?: { at: number }) => createFixedClock(settings?.at ?? 0) },
        { at: 'noon' },
      );
    };
    expect(attempt).toBeTypeOf('function');
  });

  it('explains a declared capability that is missing', () => {
    const ctx = createContext({ capabilities: { clock: { install: ['@acme/clock'] } } });
    expect(() => ctx.clock).toThrow('No clock is provided to this context. Install @acme/clock and provide it');
  });

  it('disposes a merged capability with the context', async () => {
    const ctx = createContext();
    const clock = createFixedClock(1);
    ctx.provide('clock', clock);
    await ctx.dispose();
    expect(clock.disposed).toBe(true);
  });
});
