import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';

const runtime = createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 20_000, timers: 4 });
afterAll(() => runtime.dispose());

describe('worker-thread timers, microtasks and performance.now', () => {
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
      value: [4, 'A run may call setTimeout and setInterval at most 4 times in all.'],
    });
  });

  it('fails the run with what an interval or a microtask callback throws', async () => {
    for (const program of [
      "setInterval(() => { throw new TypeError('from an interval'); }, 1);\nawait new Promise(() => {});",
      "queueMicrotask(() => { throw new TypeError('from a microtask'); });\nawait new Promise(() => {});",
    ]) {
      const result = await runtime.run({ program });
      expect(!result.ok && result.failure.kind).toBe('exception');
      expect(!result.ok && result.failure.message).toMatch(/from an? (interval|microtask)/);
    }
  });

  it('runs a microtask before the next timer, after the current code', async () => {
    const result = await runtime.run({
      program: `
        const order: string[] = [];
        setTimeout(() => order.push('timeout'), 0);
        queueMicrotask(() => order.push('microtask'));
        order.push('sync');
        await new Promise((resolve) => setTimeout(resolve, 5));
        return order;`,
    });
    expect(result).toMatchObject({ ok: true, value: ['sync', 'microtask', 'timeout'] });
  });

  it('counts performance.now in whole milliseconds from the start of the run', async () => {
    const result = await runtime.run({
      program: `
        const first = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 30));
        const second = performance.now();
        return { first, second, whole: Number.isInteger(first) && Number.isInteger(second), origin: Math.abs(performance.timeOrigin + second - Date.now()) < 50 };`,
    });
    const value = (result.ok ? result.value : undefined) as {
      first: number;
      second: number;
      whole: boolean;
      origin: boolean;
    };
    expect(value.whole).toBe(true);
    expect(value.origin).toBe(true);
    expect(value.first).toBeLessThan(1_000);
    expect(value.second - value.first).toBeGreaterThanOrEqual(25);
  });
});

describe('worker-thread console output of web globals', () => {
  it('prints a URL, its search parameters, encoders and signals by what they hold', async () => {
    const result = await runtime.run({
      program: `
        const url = new URL('https://example.com/a?b=1&b=2');
        console.log(url);
        console.log(url.searchParams, new TextDecoder(), new AbortController());
        console.log(Object.create(URL.prototype));`,
    });
    expect(result.logs.map((entry) => entry.text)).toEqual([
      "URL { href: 'https://example.com/a?b=1&b=2', origin: 'https://example.com', protocol: 'https:', username: '', password: '', host: 'example.com', hostname: 'example.com', port: '', pathname: '/a', search: '?b=1&b=2', searchParams: URLSearchParams { b: [ '1', '2' ] }, hash: '' }",
      "URLSearchParams { b: [ '1', '2' ] } TextDecoder { encoding: 'utf-8', fatal: false, ignoreBOM: false } AbortController { signal: AbortSignal { aborted: false } }",
      'URL {}',
    ]);
  });
});
