import { metrics, type Span, trace } from '@opentelemetry/api';
import { type HostFunction, normalizeBindings } from '@sluice/code-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { RunController } from './run-controller.js';
import { defaultRunLimits } from './run-limits.js';

// Telemetry must never reach the run: a tracer or meter that throws at every step, a host result
// that is a throwing Proxy, a runtime id that is no string. (The spans themselves are tested with
// the SDK in packages/mcp, telemetry-runs.test.ts.)

afterEach(() => {
  trace.disable();
  metrics.disable();
});

function thrower(): never {
  throw new Error('telemetry trap');
}

/** An object whose every property read throws, as a broken SDK could be. */
function throwingProxy(): never {
  return new Proxy({}, { get: thrower, has: thrower, ownKeys: thrower, getPrototypeOf: thrower }) as never;
}

/** A span whose every method throws, handed out by a tracer that works. */
const brokenSpan = new Proxy({} as Span, {
  get: (_target, key) => (key === 'spanContext' ? thrower : thrower),
});

function controller(tools: Record<string, HostFunction>): RunController {
  return new RunController({
    bindings: normalizeBindings({ tools }),
    limits: defaultRunLimits,
    runtimeId: Symbol('not a string') as never,
    language: throwingProxy(),
  });
}

describe('run telemetry', () => {
  it('runs and records nothing when no SDK is registered', async () => {
    const run = controller({ add: () => 3 });
    run.begin();
    expect(await run.call('tools', 'add', {})).toEqual({ ok: true, value: 3 });
    run.finish({ ok: true, value: 'done' });
    const result = await run.result;
    expect(result.ok).toBe(true);
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it('ends the run normally when the tracer and meter providers throw everywhere', async () => {
    trace.setGlobalTracerProvider(throwingProxy());
    metrics.setGlobalMeterProvider(throwingProxy());
    const run = controller({ add: () => 3, boom: thrower });
    run.begin();
    expect(await run.call('tools', 'add', {})).toEqual({ ok: true, value: 3 });
    expect(await run.call('tools', 'boom', {})).toEqual({ ok: false, error: 'telemetry trap' });
    run.finish({ ok: true, value: 'done' });
    expect((await run.result).ok).toBe(true);
  });

  it('ends the run normally when every span method throws', async () => {
    trace.setGlobalTracerProvider({ getTracer: () => ({ startSpan: () => brokenSpan }) as never });
    const run = controller({ proxy: () => throwingProxy(), add: () => 3 });
    run.begin();
    const reply = await run.call('tools', 'proxy', {});
    expect(reply?.ok).toBe(false);
    expect(await run.call('tools', 'add', {})).toEqual({ ok: true, value: 3 });
    run.finish({ ok: false, failure: { kind: 'exception', message: 'the program threw' } });
    const result = await run.result;
    expect(result.ok).toBe(false);
    expect(result.calls.map((call) => call.ok)).toEqual([false, true]);
  });
});
