import { afterAll, describe, expect, it } from 'vitest';
import { createQuickJsCodeRuntime } from './index.js';

const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 20_000, timers: 4 });
afterAll(() => runtime.dispose());

async function valueFrom(program: string): Promise<unknown> {
  const result = await runtime.run({ program });
  if (!result.ok) throw new Error(`the run failed: ${JSON.stringify(result.failure)}`);
  return result.value;
}

describe('quickjs timers, microtasks and performance.now', () => {
  it('fires an interval until it is cleared, in order with timeouts', async () => {
    const result = await runtime.run({
      program: `
        const seen: string[] = [];
        await new Promise((resolve) => {
          let ticks = 0;
          const id = setInterval((label: string) => {
            ticks += 1;
            seen.push(label + ticks);
            if (ticks === 3) { clearInterval(id); setTimeout(resolve, 20); }
          }, 2, 'tick');
        });
        return seen;`,
    });
    expect(result).toMatchObject({ ok: true, value: ['tick1', 'tick2', 'tick3'] });
  });

  it('counts setInterval and setTimeout together against the timers budget', async () => {
    const result = await runtime.run({
      program: `
        const ids = [setInterval(() => {}, 1000), setTimeout(() => {}, 1000), setInterval(() => {}, 1000), setTimeout(() => {}, 1000)];
        try { setInterval(() => {}, 1000); } catch (error) { return [ids.length, (error as Error).message]; }
        return 'not refused';`,
    });
    expect(result).toMatchObject({
      ok: true,
      value: [4, 'The timer budget of 4 setTimeout/setInterval calls per run is used up.'],
    });
  });

  it('fails the run with what an interval or a microtask callback throws', async () => {
    for (const program of [
      "setInterval(() => { throw new TypeError('from an interval'); }, 1);\nawait new Promise(() => {});",
      "queueMicrotask(() => { throw new TypeError('from a microtask'); });\nawait new Promise(() => {});",
    ]) {
      const result = await runtime.run({ program });
      expect(!result.ok && result.failure.kind).toBe('exception');
      expect(!result.ok && result.failure.message).toMatch(/TypeError: from an? (interval|microtask)/);
    }
  });

  it('runs a microtask before the next timer, after the current code', async () => {
    expect(
      await valueFrom(`
        const order: string[] = [];
        setTimeout(() => order.push('timeout'), 0);
        queueMicrotask(() => order.push('microtask'));
        order.push('sync');
        await new Promise((resolve) => setTimeout(resolve, 5));
        return order;`),
    ).toEqual(['sync', 'microtask', 'timeout']);
  });

  it('counts performance.now in whole milliseconds from the start of the run', async () => {
    const value = (await valueFrom(`
      const first = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 30));
      const second = performance.now();
      return { first, second, whole: Number.isInteger(first) && Number.isInteger(second) };`)) as {
      first: number;
      second: number;
      whole: boolean;
    };
    expect(value.whole).toBe(true);
    expect(value.second - value.first).toBeGreaterThanOrEqual(25);
  });
});

describe('quickjs web globals', () => {
  it('offers URL and URLSearchParams as the worker-thread provider does', async () => {
    expect(
      await valueFrom(`
        const url = new URL('../c?x=1&y=2#frag', 'https://user:pw@Example.COM:8080/a/b');
        url.searchParams.append('z', 'a b');
        const params = new URLSearchParams({ q: 'ü&=', n: '1' });
        params.sort();
        return [url.href, url.origin, url.host, url.pathname, url.search, url.hash, url.searchParams.get('y'),
          params.toString(), [...params.keys()], URL.canParse('nope'), JSON.stringify({ url })];`),
    ).toEqual([
      'https://user:pw@example.com:8080/c?x=1&y=2&z=a+b#frag',
      'https://example.com:8080',
      'example.com:8080',
      '/c',
      '?x=1&y=2&z=a+b',
      '#frag',
      '2',
      'n=1&q=%C3%BC%26%3D',
      ['n', 'q'],
      false,
      '{"url":"https://user:pw@example.com:8080/c?x=1&y=2&z=a+b#frag"}',
    ]);
  });

  it('encodes and decodes UTF-8 and base64', async () => {
    expect(
      await valueFrom(`
        const bytes = new TextEncoder().encode('héllo 🚀');
        const into = new TextEncoder().encodeInto('ab', new Uint8Array(1));
        let fatal = '';
        try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])); } catch (error) { fatal = (error as Error).name; }
        let invalid = '';
        try { btoa('🚀'); } catch (error) { invalid = (error as DOMException).name + ' ' + (error instanceof DOMException); }
        return [Array.from(bytes).length, new TextDecoder().decode(bytes), into, fatal, btoa('hello'), atob(' aGVs bG8= '), invalid];`),
    ).toEqual([
      11,
      'héllo 🚀',
      { read: 1, written: 1 },
      'TypeError',
      'aGVsbG8=',
      'hello',
      'InvalidCharacterError true',
    ]);
  });

  it('clones structured values, keeping shared and cyclic references', async () => {
    expect(
      await valueFrom(`
        const shared = { n: 1 };
        const source: any = { a: shared, b: shared, map: new Map([[1, new Date(0)]]), set: new Set([/x/g]), bytes: new Uint8Array([1, 2]) };
        source.self = source;
        const clone = structuredClone(source);
        let refused = '';
        try { structuredClone(() => 1); } catch (error) { refused = (error as DOMException).name; }
        return [clone !== source, clone.a === clone.b, clone.self === clone, clone.map.get(1) instanceof Date,
          clone.set.has(clone.set.values().next().value), Array.from(clone.bytes), refused];`),
    ).toEqual([true, true, true, true, true, [1, 2], 'DataCloneError']);
  });

  it('aborts signals: abort, reason, listeners, AbortSignal.timeout on the run’s timers, any', async () => {
    expect(
      await valueFrom(`
        const controller = new AbortController();
        const heard: string[] = [];
        controller.signal.addEventListener('abort', (event: any) => heard.push(event.type), { once: true });
        controller.signal.onabort = () => heard.push('onabort');
        controller.abort();
        const timed = AbortSignal.timeout(5);
        await new Promise((resolve) => timed.addEventListener('abort', resolve));
        const either = AbortSignal.any([new AbortController().signal, AbortSignal.abort('why')]);
        let thrown = '';
        try { controller.signal.throwIfAborted(); } catch (error) { thrown = (error as DOMException).name; }
        return [controller.signal.aborted, (controller.signal.reason as DOMException).name, heard, (timed.reason as DOMException).name,
          either.aborted, either.reason, thrown, new DOMException('m', 'AbortError').code];`),
    ).toEqual([true, 'AbortError', ['onabort', 'abort'], 'TimeoutError', true, 'why', 'AbortError', 20]);
  });

  it('fails the run with what an abort listener throws', async () => {
    const result = await runtime.run({
      program:
        "const controller = new AbortController();\ncontroller.signal.addEventListener('abort', () => { throw new TypeError('from a listener'); });\ncontroller.abort();\nreturn 'went on';",
    });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'exception' } });
    expect(!result.ok && result.failure.message).toContain('TypeError: from a listener');
  });

  it('makes them on first use, and lets the program replace one before or after', async () => {
    expect(
      await valueFrom(`
        const before = Object.getOwnPropertyNames(globalThis).filter((name) => name === 'URL' || name === 'atob').sort();
        const accessor = typeof Object.getOwnPropertyDescriptor(globalThis, 'btoa')!.get;
        (globalThis as any).URL = 5;
        const made = typeof Object.getOwnPropertyDescriptor(globalThis, 'btoa')!.get;
        const replaced = [(globalThis as any).URL, typeof TextEncoder];
        atob = (() => 'mine') as any;
        return [before, accessor, made, replaced, atob('x'), typeof btoa, Object.keys(globalThis).includes('URL')];`),
    ).toEqual([['URL', 'atob'], 'function', 'undefined', [5, 'function'], 'mine', 'function', false]);
  });

  it('prints web objects as the worker-thread provider does, under their own class names', async () => {
    const result = await runtime.run({
      program: `console.log(new URL('https://a.example/x?y=1'));
console.log(new TextDecoder(), new AbortController(), new URLSearchParams('a=1&a=2'));
return [URL.name, TextDecoder.name, AbortController.name, new URL('https://a.example').constructor.name];`,
    });
    expect(result.logs.map((entry) => entry.text)).toEqual([
      "URL { href: 'https://a.example/x?y=1', origin: 'https://a.example', protocol: 'https:', username: '', password: '', host: 'a.example', hostname: 'a.example', port: '', pathname: '/x', search: '?y=1', searchParams: URLSearchParams { y: '1' }, hash: '' }",
      "TextDecoder { encoding: 'utf-8', fatal: false, ignoreBOM: false } AbortController { signal: AbortSignal { aborted: false } } URLSearchParams { a: [ '1', '2' ] }",
    ]);
    expect(result.ok && result.value).toEqual(['URL', 'TextDecoder', 'AbortController', 'URL']);
  });

  it('harms only the program when it replaces a built-in the web globals use', async () => {
    expect(
      await valueFrom(`
        const before = new URL('https://example.com/a?b=1').searchParams.get('b');
        String.prototype.toLowerCase = () => { throw new Error('hijacked'); };
        let refused = '';
        try { new URL('https://EXAMPLE.com'); } catch (error) { refused = Object.getPrototypeOf(error) === Error.prototype ? 'guest error' : 'other'; }
        return { before, refused, encoded: btoa('still works') };`),
    ).toEqual({ before: '1', refused: 'guest error', encoded: 'c3RpbGwgd29ya3M=' });
  });

  it('gives the same values in deterministic mode on every run', async () => {
    const program = `
      const id = crypto.randomUUID();
      const timed = AbortSignal.timeout(50);
      await new Promise((resolve) => timed.addEventListener('abort', resolve));
      return [id, Date.now(), new URL('https://example.com/?id=' + id).search, btoa(String(Math.random()))];`;
    const outputs: string[] = [];
    for (let index = 0; index < 2; index += 1) {
      const deterministic = createQuickJsCodeRuntime({ poolSize: 1, deterministic: { seed: 9, startTime: 1_000 } });
      try {
        outputs.push(JSON.stringify(await deterministic.run({ program })));
      } finally {
        await deterministic.dispose();
      }
    }
    const first = JSON.parse(outputs[0]!) as { ok: boolean; value: unknown[] };
    expect(first.ok).toBe(true);
    expect(first.value[1]).toBe(1_050);
    expect(JSON.parse(outputs[1]!).value).toEqual(first.value);
  });
});
