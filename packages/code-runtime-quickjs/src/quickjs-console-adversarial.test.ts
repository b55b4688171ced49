// Hostile programs against console's guest inspector (quickjs-guest-inspect.ts): values whose
// traps and getters throw or never return, tampered built-ins before the inspector is compiled,
// budgets reached inside a print, re-entrant prints, bursts. Each run must settle as a result (never
// a host exception; a budget that ends it names itself as the failure kind, no elapsed time is
// asserted), the next run must print as if nothing happened, and the text must be what the
// worker-thread provider prints.
//
import { format } from 'node:util';
import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { newQuickJSWASMModuleFromVariant, type QuickJSSyncVariant } from 'quickjs-emscripten-core';
import { afterAll, describe, expect, it } from 'vitest';
import { createQuickJsCodeRuntime, type QuickJsCodeRuntime } from './index.js';
import { GuestInspector } from './quickjs-guest-inspect.js';

interface Outcome {
  readonly ok: boolean;
  readonly value?: unknown;
  readonly kind?: string;
  readonly logs: string[];
}

type Runner = { run(request: { program: string }): Promise<import('@sluice/code-runtime').CodeRunResult> };

async function outcome(runtime: Runner, program: string): Promise<Outcome> {
  const result = await runtime.run({ program });
  const logs = result.logs.map((line) => line.text);
  return result.ok ? { ok: true, value: result.value, logs } : { ok: false, kind: result.failure.kind, logs };
}

/** A bare QuickJS context with a GuestInspector, as GuestRun makes it (no budgets). */
async function bareGuest() {
  const module = await newQuickJSWASMModuleFromVariant(variant as unknown as QuickJSSyncVariant);
  const runtime = module.newRuntime();
  runtime.setMaxStackSize(256 * 1024);
  const context = runtime.newContext();
  const same = context.unwrapResult(context.evalCode('(value) => value === null'));
  const inspector = new GuestInspector(context, (handle) =>
    context
      .unwrapResult(context.callFunction(same, context.undefined, handle))
      .consume((result) => context.dump(result) === true),
  );
  return { runtime, context, inspector, same };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a clean run prints: the later run on a runtime a hostile program used. */
const cleanProgram = `class Point { constructor(public x: number, public y: number) {} }
console.log({ a: 1 }, new Map([['k', [1, 2]]]), new Point(1, 2), [Symbol('s')]);
console.log('%s|%o', 'x', { b: 2 }, 'rest');
return 'clean';`;
const cleanLogs = ["{ a: 1 } Map(1) { 'k' => [ 1, 2 ] } Point { x: 1, y: 2 } [ Symbol(s) ]", 'x|{ b: 2 } rest'];

async function expectClean(runtime: Runner): Promise<void> {
  const next = await outcome(runtime, cleanProgram);
  expect(next).toMatchObject({ ok: true, value: 'clean', logs: cleanLogs });
}

/**
 * Runs `program` in a context whose inspector is compiled ahead (a spare warmed while the thread
 * was idle), then in contexts that compile it on first use (runs sent back to back use up the
 * spares and get fresh contexts). Returns both outcomes (the last of the burst as the cold one).
 */
async function warmAndCold(runtime: QuickJsCodeRuntime, program: string): Promise<{ warm: Outcome; cold: Outcome }> {
  await outcome(runtime, 'return 0;');
  await sleep(400);
  const warm = await outcome(runtime, program);
  const burst = await Promise.all([
    outcome(runtime, 'return 0;'),
    outcome(runtime, 'return 0;'),
    outcome(runtime, 'return 0;'),
    outcome(runtime, program),
  ]);
  return { warm, cold: burst[3]! };
}

const quick = createQuickJsCodeRuntime({ poolSize: 2, wallTimeMs: 10_000 });
// The reference printer: no test expects its runs to end at a time budget. Its busy time also counts
// time it waits for a core, so beside CPU-bound processes even the 10 s default stopped the 1e6-key print.
const worker = createWorkerThreadCodeRuntime({ wallTimeMs: 120_000, cpuTimeMs: 120_000 });
afterAll(async () => {
  await Promise.allSettled([quick.dispose(), worker.dispose()]);
});

describe('QuickJS console against hostile values', () => {
  // Each prints as the worker-thread provider prints it, and the run ends as it does.
  it.each([
    [
      'a Proxy whose every trap throws',
      `const handler = new Proxy({}, { get() { throw new Error('trap'); } });
const p = new Proxy({}, handler);
console.log(p); console.log([p], { p }, new Map([[p, p]]));
return 1;`,
    ],
    [
      'a Proxy with inconsistent descriptors and duplicate or non-string keys',
      `const dup = new Proxy({}, { ownKeys() { return ['a', 'b', 'a']; }, getOwnPropertyDescriptor() { return { value: 1, configurable: false }; } });
const odd = new Proxy({}, { ownKeys() { return [1, {}]; } });
// (Not here: a trap answering an accessor descriptor. QuickJS-ng turns it into a data descriptor
// { value: undefined }, V8 keeps the getter: "{ x: undefined }" against "{ x: [Getter] }", an engine difference.)
console.log(dup, odd);
return 1;`,
    ],
    [
      'a Proxy that claims another prototype, or throws for it',
      `console.log(new Proxy({}, { getPrototypeOf() { return Map.prototype; } }));
console.log(new Proxy(new Set([1]), { getPrototypeOf() { throw 5; } }));
console.log(new Proxy([1, 2, 3], { get(t, k) { return k === 'length' ? 1e9 : (t as any)[k]; } }).length);
return 1;`,
    ],
    [
      'a revoked Proxy, alone, in an array and in a template',
      `const { proxy, revoke } = Proxy.revocable({ a: 1 }, {});
revoke();
console.log(proxy); console.log('x', proxy); console.log([proxy]); console.log('%s %o %O %j', proxy, proxy, proxy, proxy);
return 1;`,
    ],
    [
      'throwing getters, a throwing Symbol.toStringTag, a throwing constructor lookup',
      `class A {}
Object.defineProperty(A.prototype, 'constructor', { get() { throw new Error('c'); } });
const tagged = Object.defineProperty({}, Symbol.toStringTag, { get() { throw 1; } });
const named = function f() {};
Object.defineProperty(named, 'name', { get() { throw 2; } });
console.log({ get a() { throw 1; } }, tagged, new A(), named, [named]);
return 1;`,
    ],
    [
      // (Not here: throwing name or message getters. V8 formats an error's stack lazily and runs them
      // when the inspector reads the stack's descriptor, QuickJS does not: an engine difference.)
      'errors whose stack throws, or is a million lines',
      `const e = new Error('m');
Object.defineProperty(e, 'stack', { get() { throw 3; } });
const long = new Error('long');
Object.defineProperty(long, 'stack', { value: 'Error: long\\n' + '    at x (other.js:1:1)\\n'.repeat(1e6) });
console.log(e, [e], long);
return 1;`,
    ],
    [
      'a cyclic Map and Set',
      `const m = new Map<any, any>(); m.set(m, m); m.set('self', { m });
const s = new Set<any>(); s.add(s); s.add(m);
console.log(m, s, [s]);
return 1;`,
    ],
    [
      'nesting 1e5 levels deep (objects, arrays, Maps)',
      `let o: any = {}; for (let i = 0; i < 1e5; i++) o = { o };
let a: any = []; for (let i = 0; i < 1e5; i++) a = [a];
let m: any = new Map(); for (let i = 0; i < 1e5; i++) m = new Map([[m, m]]);
console.log(o, a, m);
return 1;`,
    ],
    [
      'wide arrays: 1e7 holes, 2**32-1 holes, a late element',
      `const a = new Array(1e7); console.log(a.length, a);
a[5e6] = 1; console.log(a);
console.log([new Array(2 ** 32 - 1)]);
return 1;`,
    ],
    [
      'an object with 2e5 keys and a Map with 5e5 entries',
      `const o: any = {}; for (let i = 0; i < 2e5; i++) o['k' + i] = i;
const m = new Map(); for (let i = 0; i < 5e5; i++) m.set(i, i);
console.log(o); console.log(m);
return m.size;`,
    ],
    [
      'a 10 MB string, a 1 MB key and 100 strings of 100 kB',
      `const s = 'x'.repeat(1e7);
console.log([s.slice(0, 20)], s.length);
console.log({ ['k'.repeat(1e6) + ' ']: 1 });
console.log(Array.from({ length: 100 }, () => 'y'.repeat(1e5)).length);
console.log([s]);
return 1;`,
    ],
    [
      'printf templates with a Proxy, a throwing toString and Symbols',
      `const p = new Proxy({}, { get() { throw new Error('pg'); }, ownKeys() { throw 1; } });
console.log('%s|%o|%O|%j', p, p, p, p);
console.log('%s %s', { toString() { throw 1; } }, { [Symbol.toPrimitive]() { throw 2; } });
console.log('%s %o %O %j %c!', Symbol('a'), Symbol('b'), Symbol('c'), Symbol('d'), Symbol('e'));
console.log('%j %j', { toJSON() { throw 1; } }, { toJSON() { return 'ok'; } });
console.log('%s', 1n, '%s', -0, [Symbol.iterator]);
return 1;`,
    ],
    [
      'a %d of a Symbol or of an object whose valueOf throws (thrown to the program in both providers)',
      `const out: string[] = [];
for (const value of [Symbol('a'), { valueOf() { throw new Error('vo'); } }, new Proxy({}, { get() { throw new Error('pg'); } })]) {
  try { console.log('%d', value); out.push('printed'); } catch { out.push('threw'); }
}
console.log(out.join());
return 1;`,
    ],
    [
      'console.table, console.dir and console.trace of hostile values',
      `const p = new Proxy({}, { get() { throw 1; }, ownKeys() { throw 2; } });
console.table(p); console.dir(p, { depth: 0 }); console.trace(p, '%s', p);
console.table([{ a: 1 }], ['a']); console.dir({ a: { b: { c: { d: 1 } } } });
console.error(p); console.warn('%o', p); console.info(Symbol('i')); console.debug(-0);
return 1;`,
    ],
    [
      'console.assert failing with hostile arguments',
      `const p = new Proxy({}, { get() { throw new Error('x'); }, ownKeys() { throw 2; } });
console.assert(false, p); console.assert(0, '%s and %o', p, p); console.assert(false); console.assert('', Symbol('s'));
return 1;`,
    ],
  ])(
    'prints %s as the worker-thread provider does',
    async (_name, program) => {
      const [mine, theirs] = await Promise.all([outcome(quick, program), outcome(worker, program)]);
      expect(mine.ok, JSON.stringify(mine).slice(0, 500)).toBe(true);
      expect({ ok: mine.ok, logs: mine.logs }).toEqual({ ok: theirs.ok, logs: theirs.logs });
      await expectClean(quick);
    },
    40_000,
  );

  it('prints a 30 MB string cut at the log budget, and the run ends', async () => {
    const result = await outcome(
      quick,
      `const s = 'x'.repeat(3e7); console.log(s); console.log({ s: s.slice(0, 3) }); return s.length;`,
    );
    expect(result.ok && result.value).toBe(3e7);
    expect(result.logs.at(-1)).toMatch(/log budget is used up/);
    await expectClean(quick);
  }, 30_000);
});

describe('QuickJS console after a program tampers with built-ins', () => {
  const tampers: Array<[string, string]> = [
    ['Map replaced by a throwing function', `globalThis.Map = function () { throw new Error('no maps'); } as any;`],
    [
      'a Map getter that throws',
      `Object.defineProperty(globalThis, 'Map', { get() { throw new Error('no'); }, configurable: true });`,
    ],
    ['Map.prototype.set throwing', `Map.prototype.set = function () { throw new Error('set'); };`],
    ['Reflect.apply replaced', `Reflect.apply = (() => 'PWNED') as any;`],
    ['Reflect deleted', `delete (globalThis as any).Reflect;`],
    ['Object.keys lying', `Object.keys = () => ['fake'];`],
    ['Array.prototype.join replaced', `Array.prototype.join = () => 'J';`],
    ['String.prototype.slice replaced', `String.prototype.slice = () => 'S';`],
    ['JSON.stringify replaced', `JSON.stringify = (() => 'JS') as any;`],
    ['Object.getPrototypeOf returning null', `Object.getPrototypeOf = () => null;`],
    ['Object.getPrototypeOf throwing', `Object.getPrototypeOf = () => { throw new Error('gp'); };`],
    ['Object.getOwnPropertyDescriptor lying', `Object.getOwnPropertyDescriptor = () => ({ value: 'fake' }) as any;`],
    ['String replaced', `(globalThis as any).String = () => 'STR';`],
    ['Function.prototype.toString replaced', `Function.prototype.toString = () => 'class X';`],
    ['Symbol.prototype.toString replaced', `Symbol.prototype.toString = () => 'SYM';`],
    ['Uint8Array removed', `(globalThis as any).Uint8Array = undefined;`],
    [
      'getters defined on Object.prototype',
      `for (const k of ['apply', 'set', 'get', 'value', '0', '1', 'length', 'done', 'next', 'call', 'constructor', 'stack', 'text', 'count', 'add', 'then']) {
  try { Object.defineProperty(Object.prototype, k, { get() { return undefined; }, configurable: true }); } catch {}
}`,
    ],
  ];
  const printing = `
class Point { constructor(public x: number) {} }
const printed = ['before'];
try { console.log({ a: 1 }, new Point(1), [Symbol('s')], function named() {}, '%s', 'x'); } catch (error) { printed.push('console.log threw'); }
return printed.length;`;

  it.each(tampers)(
    'ends as a result (warm or cold inspector) when the program replaced %s, and the next run prints clean',
    async (_name, tamper) => {
      const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 5_000 });
      try {
        const { warm, cold } = await warmAndCold(runtime, tamper + printing);
        for (const result of [warm, cold]) {
          expect(result.ok ? 'ok' : result.kind).toMatch(/^(ok|exception)$/);
        }
        await expectClean(runtime);
      } finally {
        await runtime.dispose();
      }
    },
    30_000,
  );

  // The inspector takes its intrinsics when it is compiled: ahead of the program in a warmed spare,
  // after the program's own code when compiled on first use (runs back to back). A deterministic run
  // compiles it before the program, so what it prints never depends on timing, and is what the
  // worker-thread provider prints (its inspector is made before any program code runs).
  it.each(
    tampers.filter(([name]) =>
      [
        'Map replaced by a throwing function',
        'Map.prototype.set throwing',
        'Reflect.apply replaced',
        'Object.keys lying',
        'Object.getPrototypeOf returning null',
        'Object.getOwnPropertyDescriptor lying',
        'String replaced',
        'Function.prototype.toString replaced',
        'Symbol.prototype.toString replaced',
      ].includes(name),
    ),
  )(
    'in deterministic mode prints the same text, warm or cold, as the worker-thread provider after the program replaced %s',
    async (_name, tamper) => {
      const program = tamper + printing;
      const runtime = createQuickJsCodeRuntime({
        poolSize: 1,
        wallTimeMs: 5_000,
        deterministic: { seed: 7, startTime: 1_700_000_000_000 },
      });
      try {
        const theirs = await outcome(worker, program);
        const { warm, cold } = await warmAndCold(runtime, program);
        expect({ warm: warm.logs, cold: cold.logs, value: cold.value }).toEqual({
          warm: theirs.logs,
          cold: theirs.logs,
          value: theirs.value,
        });
      } finally {
        await runtime.dispose();
      }
    },
    30_000,
  );
});

describe('QuickJS console and the budgets', () => {
  it('ends an endless loop of object prints at the CPU budget, the logs cut at their budget', async () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 5_000, cpuTimeMs: 1_000, logBytes: 4_096 });
    try {
      for (const program of [
        'for (;;) console.log({ a: [1, 2, { b: new Map([[1, 2]]) }] }, new Set([1]));',
        `const p = new Proxy({}, { ownKeys() { return ['a']; }, getOwnPropertyDescriptor() { return { value: 1, enumerable: true, configurable: true }; } });
for (;;) console.log(p, '%o', p);`,
        'for (;;) { try { console.log({ a: 1 }, new Proxy({}, { ownKeys() { throw 1; } })); } catch {} }',
        'await null; for (;;) console.log([new Set([1])]);',
      ]) {
        const result = await outcome(runtime, program);
        expect(result.ok ? 'ok' : result.kind).toBe('timeout');
        expect(result.logs.at(-1)).toMatch(/log budget is used up/);
      }
      await expectClean(runtime);
    } finally {
      await runtime.dispose();
    }
  }, 40_000);

  it('ends prints from an interval at the wall clock, and a trap that never returns at either clock', async () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 1_500, cpuTimeMs: 1_000 });
    try {
      const interval = await outcome(
        runtime,
        'setInterval(() => console.log({ t: 1 }), 0); await new Promise(() => {});',
      );
      expect(interval.ok ? 'ok' : interval.kind).toBe('timeout');
      for (const program of [
        `try { console.log(new Proxy({}, { ownKeys() { for (;;) {} } })); } catch {} return 'escaped';`,
        `const p = new Proxy({}, { ownKeys() { for (;;) {} } }); try { console.log('%s', p); } catch {} return 'escaped';`,
        `const p = new Proxy({}, { getPrototypeOf() { for (;;) {} } }); for (;;) { try { console.log(p); } catch {} }`,
      ]) {
        const result = await outcome(runtime, program);
        expect(result.ok ? `ok ${result.value}` : result.kind).toBe('timeout');
      }
      await expectClean(runtime);
    } finally {
      await runtime.dispose();
    }
  }, 30_000);

  it('ends a print that recurses through console.log in a trap, at its stack or its clock', async () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 3_000 });
    try {
      const single = await outcome(
        runtime,
        `let depth = 0; const p = new Proxy({}, { ownKeys() { depth++; console.log(p); return []; } }); console.log(p); return depth > 10;`,
      );
      expect(single).toMatchObject({ ok: true, value: true });
      // Two printed arguments a level: exponential, ended by the clock.
      const doubling = await outcome(
        runtime,
        `const p = new Proxy({}, { ownKeys() { console.log('%o %s', p, p); return []; } }); console.log(p); return 1;`,
      );
      expect(doubling.ok ? 'ok' : doubling.kind).toBe('timeout');
      await expectClean(runtime);
    } finally {
      await runtime.dispose();
    }
  }, 30_000);

  it('prints near the memory budget, or ends the run as memory when compiling the inspector runs out', async () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 10_000, memoryBytes: 16 * 1024 * 1024 });
    try {
      const near = await outcome(
        runtime,
        `const keep: any[] = []; try { for (;;) keep.push(new Array(1e4).fill(1)); } catch {} keep.pop(); keep.pop();
console.log({ a: 1 }, keep.length > 0); return 'survived';`,
      );
      expect(near.ok ? near.value : near.kind).toMatch(/^(survived|memory)$/);
      // Strings fill the memory, so the lazily compiled inspector cannot be made: uncaught, that is a memory failure.
      const compile = await outcome(
        runtime,
        `const keep: string[] = []; try { for (;;) keep.push('x'.repeat(1e5) + keep.length); } catch {}
console.log(new Map([[1, { a: 1 }]])); return 'printed';`,
      );
      expect(compile.ok ? compile.value : compile.kind).toMatch(/^(printed|memory)$/);
      await expectClean(runtime);
    } finally {
      await runtime.dispose();
    }
  }, 40_000);
  it('ends a run whose Proxy trap, run by the inspector, exhausts the memory, as memory (as the worker-thread provider does)', async () => {
    // The inspector catches what a value's traps throw; the engine's out of memory is thrown on
    // (before, the line read "[value that could not be inspected]" and the run ended ok).
    const program = `const keep: any[] = [];
const p = new Proxy({}, { ownKeys() { for (;;) keep.push(new Array(1e4).fill(1)); } });
console.log(p);
return 'survived';`;
    const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 10_000, memoryBytes: 16 * 1024 * 1024 });
    try {
      const result = await outcome(runtime, program);
      expect({ ok: result.ok, kind: result.kind, logs: result.logs }).toEqual({ ok: false, kind: 'memory', logs: [] });
      await expectClean(runtime);
    } finally {
      await runtime.dispose();
    }
  }, 30_000);

  it('prints an object of 1e6 keys at the default memory budget as the worker-thread provider does, or ends as memory', async () => {
    const program = `const o: any = {}; for (let i = 0; i < 1e6; i++) o['k' + i] = i; console.log(o); return 1;`;
    const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 });
    try {
      // One after the other: run at once, each provider's second of CPU work waits behind the other's.
      const theirs = await outcome(worker, program);
      const mine = await outcome(runtime, program);
      expect(theirs.logs[0]).toMatch(/^\{ k0: 0, k1: 1, .* \.\.\. 999900 more properties \}$/);
      // Never a silent placeholder.
      if (mine.ok) expect(mine.logs).toEqual(theirs.logs);
      else expect(mine.kind).toBe('memory');
    } finally {
      await runtime.dispose();
    }
  }, 40_000);
});

describe('QuickJS console.assert with hostile conditions', () => {
  // console.assert reads truthiness without running anything of the program's: an object is truthy
  // whatever its getters, toJSON or traps would say (it used context.dump, JSON.stringify in the guest).
  it('never runs a truthy condition’s getters, toJSON or traps, and never fails on a truthy object', async () => {
    const program = `let reads = 0;
console.assert({ get x() { reads++; return 1; } }, 'getter object is truthy');
console.assert({ toJSON() { reads++; return false; } }, 'toJSON false object is truthy');
console.assert({ toJSON() { return ''; } }, 'toJSON empty object is truthy');
console.assert(new Date(NaN), 'invalid date is truthy');
console.assert(new Proxy({}, { get() { reads++; throw new Error('x'); } }), 'proxy is truthy');
return reads;`;
    const [mine, theirs] = await Promise.all([outcome(quick, program), outcome(worker, program)]);
    expect(theirs).toMatchObject({ ok: true, value: 0, logs: [] });
    expect({ ok: mine.ok, value: mine.value, logs: mine.logs }).toEqual({ ok: true, value: 0, logs: [] });
  }, 30_000);

  it('returns from console.assert of a truthy Proxy whose ownKeys never returns (the worker-thread provider does)', async () => {
    const program = `console.assert(new Proxy({}, { ownKeys() { for (;;) {} } }), 'x'); return 'returned';`;
    const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 1_500 });
    try {
      const result = await outcome(runtime, program);
      expect(result.ok ? result.value : result.kind).toBe('returned');
    } finally {
      await runtime.dispose();
    }
  }, 30_000);

  it('settles console.assert of promises, a deep object and a big object', async () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 8_000 });
    try {
      const promises = await outcome(
        runtime,
        `const p = Promise.resolve(1); console.assert(p, 'x');
const q = new Promise(() => {}); console.assert(q, 'y');
const r = Promise.reject(new Error('e')); r.catch(() => {}); console.assert(r, 'z');
for (let i = 0; i < 1000; i++) console.assert(Promise.resolve({ i }), 'w');
console.log(await p, typeof q.then); return 1;`,
      );
      expect(promises).toMatchObject({ ok: true, value: 1, logs: ['1 function'] });
      const deep = await outcome(
        runtime,
        `let o: any = {}; for (let i = 0; i < 3e3; i++) o = { o }; console.assert(o, 'deep'); return 1;`,
      );
      expect(deep.ok ? deep.value : deep.kind).toBe(1);
      await expectClean(runtime);
    } finally {
      await runtime.dispose();
    }
  }, 30_000);
});

describe('QuickJS console re-entered while its inspector compiles', () => {
  // A getter the compile reads (Map.prototype.set, read by captureInspectIntrinsics) prints again.
  // The inner print is refused with an error the program can read; before, GuestInspector.#make ran
  // inside itself, the outer call overwrote the inner's handles, and freeing the run aborted the engine.
  const reentrant = `let once = true;
const real = Map.prototype.set;
Object.defineProperty(Map.prototype, 'set', { get() { if (once) { once = false; console.log({ nested: 1 }); } return real; }, configurable: true });
console.log({ a: 1 });
return 1;`;

  it('settles the runs, and the runtime serves the next ones', async () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 5_000 });
    try {
      const { warm, cold } = await warmAndCold(runtime, reentrant);
      expect(warm).toMatchObject({ ok: true, value: 1, logs: ['{ a: 1 }'] });
      expect(cold).toMatchObject({ ok: false, kind: 'exception' });
      const unbounded = await outcome(
        runtime,
        `let depth = 0; const real = Map.prototype.set;
Object.defineProperty(Map.prototype, 'set', { get() { depth++; try { console.log({ depth }); } catch {} return real; }, configurable: true });
console.log({ a: 1 }); return depth;`,
      );
      expect(unbounded.ok).toBe(true);
      await sleep(300);
      await expectClean(runtime);
      await expectClean(runtime);
    } finally {
      await runtime.dispose();
    }
  }, 30_000);

  it('the worker’s engine never aborts when it frees a run that re-entered the inspector’s compile', async () => {
    // Before the fix, the worker's stderr read "Aborted(Assertion failed: list_empty(&rt->gc_obj_list),
    // … JS_FreeRuntime)" once the thread freed the ended run: GuestRun.dispose answered false, the
    // thread was marked broken, and the run's WASM heap was never freed.
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
      written.push(String(chunk));
      return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
    const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 5_000 });
    try {
      const { cold } = await warmAndCold(runtime, reentrant);
      expect(cold).toMatchObject({ ok: false, kind: 'exception', logs: [] });
      await sleep(300);
      await expectClean(runtime);
      await sleep(300);
    } finally {
      process.stderr.write = original;
      await runtime.dispose();
    }
    expect(written.join('')).not.toMatch(/Aborted\(/);
  }, 30_000);

  it('frees the run’s QuickJS runtime after a print re-entered the inspector’s compile', async () => {
    // Before the fix, runtime.dispose() threw "Aborted(Assertion failed: list_empty(&rt->gc_obj_list),
    // … JS_FreeRuntime)": the inner #make's inspect/describe handles leaked.
    const { runtime, context, inspector, same } = await bareGuest();
    const lines: string[] = [];
    let freed: unknown = 'not reached';
    try {
      context
        .newFunction('log', (...args) => {
          const text = inspector.format(args);
          if (typeof text !== 'string') return text;
          lines.push(text);
        })
        .consume((log) => {
          const consoleObject = context.newObject();
          context.setProp(consoleObject, 'log', log);
          context.setProp(context.global, 'console', consoleObject);
          consoleObject.dispose();
        });
      const evaluated = context.evalCode(reentrant.replace('return 1;', ''));
      const thrown = context.dump(evaluated.error ?? evaluated.value) as { message?: string };
      (evaluated.error ?? evaluated.value).dispose();
      expect(thrown.message).toMatch(
        /^console was called from a getter that console itself read while preparing to print/,
      );
      expect(lines).toEqual([]);
    } finally {
      inspector.dispose();
      same.dispose();
      context.dispose();
      try {
        runtime.dispose();
        freed = undefined;
      } catch (error) {
        freed = error instanceof Error ? error.message : String(error);
      }
    }
    expect(freed).toBeUndefined();
  }, 30_000);
});

describe('QuickJS console describers registered before a lazy compile', () => {
  it('settles a run whose tampered Map.prototype.set fails the registration of the web globals’ describers', async () => {
    const program = `URL;
const real = Map.prototype.set; let n = 0;
Map.prototype.set = function (this: any, ...a: any[]) { n++; if (n === 3) throw new Error('third'); return Reflect.apply(real, this, a); } as any;
let out = 'printed';
try { console.log({}); } catch (e) { out = String(e); }
Map.prototype.set = real;
console.log({ b: 1 }, new URL('https://a.example/p'));
return out;`;
    const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 5_000 });
    try {
      const { warm, cold } = await warmAndCold(runtime, program);
      expect(warm.ok && cold.ok).toBe(true);
      await sleep(300);
      await expectClean(runtime);
      await expectClean(runtime);
    } finally {
      await runtime.dispose();
    }
  }, 30_000);

  it('GuestInspector.dispose does not throw after a describer failed to register during the lazy compile', async () => {
    // Before the fix: "Lifetime not alive" (QuickJSUseAfterFree). #make disposed each pending pair
    // after registering it but cleared #pending only after the loop: when a later registration threw,
    // dispose() freed the earlier pairs a second time, and the run's runtime was never freed.
    const { runtime, context, inspector, same } = await bareGuest();
    let disposed: unknown = 'not reached';
    let printed: unknown;
    try {
      for (let index = 0; index < 3; index += 1) {
        const prototype = context.unwrapResult(context.evalCode('({})'));
        const describer = context.unwrapResult(context.evalCode('(value) => ({ described: true })'));
        inspector.describe(prototype, describer);
        prototype.dispose();
        describer.dispose();
      }
      context
        .unwrapResult(
          context.evalCode(`const real = Map.prototype.set; let n = 0;
Map.prototype.set = function (...a) { n++; if (n === 2) throw new Error('second'); return Reflect.apply(real, this, a); };`),
        )
        .dispose();
      const object = context.newObject();
      try {
        printed = inspector.format([object]);
      } catch (error) {
        printed = `host error: ${error instanceof Error ? error.message : String(error)}`;
      }
      object.dispose();
    } finally {
      try {
        inspector.dispose();
        disposed = undefined;
      } catch (error) {
        disposed = error instanceof Error ? error.message : String(error);
      }
      same.dispose();
      context.dispose();
      try {
        runtime.dispose();
      } catch {}
    }
    expect(printed).toBeDefined();
    expect(disposed).toBeUndefined();
  }, 30_000);
});

describe('QuickJS console in bursts', () => {
  it('settles 300 runs at once on two threads, each printing a Map and a class instance', async () => {
    const runtime = createQuickJsCodeRuntime({ poolSize: 2, wallTimeMs: 60_000 });
    try {
      const results = await Promise.all(
        Array.from({ length: 300 }, (_, index) =>
          outcome(
            runtime,
            `class Point { constructor(public x: number, public y: number) {} }
console.log(new Map([['run', ${index}]]), new Point(${index}, -0));
return ${index};`,
          ),
        ),
      );
      // What Node's util.format prints for the same values on the host.
      class Point {
        constructor(
          readonly x: number,
          readonly y: number,
        ) {}
      }
      results.forEach((result, index) => {
        expect(result).toMatchObject({
          ok: true,
          value: index,
          logs: [format(new Map([['run', index]]), new Point(index, -0))],
        });
      });
      expect(results[7]!.logs).toEqual(["Map(1) { 'run' => 7 } Point { x: 7, y: -0 }"]);
    } finally {
      await runtime.dispose();
    }
  }, 60_000);
});
