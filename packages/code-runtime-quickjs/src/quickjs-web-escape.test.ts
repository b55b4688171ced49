import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createQuickJsCodeRuntime } from './index.js';

// Each web global, probed as the worker-thread provider's escape tests probe them: the global, its
// prototype, what it returns, what it throws and what it hands callbacks must all be objects of the
// run's own QuickJS context. eval and new Function work in this guest, so the finding is a function
// constructor other than the guest's own, or compiled code that sees anything of the host.
const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());
const echo: HostFunction = async (input) => input;

const probe = `
const ownRoot = Object.getPrototypeOf({});
const ownMakers = [Function, (async () => {}).constructor, function* () {}.constructor, async function* () {}.constructor];
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
  for (const key of ['constructor', '__proto__']) {
    let make: any;
    try { make = (value as any)[key].constructor; } catch { continue; }
    if (typeof make !== 'function') continue;
    try {
      const compiled = make('return [typeof process, typeof require, typeof Buffer, typeof WebAssembly].join()');
      if (typeof compiled !== 'function') continue;
      if (!ownMakers.includes(make)) found.push(label + ': compiled code via a constructor not of the guest, via ' + key);
      let reached = compiled();
      // A generator function constructor compiles a generator: its first value is the answer.
      if (typeof reached?.next === 'function') reached = reached.next().value;
      if (typeof reached === 'string' && reached !== 'undefined,undefined,undefined,undefined') found.push(label + ': compiled code sees ' + reached);
    } catch {}
  }
  return found;
}
`;

async function findingsOf(body: string): Promise<unknown> {
  const result = await runtime.run({ program: `${probe}\n${body}`, bindings: { tools: { echo } } });
  if (!result.ok) throw new Error(`the probe failed: ${JSON.stringify(result.failure)}`);
  return result.value;
}

const helpers = `
const found: string[] = [];
const check = (label: string, value: unknown) => { found.push(...escapes(value, label)); };
const thrown = (label: string, attempt: () => unknown) => {
  try { attempt(); found.push(label + ': did not throw'); } catch (error) { check(label + ' error', error); }
};
const global = (name: string) => {
  const value = (globalThis as any)[name];
  if (value === undefined) found.push(name + ' is missing');
  check(name, value);
  if (typeof value === 'function' && value.prototype) {
    check(name + '.prototype', value.prototype);
    for (const key of Object.getOwnPropertyNames(value.prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(value.prototype, key)!;
      check(name + '.prototype.' + key, descriptor.value ?? descriptor.get);
    }
  }
};
`;

const cases: Array<[string, string]> = [
  [
    'URL',
    `global('URL');
     const url = new URL('https://user:pw@example.com:8080/a/b?q=1&r=2#h');
     check('url', url);
     check('URL.canParse', URL.canParse);
     thrown('URL', () => new URL('not a url'));
     thrown('URL getter on a stranger', () => Object.getOwnPropertyDescriptor(URL.prototype, 'href')!.get!.call({}));
     thrown('href setter', () => { url.href = 'nope'; });`,
  ],
  [
    'URLSearchParams',
    `global('URLSearchParams');
     const params = new URL('https://example.com/?a=1&b=2').searchParams;
     check('searchParams', params);
     check('iterator', params.entries());
     check('iterator prototype', Object.getPrototypeOf(params.keys()));
     check('entry', [...params][0]);
     params.forEach(function (this: unknown, ...args: unknown[]) { check('forEach this', this); check('forEach args', args); });
     thrown('URLSearchParams', () => new URLSearchParams([['a', 'b', 'c']] as any));`,
  ],
  [
    'TextEncoder',
    `global('TextEncoder');
     const bytes = new TextEncoder().encode('héllo');
     check('bytes', bytes);
     check('buffer', bytes.buffer);
     check('encodeInto result', new TextEncoder().encodeInto('x', new Uint8Array(4)));
     thrown('encodeInto', () => new TextEncoder().encodeInto('x', {} as any));`,
  ],
  [
    'TextDecoder',
    `global('TextDecoder');
     check('decoded', new TextDecoder().decode(new Uint8Array([104, 105])));
     thrown('fatal', () => new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])));
     thrown('label', () => new TextDecoder('latin1'));
     thrown('input', () => new TextDecoder().decode('text' as any));`,
  ],
  ['atob', `global('atob'); thrown('atob', () => atob('%')); thrown('no argument', () => (atob as any)());`],
  ['btoa', `global('btoa'); thrown('btoa', () => btoa('🚀'));`],
  [
    'structuredClone',
    `global('structuredClone');
     const clone: any = structuredClone({ map: new Map([[1, new Date(0)]]), set: new Set([/x/g]), bytes: new Uint8Array(2), error: new TypeError('x', { cause: [1] }) });
     for (const key of Object.keys(clone)) check('clone.' + key, clone[key]);
     check('cloned error cause', clone.error.cause);
     thrown('function', () => structuredClone(() => 1));
     thrown('transfer', () => structuredClone(1, { transfer: [new ArrayBuffer(1)] }));`,
  ],
  [
    'crypto',
    `global('crypto');
     check('getRandomValues', crypto.getRandomValues);
     check('randomUUID', crypto.randomUUID);
     check('random bytes', crypto.getRandomValues(new Uint8Array(8)));
     thrown('float array', () => crypto.getRandomValues(new Float64Array(1) as any));
     thrown('quota', () => crypto.getRandomValues(new Uint8Array(70000)));`,
  ],
  [
    'AbortController and AbortSignal',
    `global('AbortController'); global('AbortSignal');
     const controller = new AbortController();
     let event: unknown;
     controller.signal.addEventListener('abort', function (this: unknown, received: unknown) { check('listener this', this); event = received; });
     controller.signal.onabort = function (this: unknown, received: unknown) { check('onabort this', this); check('onabort event', received); };
     controller.abort();
     check('signal', controller.signal);
     check('reason', controller.signal.reason);
     check('event', event);
     thrown('constructor', () => new (AbortSignal as any)());
     thrown('throwIfAborted', () => controller.signal.throwIfAborted());
     thrown('any', () => AbortSignal.any([{} as any]));
     check('any', AbortSignal.any([controller.signal]));
     const timed = AbortSignal.timeout(1);
     await new Promise((resolve) => timed.addEventListener('abort', resolve));
     check('timeout reason', timed.reason);`,
  ],
  [
    'DOMException',
    `global('DOMException');
     check('instance', new DOMException('x', 'AbortError'));
     thrown('btoa error', () => btoa('🚀'));`,
  ],
  [
    'queueMicrotask',
    `global('queueMicrotask');
     thrown('string callback', () => queueMicrotask('code' as any));
     await new Promise((resolve) => queueMicrotask(function (this: unknown, ...args: unknown[]) {
       check('this', this); check('args', args); check('arguments', arguments); resolve(null);
     }));`,
  ],
  [
    'setInterval and clearInterval',
    `global('setInterval'); global('clearInterval');
     thrown('string callback', () => setInterval('code' as any, 1));
     await new Promise((resolve) => {
       const id = setInterval(function (this: unknown, ...args: unknown[]) {
         clearInterval(id); check('this', this); check('args', args); check('arguments', arguments); resolve(null);
       }, 1, { passed: true });
     });`,
  ],
  [
    'performance',
    `global('performance');
     check('now', performance.now);
     check('timeOrigin', Object.getOwnPropertyDescriptor(performance, 'timeOrigin'));`,
  ],
];

describe('quickjs isolation: web globals', () => {
  it.each(cases)('builds %s, what it returns, throws and hands callbacks inside the guest', async (_name, body) => {
    expect(await findingsOf(`${helpers}\n${body}\nreturn found;`)).toEqual([]);
  });

  it('lists every web global and no Node-only one', async () => {
    const names = (await findingsOf('return Object.getOwnPropertyNames(globalThis);')) as string[];
    const web = ['URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'atob', 'btoa', 'structuredClone', 'crypto',
      'AbortController', 'AbortSignal', 'DOMException', 'queueMicrotask', 'setInterval', 'clearInterval', 'performance']; // biome-ignore format: one name list
    expect(web.filter((name) => !names.includes(name))).toEqual([]);
    for (const absent of ['fetch', 'Buffer', 'process', 'setImmediate', 'EventTarget', 'Blob', 'navigator']) {
      expect(names).not.toContain(absent);
    }
  });

  it('gives a program that sabotaged the built-ins before first use a guest error, and leaves the next run unharmed', async () => {
    const sabotaged = await runtime.run({
      program: `
        Object.defineProperty = () => { throw new Error('sabotaged'); };
        Object.freeze = () => { throw new Error('sabotaged'); };
        try { new URL('https://example.com'); return 'made'; } catch (error) { return [Object.getPrototypeOf(error) === Error.prototype, (error as Error).message]; }`,
    });
    expect(sabotaged).toMatchObject({ ok: true, value: [true, 'sabotaged'] });
    expect(await findingsOf("return [new URL('https://example.com/a').pathname, btoa('x')];")).toEqual(['/a', 'eA==']);
  });

  it('finds nothing of the host through the accessors that make the web globals on first use', async () => {
    const found = await findingsOf(`${helpers}
      for (const name of ['URL', 'TextEncoder', 'atob', 'structuredClone', 'AbortController', 'DOMException']) {
        const descriptor = Object.getOwnPropertyDescriptor(globalThis, name)!;
        check(name + ' getter', descriptor.get);
        check(name + ' setter', descriptor.set);
        check(name + ' made', descriptor.get?.());
      }
      check('namespace', tools);
      check('ungranted', (tools as any).nope);
      check('awaitable', tools.echo(1));
      thrown('read before await', () => (tools.echo(1) as any).field);
      return found;`);
    expect(found).toEqual([]);
  });
});
