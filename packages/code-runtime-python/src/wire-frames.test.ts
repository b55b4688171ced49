import { describe, expect, it } from 'vitest';
import { parseChildFrame, parseHelloFrame, parseZygoteReport } from './wire-frames.js';

function problemOf(parsed: { frame: unknown } | { problem: string }): string | undefined {
  return 'problem' in parsed ? parsed.problem : undefined;
}

describe('parseChildFrame', () => {
  it('accepts each frame a child may send', () => {
    const frames = [
      { v: 1, type: 'started', pid: 42, layers: ['session', 'rlimits'], addressSpaceBytes: 1024, cpuSeconds: null },
      { v: 1, type: 'log', stream: 'stderr', text: 'oops\n' },
      { v: 1, type: 'call', id: 1, namespace: 'tools', name: 'search', input: { query: ['x', null] } },
      { v: 1, type: 'call', id: 2, namespace: 'tools', name: 'search', arguments: [['oslo'], { limit: 3 }] },
      { v: 1, type: 'done', ok: true },
      { v: 1, type: 'done', ok: true, value: [1], usage: { cpuMs: 1.5, peakMemoryBytes: 1e7 } },
      { v: 1, type: 'done', ok: false, error: { kind: 'exception', name: 'ValueError', message: 'boom', line: 3 } },
    ];
    for (const frame of frames) expect(problemOf(parseChildFrame(frame))).toBeUndefined();
  });

  it('refuses unknown types, unknown or missing fields, wrong types and other versions', () => {
    const refused = [
      null,
      [],
      { v: 1, type: 'exec' },
      { v: 2, type: 'log', stream: 'stdout', text: 'x' },
      { v: 1, type: 'log', stream: 'stdout', text: 'x', extra: true },
      { v: 1, type: 'log', stream: 'stdin', text: 'x' },
      { v: 1, type: 'log', stream: 'stdout' },
      { v: 1, type: 'call', id: 0, namespace: 'tools', name: 'x', input: null },
      { v: 1, type: 'call', id: 1.5, namespace: 'tools', name: 'x', input: null },
      { v: 1, type: 'call', id: 1, namespace: 'not valid', name: 'x', input: null },
      { v: 1, type: 'call', id: 1, namespace: 'tools', name: 'x', input: null, arguments: [[1], null] },
      { v: 1, type: 'call', id: 1, namespace: 'tools', name: 'x', arguments: [[1], null, 'third'] },
      { v: 1, type: 'done', ok: false, error: { kind: 'timeout', message: 'forged' } },
      { v: 1, type: 'done', ok: true, error: { kind: 'exception', message: 'both' } },
      { v: 1, type: 'started', pid: 42, layers: 'all', addressSpaceBytes: null, cpuSeconds: null },
      { v: 1, type: 'started', layers: [], addressSpaceBytes: null, cpuSeconds: null },
    ];
    for (const frame of refused) expect(problemOf(parseChildFrame(frame)), JSON.stringify(frame)).toBeDefined();
  });

  it('refuses a value nested deeper than 64 levels', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 64; level += 1) deep = [deep];
    const frame = (input: unknown) => ({ v: 1, type: 'call', id: 1, namespace: 'tools', name: 'x', input });
    expect(problemOf(parseChildFrame(frame(deep)))).toBeUndefined();
    expect(problemOf(parseChildFrame(frame([deep])))).toContain('deeper than 64');
  });
});

describe('parseHelloFrame and parseZygoteReport', () => {
  it('accept well-formed frames and refuse the rest', () => {
    const token = 'ab'.repeat(16);
    expect(problemOf(parseHelloFrame({ v: 1, type: 'hello', token, stream: 'control' }))).toBeUndefined();
    expect(problemOf(parseHelloFrame({ v: 1, type: 'hello', token: 'short', stream: 'control' }))).toBeDefined();
    expect(problemOf(parseHelloFrame({ v: 1, type: 'hello', token, stream: 'stdin' }))).toBeDefined();
    expect(problemOf(parseZygoteReport({ v: 1, type: 'exit', run: 3, code: null, signal: 9 }))).toBeUndefined();
    expect(problemOf(parseZygoteReport({ v: 1, type: 'exit', run: 3, code: 'none' }))).toBeDefined();
    expect(problemOf(parseZygoteReport({ v: 1, type: 'forked', run: 3, pid: 1234 }))).toBeDefined();
  });
});
