import {
  makeEncodingGlobals,
  makeSearchParams,
  makeUrlGlobals,
  makeUrlHost,
  makeWebBasics,
  type WebHooks,
  type WebMade,
} from '@sluice/code-runtime-kit';
import { describe, expect, it } from 'vitest';

// The prelude's web globals, made here in the test's realm (as the prelude makes them in a run's
// context) and compared with Node's own implementations on the cases programs meet.
const timers: Array<() => void> = [];
const failures: unknown[] = [];
const hooks: WebHooks = {
  setTimeout: (callback) => timers.push(callback),
  clearTimeout: () => {},
  fail: (error) => failures.push(error),
  now: Date.now,
  random: Math.random,
  startedAt: () => 0,
  describe: () => {},
};
const made: WebMade = { globals: {}, internal: {} };
for (const maker of [makeWebBasics, makeEncodingGlobals, makeSearchParams, makeUrlHost, makeUrlGlobals])
  maker(hooks, made);
const ours = made.globals as unknown as {
  URL: typeof URL;
  URLSearchParams: typeof URLSearchParams;
  TextEncoder: typeof TextEncoder;
  TextDecoder: typeof TextDecoder;
  atob: typeof atob;
  btoa: typeof btoa;
  structuredClone: typeof structuredClone;
  crypto: typeof crypto;
  AbortController: typeof AbortController;
  AbortSignal: typeof AbortSignal;
  DOMException: typeof DOMException;
  performance: { now(): number };
};

/** A small seeded generator, so the random cases are the same on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state;
  };
}

function describeUrl(url: URL) {
  const { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } = url;
  return {
    href,
    origin,
    protocol,
    username,
    password,
    host,
    hostname,
    port,
    pathname,
    search,
    hash,
    params: [...url.searchParams],
  };
}

function outcome(make: () => URL): unknown {
  try {
    return describeUrl(make());
  } catch (error) {
    return { threw: (error as Error).name };
  }
}

const base = 'http://a/b/c/d;p?q';
const urlCases: Array<[string, string?]> = [
  ['https://api.example.com/v1/items?q=oslo%20population&limit=10#results'],
  ['HTTPS://User:p@ss@EXAMPLE.com:443/a/./b/../c/%2e%2E/d?x=1&x=2#top'],
  ['http://example.com:8080'],
  ['http://example.com:80/'],
  ['ws://chat.example.com/socket'],
  ['wss://chat.example.com:443/socket?room=1'],
  ['ftp://files.example.com:21/pub/file.txt'],
  ['file:///etc/hosts'],
  ['file://localhost/tmp/x'],
  ['file:/etc/passwd'],
  ['/\\scheme-relative', base],
  ['https://example.com/path with spaces/ünïcode?q=a b&é=ç#frag ment'],
  ['https://example.com/p^{}`|<>"x?q=\'^{}|"<> #f`^{}| <>"'],
  ['https://example.com/search?q=café+crème&tags=a,b&empty=&flag'],
  ['https://example.com/?'],
  ['https://example.com/#'],
  ['http://0x7f.1/'],
  ['http://127.0.0.1:3000/health'],
  ['http://192.168.0.1.'],
  ['http://[::FFFF:1.2.3.4]/'],
  ['http://[2001:db8:0:0:1:0:0:1]:8080/x'],
  ['http://[1:0:0:0:0:0:0:1]/'],
  ['https://example.com\\path\\to\\file?x'],
  ['  https://example.com/trimmed\t\n  '],
  ['https:example.com/no-slashes'],
  ['https:/example.com/one-slash'],
  ['mailto:Someone@Example.com?subject=Hello there'],
  ['urn:isbn:0451450523'],
  ['data:text/plain;base64,SGVsbG8='],
  ['foo://Host/a b/../c?x#y'],
  ['javascript:alert(1)'],
  ['../g', base],
  ['../../../g', base],
  ['//g/x', base],
  ['?y', base],
  ['#s', base],
  ['', base],
  ['g;x=1/../y', base],
  ['./g/', base],
  ['/absolute/path?x=1', 'https://example.com/base/dir/'],
  ['relative/path', 'https://example.com/base/dir/'],
  ['relative/path', 'https://example.com/base/file'],
  ['https:other', 'https://example.com/base/'],
  ['http://other.example/', 'https://example.com/'],
  ['x', 'mailto:someone@example.com'],
  ['#frag', 'mailto:someone@example.com'],
  ['not a url'],
  ['https://'],
  ['https://exa mple.com/'],
  ['http://example.com:99999/'],
  ['http://example.com:12ab/'],
  ['http://[::1/'],
  ['http://1.2.3.256/'],
  ['/relative-without-base'],
];

describe('prelude URL', () => {
  it.each(urlCases)('parses %j (base %j) as Node does', (input, baseUrl) => {
    expect(outcome(() => new ours.URL(input, baseUrl))).toEqual(outcome(() => new URL(input, baseUrl)));
  });

  it('takes a URL as its base, and says whether a URL parses', () => {
    const node = new URL('/x?y=1', new URL('https://example.com/a/b'));
    const mine = new ours.URL('/x?y=1', new ours.URL('https://example.com/a/b'));
    expect(describeUrl(mine)).toEqual(describeUrl(node));
    expect(ours.URL.canParse('https://example.com')).toBe(true);
    expect(ours.URL.canParse('nope')).toBe(false);
    expect(ours.URL.canParse('nope', 'https://example.com')).toBe(true);
    expect(String(mine)).toBe(node.toString());
    expect(JSON.stringify({ mine })).toBe(JSON.stringify({ mine: node }));
  });

  it('applies setters and search-parameter changes as Node does', () => {
    const change = (url: URL) => {
      url.searchParams.append('page', '2');
      url.searchParams.set('q', 'a b&c');
      url.hash = 'section 2';
      url.pathname = '/v2/items/../things';
      url.port = '8443';
      const first = describeUrl(url);
      url.search = '?fresh=1&x=é';
      url.searchParams.delete('x');
      url.hostname = 'Other.Example';
      url.protocol = 'http';
      url.port = '80';
      url.username = 'me';
      url.password = 'p@ss';
      const second = describeUrl(url);
      url.href = 'https://example.org/reset?a=1';
      url.searchParams.sort();
      url.search = '';
      url.hash = '';
      return [first, second, describeUrl(url)];
    };
    const start = 'https://api.example.com/v1/items?q=old#x';
    expect(change(new ours.URL(start))).toEqual(change(new URL(start)));
    expect(() => {
      new ours.URL(start).href = 'nope';
    }).toThrow(TypeError);
  });
});

describe('prelude URLSearchParams', () => {
  const inputs: unknown[] = [
    '?q=oslo+population&limit=10&limit=20',
    'a=1&b=%20%2B+&c&=empty&d=%zz&e=%E2%82%AC&f=%FF',
    { q: 'café crème', n: 5, flag: true },
    [
      ['a', '1'],
      ['a', '2'],
      ['b', 'x y'],
    ],
    '',
    "x=*-._~!'()&emoji=🚀",
  ];
  it.each(inputs)('reads and writes %j as Node does', (input) => {
    const run = (Params: typeof URLSearchParams) => {
      const params = new Params(input as string);
      const copy = new Params(params);
      const read = {
        text: params.toString(),
        entries: [...params],
        keys: [...params.keys()],
        values: [...params.values()],
        size: params.size,
        a: params.get('a'),
        all: params.getAll('a'),
        has: [params.has('a'), params.has('a', '2'), params.has('missing')],
        copy: copy.toString(),
      };
      params.append('z', 'last one');
      params.set('a', 'only');
      params.delete('b');
      params.sort();
      const each: string[] = [];
      params.forEach((value, name) => {
        each.push(`${name}=${value}`);
      });
      return { read, after: params.toString(), each, missing: params.get('missing') };
    };
    expect(run(ours.URLSearchParams)).toEqual(run(URLSearchParams));
  });

  it('refuses a pair that is not two items', () => {
    expect(() => new ours.URLSearchParams([['a', 'b', 'c']] as never)).toThrow(TypeError);
  });
});

describe('prelude TextEncoder and TextDecoder', () => {
  const texts = [
    '',
    'plain ascii',
    'héllo wörld',
    '日本語のテキスト',
    'emoji 🚀🌊 and flags 🇳🇴',
    '\ud800 lone \udfff surrogates \ud83d',
  ];

  it.each(texts)('encodes %j to the same bytes as Node and decodes them back', (text) => {
    const mine = new ours.TextEncoder().encode(text);
    expect([...mine]).toEqual([...new TextEncoder().encode(text)]);
    expect(new ours.TextDecoder().decode(mine)).toBe(new TextDecoder().decode(mine));
    const target = new Uint8Array(7);
    const nodeTarget = new Uint8Array(7);
    expect(new ours.TextEncoder().encodeInto(text, target)).toEqual(new TextEncoder().encodeInto(text, nodeTarget));
    expect([...target]).toEqual([...nodeTarget]);
  });

  it('encodes random UTF-16 text, lone surrogates included, into the bytes and cuts Node writes', () => {
    const next = seeded(11);
    const units = [
      0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xffff, 0xd83d, 0xde80,
    ];
    for (let round = 0; round < 500; round += 1) {
      const text = String.fromCharCode(
        ...Array.from({ length: next() % 12 }, () =>
          next() % 2 === 0 ? units[next() % units.length]! : next() % 0x10000,
        ),
      );
      expect([...new ours.TextEncoder().encode(text)]).toEqual([...new TextEncoder().encode(text)]);
      const size = next() % 20;
      const mine = new Uint8Array(size);
      const node = new Uint8Array(size);
      expect(new ours.TextEncoder().encodeInto(text, mine)).toEqual(new TextEncoder().encodeInto(text, node));
      expect([...mine]).toEqual([...node]);
    }
  });

  it('decodes ill-formed bytes with the same replacement characters as Node', () => {
    const next = seeded(7);
    const interesting = [
      0x00, 0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x9f, 0x90, 0x8f,
    ];
    for (let round = 0; round < 3000; round += 1) {
      const bytes = Uint8Array.from({ length: 1 + (next() % 9) }, () =>
        next() % 2 === 0 ? interesting[next() % interesting.length]! : next() % 256,
      );
      expect(new ours.TextDecoder().decode(bytes)).toBe(new TextDecoder().decode(bytes));
      const cut = next() % (bytes.length + 1);
      const streamed = (decoder: InstanceType<typeof TextDecoder>) =>
        decoder.decode(bytes.subarray(0, cut), { stream: true }) + decoder.decode(bytes.subarray(cut));
      expect(streamed(new ours.TextDecoder())).toBe(streamed(new TextDecoder()));
      let fatalMine: string | undefined;
      let fatalNode: string | undefined;
      try {
        fatalMine = new ours.TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {}
      try {
        fatalNode = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {}
      expect(fatalMine).toBe(fatalNode);
    }
  });

  it('decodes a stream split anywhere, strips one BOM, and reads ArrayBuffers and DataViews', () => {
    const bytes = new TextEncoder().encode('\ufeffa€𝄞b');
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      const mine = new ours.TextDecoder();
      const node = new TextDecoder();
      const read = (decoder: InstanceType<typeof TextDecoder>) =>
        decoder.decode(bytes.subarray(0, cut), { stream: true }) + decoder.decode(bytes.subarray(cut));
      expect(read(mine)).toBe(read(node));
    }
    expect(new ours.TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes)).toBe(
      new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes),
    );
    expect(new ours.TextDecoder().decode(bytes.buffer)).toBe(new TextDecoder().decode(bytes.buffer));
    expect(new ours.TextDecoder().decode(new DataView(bytes.buffer, 1))).toBe(
      new TextDecoder().decode(new DataView(bytes.buffer, 1)),
    );
    expect(new ours.TextDecoder('UTF8').encoding).toBe('utf-8');
    expect(() => new ours.TextDecoder('latin1')).toThrow(RangeError);
    expect(() => new ours.TextDecoder().decode('text' as never)).toThrow(TypeError);
  });
});

describe('prelude atob and btoa', () => {
  it('encodes and decodes binary strings as Node does', () => {
    for (let length = 0; length < 40; length += 1) {
      const text = Array.from({ length }, (_, index) => String.fromCharCode((index * 37 + length) % 256)).join('');
      expect(ours.btoa(text)).toBe(btoa(text));
      expect(ours.atob(btoa(text))).toBe(text);
    }
    for (const encoded of ['aGVsbG8', 'aGVsbG8=', ' aGVs\nbG8= ', 'YQ', 'YQ==', '']) {
      expect(ours.atob(encoded)).toBe(atob(encoded));
    }
  });

  it('throws an InvalidCharacterError where Node does', () => {
    for (const bad of ['a', 'aGVsbG8===', 'a$bc', 'YQ=x']) {
      expect(() => atob(bad)).toThrow();
      expect(() => ours.atob(bad)).toThrow(expect.objectContaining({ name: 'InvalidCharacterError' }));
    }
    expect(() => ours.btoa('emoji 🚀')).toThrow(expect.objectContaining({ name: 'InvalidCharacterError', code: 5 }));
  });
});

describe('prelude structuredClone', () => {
  it('clones JSON-like and common built-in values as Node does, keeping shared and cyclic references', () => {
    const shared = { id: 1 };
    const value: Record<string, unknown> = {
      text: 'x',
      number: -0,
      nan: Number.NaN,
      big: 10n,
      missing: undefined,
      list: Object.assign(new Array(3), { 0: 1, 2: 3 }),
      when: new Date(1_700_000_000_000),
      pattern: /a+b/giu,
      map: new Map<unknown, unknown>([[shared, 'shared key']]),
      set: new Set([1, shared]),
      bytes: new Uint16Array([1, 2, 3]),
      view: new DataView(new ArrayBuffer(4), 1, 2),
      error: new RangeError('bad range'),
      boxed: Object(5),
      shared,
      again: shared,
    };
    value.self = value;
    const mine = ours.structuredClone(value) as Record<string, unknown>;
    expect(mine).toEqual(structuredClone(value));
    expect(mine).not.toBe(value);
    expect(mine.self).toBe(mine);
    expect(mine.again).toBe(mine.shared);
    expect([...(mine.map as Map<unknown, unknown>).keys()][0]).toBe(mine.shared);
    expect(Object.is(mine.number, -0)).toBe(true);
    expect(1 in (mine.list as unknown[])).toBe(false);
  });

  it('turns a class instance into a plain object and refuses functions, symbols and transfers', () => {
    class Point {
      x = 1;
      move() {}
    }
    expect(ours.structuredClone(new Point())).toEqual(structuredClone(new Point()));
    expect(Object.getPrototypeOf(ours.structuredClone(new Point()))).toBe(Object.prototype);
    for (const bad of [() => 1, { nested: Symbol('s') }, new WeakMap(), Promise.resolve(1)]) {
      expect(() => structuredClone(bad)).toThrow();
      expect(() => ours.structuredClone(bad)).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
    }
    expect(() => ours.structuredClone(new ArrayBuffer(1), { transfer: [new ArrayBuffer(1)] })).toThrow();
  });
});

describe('prelude crypto', () => {
  it('makes version-4 UUIDs and fills integer typed arrays', () => {
    const uuids = new Set(Array.from({ length: 200 }, () => ours.crypto.randomUUID()));
    expect(uuids.size).toBe(200);
    for (const uuid of uuids)
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const bytes = new Uint8Array(4096);
    expect(ours.crypto.getRandomValues(bytes)).toBe(bytes);
    expect(new Set(bytes).size).toBeGreaterThan(200);
    const big = new BigUint64Array(2);
    ours.crypto.getRandomValues(big);
    expect(big[0]).not.toBe(big[1]);
  });

  it('refuses what Node refuses, with the same DOMException names', () => {
    for (const [bad, name] of [
      [new Float64Array(1), 'TypeMismatchError'],
      [[1, 2], 'TypeMismatchError'],
      [new Uint8Array(65_537), 'QuotaExceededError'],
    ] as const) {
      expect(() => crypto.getRandomValues(bad as never)).toThrow(expect.objectContaining({ name }));
      expect(() => ours.crypto.getRandomValues(bad as never)).toThrow(expect.objectContaining({ name }));
    }
  });
});

describe('prelude AbortController and AbortSignal', () => {
  it('aborts as Node does: default and given reasons, listeners once, onabort, throwIfAborted', () => {
    const run = (Controller: typeof AbortController, Signal: typeof AbortSignal) => {
      const events: string[] = [];
      const controller = new Controller();
      const { signal } = controller;
      const listener = (event: Event) => events.push(`listener ${event.type} ${event.target === signal}`);
      signal.addEventListener('abort', listener);
      signal.addEventListener('abort', listener);
      signal.addEventListener('abort', { handleEvent: () => events.push('object') } as never);
      signal.onabort = () => events.push('onabort');
      const removed = () => events.push('removed');
      signal.addEventListener('abort', removed);
      signal.removeEventListener('abort', removed);
      const before = signal.aborted;
      controller.abort();
      controller.abort('second');
      let thrown: unknown;
      try {
        signal.throwIfAborted();
      } catch (error) {
        thrown = (error as Error).name;
      }
      const given = Signal.abort({ why: 'given' });
      return {
        before,
        after: signal.aborted,
        reason: [
          (signal.reason as Error).name,
          (signal.reason as Error).message,
          (signal.reason as { code: number }).code,
        ],
        events: events.sort(),
        thrown,
        given: given.reason,
        illegal: (() => {
          try {
            new (Signal as unknown as new () => unknown)();
            return 'constructed';
          } catch (error) {
            return (error as Error).name;
          }
        })(),
      };
    };
    expect(run(ours.AbortController, ours.AbortSignal)).toEqual(run(AbortController, AbortSignal));
  });

  it('combines signals with any, and times out through the prelude timer as a TimeoutError', () => {
    const first = new ours.AbortController();
    const second = new ours.AbortController();
    const combined = ours.AbortSignal.any([first.signal, second.signal]);
    second.abort('second reason');
    expect([combined.aborted, combined.reason]).toEqual([true, 'second reason']);
    expect(ours.AbortSignal.any([ours.AbortSignal.abort('early')]).reason).toBe('early');
    const timed = ours.AbortSignal.timeout(10);
    expect(timed.aborted).toBe(false);
    timers.pop()!();
    expect([timed.aborted, (timed.reason as Error).name]).toEqual([true, 'TimeoutError']);
  });

  it('ends the run with what a listener throws, after calling the others', () => {
    const controller = new ours.AbortController();
    const heard: string[] = [];
    const thrown = new Error('listener failed');
    controller.signal.addEventListener('abort', () => {
      throw thrown;
    });
    controller.signal.addEventListener('abort', () => heard.push('second'));
    failures.length = 0;
    controller.abort();
    expect(failures).toEqual([thrown]);
    expect(heard).toEqual(['second']);
  });
});

describe('prelude performance', () => {
  it('counts whole milliseconds from the start of the run and never goes back', () => {
    const readings = Array.from({ length: 50 }, () => ours.performance.now());
    for (const reading of readings) expect(Number.isInteger(reading)).toBe(true);
    expect([...readings].sort((left, right) => left - right)).toEqual(readings);
  });
});
