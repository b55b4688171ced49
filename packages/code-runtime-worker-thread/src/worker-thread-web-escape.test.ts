import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';
import { findingsOf } from './worker-thread-escape-probe.test-helper.js';

// Each web global the prelude makes, probed as the escape tests probe bindings: the global, its
// prototype, what it returns, what it throws and what it hands callbacks must all be objects of
// the run's own context, offering no way to compile code that sees `process`. A runtime of its own,
// so that these programs (which format error stacks) leave the worker-realm stack-overflow case of
// worker-thread-escape.test.ts on workers that never formatted one.
const runtime = createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());
const echo: HostFunction = async (input) => input;

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
     check('timeOrigin getter', Object.getOwnPropertyDescriptor(performance, 'timeOrigin')!.get);`,
  ],
];

describe('worker-thread isolation: web globals', () => {
  it.each(cases)('builds %s, what it returns, throws and hands callbacks inside the context', async (_name, body) => {
    const found = await findingsOf(runtime, `${helpers}\n${body}\nreturn found;`, { tools: { echo } });
    expect(found).toEqual([]);
  });

  it('lists every web global and no Node-only one', async () => {
    const names = (await findingsOf(runtime, 'return Object.getOwnPropertyNames(globalThis);', {})) as string[];
    const web = ['URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'atob', 'btoa', 'structuredClone', 'crypto',
      'AbortController', 'AbortSignal', 'DOMException', 'queueMicrotask', 'setInterval', 'clearInterval', 'performance']; // biome-ignore format: one name list
    expect(web.filter((name) => !names.includes(name))).toEqual([]);
    for (const absent of ['fetch', 'Buffer', 'process', 'setImmediate', 'EventTarget', 'Blob', 'navigator']) {
      expect(names).not.toContain(absent);
    }
  });

  it('harms only the program when it replaces a built-in the web globals use', async () => {
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
