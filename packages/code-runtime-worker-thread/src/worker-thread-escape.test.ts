import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';

// Each case returns what it found; an empty list means the defence held. `escapes` reports an
// object whose prototype chain does not end at this context's Object.prototype (it came from the
// worker or the host), and any way it offers to compile code that can see `process`.
const probe = `
const ownRoot = Object.getPrototypeOf({});
function rootOf(value: object): object | null {
  let current: object | null = value;
  let last: object | null = null;
  for (let hops = 0; current !== null && hops < 100; hops += 1) {
    last = current;
    current = Object.getPrototypeOf(current);
  }
  return last;
}
function escapes(value: unknown, label = 'value'): string[] {
  const found: string[] = [];
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return found;
  const root = rootOf(value);
  if (root !== ownRoot && root !== value) found.push(label + ': foreign object');
  const keys = ['constructor', '__proto__'];
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index]!;
    try {
      const make = (value as any)[key].constructor;
      const reached = make('return typeof process')();
      found.push(label + ': compiled code via ' + key + ' (process is ' + reached + ')');
    } catch {}
  }
  return found;
}
`;

const echo: HostFunction = async (input) => input;
const fail: HostFunction = async () => {
  throw new Error('refused by the host');
};
const tools = { echo, fail };

const runtime = createWorkerThreadCodeRuntime({ poolSize: 2, wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

async function findings(body: string, bindings: Record<string, Record<string, HostFunction>> = { tools }) {
  const result = await runtime.run({ program: `${probe}\n${body}`, bindings });
  if (!result.ok) throw new Error(`the probe failed: ${JSON.stringify(result.failure)}`);
  return result.value;
}

describe('worker-thread isolation: values that cross into the context', () => {
  it('builds bindings, console and timers inside the context', async () => {
    const found = await findings(`
      return [
        ...escapes(tools, 'tools'), ...escapes(tools.echo, 'tools.echo'), ...escapes(console, 'console'),
        ...escapes(console.log, 'console.log'), ...escapes(setTimeout, 'setTimeout'),
        ...escapes(clearTimeout, 'clearTimeout'), ...escapes(tools.echo(1), 'a call promise'),
      ];`);
    expect(found).toEqual([]);
  });

  it('rebuilds host-call results and rejections inside the context', async () => {
    const found = await findings(`
      const found: string[] = [];
      const reply: any = await tools.echo({ nested: { list: [{ deep: true }] } });
      found.push(...escapes(reply, 'reply'), ...escapes(reply.nested, 'nested'), ...escapes(reply.nested.list[0], 'item'));
      try { await tools.fail(null); } catch (error) { found.push(...escapes(error, 'rejection')); }
      try { await (globalThis as any).admin?.secret(); await (tools as any).secret(); } catch (error) { found.push(...escapes(error, 'refusal')); }
      try { (tools.echo as any)(1, 2); } catch (error) { found.push(...escapes(error, 'arity error')); }
      return found;`);
    expect(found).toEqual([]);
  });

  it('gives timer callbacks nothing from outside', async () => {
    const found = await findings(`
      const seen: unknown[] = await new Promise((resolve) =>
        setTimeout(function (this: unknown, ...args: unknown[]) { resolve([this, ...args, arguments]); }, 1, 'argument'),
      );
      return seen.flatMap((value, index) => escapes(value, 'timer value ' + index));`);
    expect(found).toEqual([]);
  });

  it('keeps errors the engine throws inside the context', async () => {
    const found = await findings(`
      const found: string[] = [];
      const attempts: Array<() => unknown> = [
        () => (null as any).property,
        () => JSON.parse('{'),
        () => new Array(-1),
        () => { const recurse = (): unknown => recurse(); return recurse(); },
        () => { throw Object.create(null); },
      ];
      for (const attempt of attempts) {
        try { attempt(); } catch (error) { found.push(...escapes(error, String(attempt))); }
      }
      return found;`);
    expect(found).toEqual([]);
  });
});

describe('worker-thread isolation: objects Node and V8 create while running the program', () => {
  it('leaves a worker-realm error from a stack overflow in the stack formatter inert', async () => {
    // Near the stack limit, reading `.stack` overflows inside Node's formatter, which runs in the
    // worker's realm, so the RangeError the program catches comes from there. The defence is the
    // hardened worker realm: no code generation and frozen built-ins.
    const found = (await findings(`
      const foreign: unknown[] = [];
      function descend(depth: number): void {
        try { descend(depth + 1); } catch {}
        if (foreign.length >= 3) return;
        try { new Error('probe').stack; } catch (error) {
          if (typeof error === 'object' && error !== null && rootOf(error) !== ownRoot) foreign.push(error);
        }
      }
      descend(0);
      const found: string[] = [];
      for (const error of foreign) {
        found.push(...escapes(error, 'overflow error').filter((text) => text.includes('compiled')));
        const root = rootOf(error as object) as any;
        try { root.pollutedByProgram = true; } catch {}
        if (root.pollutedByProgram === true) found.push('polluted the worker realm');
        try { Object.getPrototypeOf(error).toString = () => 'hijacked'; } catch {}
        if (String(error) === 'hijacked') found.push('replaced a worker-realm method');
      }
      return { foreign: foreign.length, found };`)) as { foreign: number; found: string[] };
    expect(found.foreign).toBeGreaterThan(0);
    expect(found.found).toEqual([]);
  });

  it('gives Error.prepareStackTrace call sites with no function or receiver from outside', async () => {
    const found = await findings(`
      const found: string[] = [];
      const inspect = (label: string) => {
        const saved = (Error as any).prepareStackTrace;
        (Error as any).prepareStackTrace = (_error: unknown, sites: any[]) => sites;
        const sites = (new Error() as any).stack as any[];
        (Error as any).prepareStackTrace = saved;
        found.push(...escapes(sites, label + ' sites'));
        sites.forEach((site, index) => {
          found.push(...escapes(site, label + ' site ' + index));
          found.push(...escapes(site.getThis(), label + ' this ' + index));
          found.push(...escapes(site.getFunction(), label + ' function ' + index));
        });
      };
      inspect('top level');
      await tools.echo(1);
      inspect('after a reply');
      await new Promise((resolve) => setTimeout(() => { inspect('in a timer'); resolve(null); }, 1));
      Object.defineProperty(Object.prototype, 'then', {
        configurable: true,
        get() { inspect('in a thenable check'); return undefined; },
      });
      await tools.echo({ resolving: true });
      delete (Object.prototype as any).then;
      return found;`);
    expect(found).toEqual([]);
  });

  it('turns import() into an error of the context, loading nothing', async () => {
    // Normalisation refuses import() before anything runs. An octal literal, which the TypeScript
    // parser flags and esbuild accepts, makes normalisation step aside, so the barrier behind it
    // (esbuild turns import() into require(), which the context lacks) is tested too.
    const refused = await runtime.run({ program: "await import('node:fs');" });
    expect(!refused.ok && refused.failure.message).toContain('Imports are not available');
    const found = await findings(`
      const legacy = 010;
      try {
        await import('node:fs');
        return ['imported'];
      } catch (error) {
        return escapes(error, 'import()');
      }`);
    expect(found).toEqual([]);
  });
});

describe('worker-thread isolation: ambient capability', () => {
  it('offers no Node globals and no code generation', async () => {
    const value = await findings(`
      const names = ['process', 'require', 'module', 'exports', 'Buffer', 'fetch', 'WebAssembly', 'SharedArrayBuffer',
        'Atomics', 'setImmediate', 'global', 'navigator', 'MessageChannel', 'BroadcastChannel', 'Blob', 'EventTarget'];
      const present = names.filter((name) => typeof (globalThis as any)[name] !== 'undefined');
      const generators = [
        () => eval('1 + 1'),
        () => new Function('return 1')(),
        () => Function('return this')(),
        () => (async () => {}).constructor('return 1'),
        () => (function* () {}).constructor('return 1'),
        () => setTimeout('globalThis.ran = true' as any, 0),
      ];
      const compiled = generators.filter((generate) => { try { generate(); return true; } catch { return false; } });
      return { present, compiled: compiled.length };`);
    expect(value).toEqual({ present: [], compiled: 0 });
  });

  it('has exactly the reviewed globals', async () => {
    const names = (await findings('return Object.getOwnPropertyNames(globalThis).sort();', {
      tools,
    })) as string[];
    const standard = new Set(Object.getOwnPropertyNames(globalThis));
    const extra = names.filter((name) => !standard.has(name));
    expect(extra).toEqual(['tools']);
    expect(names).toContain('console');
    expect(names).toContain('setTimeout');
    const web = ['URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'atob', 'btoa', 'structuredClone', 'crypto',
      'AbortController', 'AbortSignal', 'DOMException', 'queueMicrotask', 'setInterval', 'clearInterval', 'performance']; // biome-ignore format: one name list
    expect(web.filter((name) => !names.includes(name))).toEqual([]);
    expect(names).not.toContain('SharedArrayBuffer');
    expect(names).not.toContain('WebAssembly');
  });
});

describe('worker-thread isolation: hostile values', () => {
  it('runs Proxy traps in the context only, with nothing from outside', async () => {
    const received: unknown[] = [];
    const record: HostFunction = async (input) => {
      received.push(input);
      return null;
    };
    const result = await runtime.run({
      program: `${probe}
        const found: string[] = [];
        const handler = {
          ownKeys(target: object) { found.push(...escapes(target, 'ownKeys target')); return Reflect.ownKeys(target); },
          getOwnPropertyDescriptor(target: object, key: PropertyKey) {
            found.push(...escapes(target, 'descriptor target'));
            return Reflect.getOwnPropertyDescriptor(target, key);
          },
          get(target: object, key: PropertyKey, receiver: unknown) {
            found.push(...escapes(receiver, 'get receiver'));
            return Reflect.get(target, key, receiver);
          },
        };
        await tools.record(new Proxy({ sent: 1 }, handler));
        console.log(new Proxy({ shown: 1 }, handler));
        return { found, proxy: new Proxy({ returned: 1 }, handler) };`,
      bindings: { tools: { record } },
    });
    expect(result).toMatchObject({ ok: true, value: { found: [], proxy: { returned: 1 } } });
    expect(received).toEqual([{ sent: 1 }]);
  });

  it('describes a hostile thrown value without running it on the host', async () => {
    const result = await runtime.run({
      program: `throw { get name() { throw new Error('no'); }, [Symbol.toPrimitive]() { return 'primitive'; }, message: 42 };`,
    });
    expect(!result.ok && result.failure.kind).toBe('exception');
  });

  it('keeps its channels when the program redefines Promise species, hasInstance and well-known symbols', async () => {
    const found = await findings(`
      const found: string[] = [];
      class Hijack extends Promise<unknown> {
        static get [Symbol.species]() { return Promise; }
      }
      Object.defineProperty(Promise.prototype, 'constructor', { value: Hijack, configurable: true });
      Object.defineProperty(Error, Symbol.hasInstance, { value: () => true });
      Object.defineProperty(Object.prototype, Symbol.toPrimitive, { value: () => 'hijacked', configurable: true });
      Object.defineProperty(Array.prototype, Symbol.iterator, { value: function* () { yield 'hijacked'; }, configurable: true });
      const reply: any = await tools.echo({ list: [1, 2] });
      // Spread and for...of would now use the hijacked iterator: collect with apply instead.
      found.push.apply(found, escapes(reply, 'reply'));
      try { await tools.fail(null); } catch (error) { found.push.apply(found, escapes(error, 'rejection')); }
      console.log('logged', { list: [1] });
      return { found, reply };`);
    expect(found).toEqual({ found: [], reply: { list: [1, 2] } });
  });

  it('keeps a __proto__ key in a host-call argument as data', async () => {
    let input: unknown;
    const record: HostFunction = async (value) => {
      input = value;
      return null;
    };
    const result = await runtime.run({
      program: `await tools.record(JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}'));`,
      bindings: { tools: { record } },
    });
    expect(result.ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(Object.hasOwn(input as object, '__proto__')).toBe(true);
  });

  it('never runs getters of a returned object, and says why it is refused', async () => {
    const getter = await runtime.run({ program: "return { fine: 1, get lazy() { console.log('ran'); return 2; } };" });
    expect(!getter.ok && getter.failure).toMatchObject({ kind: 'invalid-output' });
    expect(!getter.ok && getter.failure.message).toContain('$.lazy is an accessor');
    expect(getter.logs).toEqual([]);
    const accessorToJson = await runtime.run({
      program: "return { get toJSON() { console.log('ran'); return () => 1; } };",
    });
    expect(!accessorToJson.ok && accessorToJson.failure.message).toContain('$.toJSON is an accessor');
    expect(accessorToJson.logs).toEqual([]);
  });

  it('runs toJSON in the context only, with a receiver and arguments of the context', async () => {
    const found = await findings(`
      const found: string[] = [];
      const value = {
        toJSON(this: unknown, ...args: unknown[]) {
          found.push(...escapes(this, 'toJSON this'), ...escapes(args, 'toJSON arguments'));
          args.forEach((argument, index) => found.push(...escapes(argument, 'toJSON argument ' + index)));
          return { converted: true };
        },
      };
      const reply: any = await tools.echo({ value, when: new Date(0) });
      found.push(...escapes(reply, 'reply'));
      if (reply.value.converted !== true || reply.when !== '1970-01-01T00:00:00.000Z') found.push('not converted');
      try {
        await tools.echo({ bad: { toJSON() { throw new RangeError('from toJSON'); } } });
        found.push('a throwing toJSON did not reject');
      } catch (error) {
        found.push(...escapes(error, 'toJSON error'));
      }
      return found;`);
    expect(found).toEqual([]);
  });

  it('keeps working when the program replaces the built-ins the prelude uses', async () => {
    const result = await runtime.run({
      program: `
        JSON.stringify = () => 'forged'; JSON.parse = () => 'forged';
        Object.keys = () => []; Array.prototype.push = () => 0; String.prototype.split = () => [];
        Promise.prototype.then = function () { throw new Error('no then'); };
        Object.defineProperty(Array.prototype, '0', { set() { throw new Error('no index set'); }, configurable: true });
        console.log('still', { logged: true });
        const reply = await tools.echo({ a: [1, 2] });
        return reply;`,
      bindings: { tools },
    });
    expect(result).toMatchObject({ ok: true, value: { a: [1, 2] } });
    expect(result.logs.map((entry) => entry.text)).toEqual(['still { logged: true }']);
  });
});

// Last in the file on purpose: structuredClone reads an Error's `stack`, and once a worker has
// formatted a stack the formatter no longer overflows in the stack-overflow case above, which then
// finds no worker-realm error to test the hardening with.
describe('worker-thread isolation: web globals', () => {
  it('builds every web global, what it returns and what it throws inside the context', async () => {
    const found = await findings(`
      const found: string[] = [];
      const check = (label: string, value: unknown) => { found.push(...escapes(value, label)); };
      const thrown = (label: string, attempt: () => unknown) => {
        try { attempt(); found.push(label + ': did not throw'); } catch (error) { check(label + ' error', error); }
      };
      const names = ['URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'atob', 'btoa', 'structuredClone', 'crypto',
        'AbortController', 'AbortSignal', 'DOMException', 'queueMicrotask', 'setInterval', 'clearInterval', 'performance'];
      for (const name of names) {
        const value = (globalThis as any)[name];
        if (value === undefined) found.push(name + ' is missing');
        check(name, value);
        if (typeof value === 'function' && value.prototype) check(name + '.prototype', value.prototype);
      }
      const url = new URL('https://user:pw@example.com:8080/a/b?q=1&r=2#h');
      check('url', url);
      check('searchParams', url.searchParams);
      check('params iterator', url.searchParams.entries());
      check('params entry', [...url.searchParams][0]);
      check('URL descriptor getter', Object.getOwnPropertyDescriptor(URL.prototype, 'href')!.get);
      thrown('URL', () => new URL('not a url'));
      thrown('URLSearchParams', () => new URLSearchParams([['a', 'b', 'c']] as any));
      const bytes = new TextEncoder().encode('héllo');
      check('encoded bytes', bytes);
      check('encoded buffer', bytes.buffer);
      check('encodeInto result', new TextEncoder().encodeInto('x', new Uint8Array(4)));
      thrown('TextDecoder fatal', () => new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])));
      thrown('TextDecoder label', () => new TextDecoder('latin1'));
      thrown('atob', () => atob('%'));
      thrown('btoa', () => btoa('🚀'));
      check('structuredClone result', structuredClone({ map: new Map([[1, new Date(0)]]), list: [new Uint8Array(2)], error: new Error('x') }));
      thrown('structuredClone', () => structuredClone(() => 1));
      check('random bytes', crypto.getRandomValues(new Uint8Array(8)));
      check('crypto.randomUUID', crypto.randomUUID);
      thrown('getRandomValues', () => crypto.getRandomValues(new Float64Array(1) as any));
      const controller = new AbortController();
      let event: unknown;
      controller.signal.addEventListener('abort', function (this: unknown, received: unknown) { check('listener this', this); event = received; });
      controller.abort();
      check('signal', controller.signal);
      check('abort reason', controller.signal.reason);
      check('abort event', event);
      thrown('AbortSignal constructor', () => new (AbortSignal as any)());
      thrown('throwIfAborted', () => controller.signal.throwIfAborted());
      check('AbortSignal.any', AbortSignal.any([controller.signal]));
      check('AbortSignal.timeout', AbortSignal.timeout(1));
      check('performance.now getter', Object.getOwnPropertyDescriptor(performance, 'timeOrigin')!.get);
      thrown('queueMicrotask', () => queueMicrotask('code' as any));
      thrown('setInterval', () => setInterval('code' as any, 1));
      await new Promise((resolve) => queueMicrotask(function (this: unknown, ...args: unknown[]) { check('microtask this', this); check('microtask args', args); resolve(null); }));
      await new Promise((resolve) => {
        const id = setInterval(function (this: unknown, ...args: unknown[]) {
          clearInterval(id); check('interval this', this); check('interval args', args); check('interval arguments', arguments); resolve(null);
        }, 1, { passed: true });
      });
      return found;`);
    expect(found).toEqual([]);
  });

  it('keeps the web globals to the context: replacing a built-in they use harms only the program', async () => {
    const result = await runtime.run({
      program: `
        const before = new URL('https://example.com/a?b=1').searchParams.get('b');
        String.prototype.toLowerCase = () => { throw new Error('hijacked'); };
        let refused = '';
        try { new URL('https://EXAMPLE.com'); } catch (error) { refused = Object.getPrototypeOf(error) === Error.prototype ? 'context error' : 'foreign error'; }
        return { before, refused, encoded: btoa('still works') };`,
    });
    expect(result).toMatchObject({
      ok: true,
      value: { before: '1', refused: 'context error', encoded: 'c3RpbGwgd29ya3M=' },
    });
  });
});
