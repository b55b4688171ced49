import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { upstreamCallSignal } from './upstream-call-signal.js';

describe('upstreamCallSignal', () => {
  it('puts one listener on the run signal however many calls are held, and none once all are released', () => {
    const run = new AbortController();
    const calls = Array.from({ length: 25 }, () => upstreamCallSignal(run.signal));
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(1);
    for (const call of calls) call.release();
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });

  it('aborts only the calls still held when the run aborts, with the run reason', () => {
    const run = new AbortController();
    const settled = upstreamCallSignal(run.signal);
    const inFlight = upstreamCallSignal(run.signal);
    settled.release();
    run.abort('the run ended');
    expect(settled.signal.aborted).toBe(false);
    expect(inFlight.signal.aborted).toBe(true);
    expect(inFlight.signal.reason).toBe('the run ended');
    inFlight.release();
  });

  it('gives an aborted signal for a call made after the run aborted', () => {
    const run = new AbortController();
    run.abort('late');
    const call = upstreamCallSignal(run.signal);
    expect(call.signal.aborted).toBe(true);
    call.release();
  });
});
