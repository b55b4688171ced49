import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';
import { findingsOf, probe } from './worker-thread-escape-probe.test-helper.js';

const echo: HostFunction = async (input) => input;
const fail: HostFunction = async () => {
  throw new Error('refused by the host');
};
const tools = { echo, fail };

const runtime = createWorkerThreadCodeRuntime({ poolSize: 2, wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

async function findings(body: string, bindings: Record<string, Record<string, HostFunction>> = { tools }) {
  return findingsOf(runtime, body, bindings);
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
    // The namespace, each granted function under its bare name (`echo(...)`, made in the context),
    // `codemode`, which reads tools as Cloudflare's code mode calls them (`codemode.echo(...)`), and
    // `Iterator`, ES2025's, which Node 20 lacks: an accessor until first use loads the polyfill.
    expect(extra).toEqual(['Iterator', 'codemode', 'echo', 'fail', 'tools']);
    expect(names).toContain('console');
    expect(names).toContain('setTimeout');
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
