import type { HostFunction, JsonValue } from '@sluice/code-runtime';

/** What a misbehaving host function does to the run, as the program and the caller see it. */
export type HostFaultOutcome =
  /** The call raises an error in the program, which catches it. */
  | { readonly kind: 'error' }
  /** The call returns this value to the program. */
  | { readonly kind: 'value'; readonly value: JsonValue }
  /** The call never settles: the run ends at its wall clock. */
  | { readonly kind: 'timeout' }
  /** The call settles after the run has ended: the run ends as if it had not been made. */
  | { readonly kind: 'late' };

/** One row of the fault table: a host function that misbehaves in one way, and what the run must make of it. */
export interface HostFault {
  readonly name: string;
  readonly fault: HostFunction;
  readonly outcome: HostFaultOutcome;
}

function thrower(): never {
  throw new Error('a trap of the hostile value');
}

/** A Proxy whose every trap throws; with `readableThen`, `then` reads as undefined so it is not taken for a promise. */
function throwingProxy(readableThen = false): object {
  const get = readableThen
    ? (_target: object, key: string | symbol) => (key === 'then' ? undefined : thrower())
    : thrower;
  return new Proxy(
    {},
    {
      get,
      has: thrower,
      ownKeys: thrower,
      getOwnPropertyDescriptor: thrower,
      getPrototypeOf: thrower,
      defineProperty: thrower,
      deleteProperty: thrower,
      set: thrower,
      isExtensible: thrower,
      preventExtensions: thrower,
      setPrototypeOf: thrower,
    },
  );
}

class UnreadableError extends Error {
  override get message(): string {
    return thrower();
  }
  override get name(): string {
    return thrower();
  }
}

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

function nested(depth: number): unknown[] {
  const root: unknown[] = [];
  let current = root;
  for (let level = 1; level < depth; level += 1) {
    const next: unknown[] = [];
    current.push(next);
    current = next;
  }
  return root;
}

const fiveMegabytes = 5 * 1024 * 1024;

/** Odd things to throw or reject with, each built fresh for its call. */
const oddThrows: ReadonlyArray<readonly [string, () => unknown]> = [
  ['an Error subclass whose message and name getters throw', () => new UnreadableError()],
  [
    'a null-prototype object with a throwing getter',
    () => Object.defineProperty(Object.create(null), 'message', { get: thrower, enumerable: true }),
  ],
  ['a Proxy whose every trap throws', () => throwingProxy()],
  [
    'an object whose toJSON, toString and Symbol.toPrimitive throw',
    () => ({ toJSON: thrower, toString: thrower, [Symbol.toPrimitive]: thrower }),
  ],
  ['a string', () => 'a plain string was thrown'],
  ['a number', () => 42],
  ['undefined', () => undefined],
  ['a symbol', () => Symbol('thrown')],
  ['a 5 MB string', () => '🌊'.repeat(fiveMegabytes / 4)],
  ['an Error with a 5 MB message', () => new Error('é'.repeat(fiveMegabytes / 2))],
];

const error: HostFaultOutcome = { kind: 'error' };

/** The value a host function returns, each odd in its own way, and whether the program gets it. */
const oddValues: ReadonlyArray<readonly [string, () => unknown, HostFaultOutcome]> = [
  ['undefined', () => undefined, { kind: 'value', value: null }],
  ['NaN', () => Number.NaN, error],
  ['a BigInt', () => 10n, error],
  ['a function', () => () => 1, error],
  ['a symbol', () => Symbol('returned'), error],
  // The boundary's table: a Date crosses as its ISO string, a Map as an object (the README's table).
  ['a Date', () => new Date(0), { kind: 'value', value: '1970-01-01T00:00:00.000Z' }],
  ['an invalid Date', () => new Date(Number.NaN), error],
  [
    'a cycle',
    () => {
      const node: Record<string, unknown> = {};
      node.self = node;
      return node;
    },
    error,
  ],
  ['a Proxy whose every trap throws', () => throwingProxy(true), error],
  [
    'an object with a throwing getter',
    () => Object.defineProperty({}, 'secret', { get: thrower, enumerable: true }),
    error,
  ],
  ['a 5 MB string', () => 'x'.repeat(fiveMegabytes), error],
  ['an array nested 100,000 levels deep', () => nested(100_000), error],
  ['an array nested 1,000,000 levels deep', () => nested(1_000_000), error],
  [
    'a frozen object',
    () => Object.freeze({ frozen: true, list: Object.freeze([1, 2]) }),
    { kind: 'value', value: { frozen: true, list: [1, 2] } },
  ],
  ['a class instance', () => new Point(1, 2), error],
  ['a Map', () => new Map([['a', 1]]), { kind: 'value', value: { a: 1 } }],
  ['a Map with an object as a key', () => new Map([[{}, 1]]), error],
  [
    'a generator that throws',
    () =>
      (function* broken() {
        yield 1;
        throw new Error('socket closed');
      })(),
    error,
  ],
];

/** A host function that resolves with `value` after `ms`, whatever happened to the run meanwhile. */
function later(ms: number, settle: (resolve: (value: JsonValue) => void, reject: (reason: unknown) => void) => void) {
  return new Promise<JsonValue>((resolve, reject) => {
    setTimeout(() => settle(resolve, reject), ms);
  });
}

/** Every row of the fault table. */
export const hostFaults: readonly HostFault[] = [
  ...oddThrows.map(
    ([label, make]): HostFault => ({
      name: `throws ${label} synchronously, from a function that is not async`,
      fault: () => {
        throw make();
      },
      outcome: error,
    }),
  ),
  ...oddThrows.map(
    ([label, make]): HostFault => ({
      name: `rejects with ${label}`,
      fault: () => Promise.reject(make()),
      outcome: error,
    }),
  ),
  ...oddValues.map(
    ([label, make, outcome]): HostFault => ({
      name: `returns ${label}`,
      fault: async () => make() as JsonValue,
      outcome,
    }),
  ),
  {
    name: 'throws after an await, from an async function',
    fault: async () => {
      await Promise.resolve();
      throw new UnreadableError();
    },
    outcome: error,
  },
  {
    name: 'settles twice: resolves, then rejects and resolves again',
    fault: () =>
      new Promise<JsonValue>((resolve, reject) => {
        resolve('first');
        reject(new Error('second'));
        resolve('third');
      }),
    outcome: { kind: 'value', value: 'first' },
  },
  {
    name: 'returns a thenable whose then throws',
    // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the point of this row.
    fault: () => ({ then: thrower }) as unknown as Promise<JsonValue>,
    outcome: error,
  },
  {
    name: 'returns a thenable that calls back twice, with an odd rejection first',
    fault: () =>
      ({
        // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the point of this row.
        then(_resolve: (value: JsonValue) => void, reject: (reason: unknown) => void) {
          reject(throwingProxy());
          _resolve('late');
        },
      }) as unknown as Promise<JsonValue>,
    outcome: error,
  },
  {
    name: 'never settles',
    fault: () => new Promise<JsonValue>(() => {}),
    outcome: { kind: 'timeout' },
  },
  {
    name: 'returns a thenable that never calls back',
    // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the point of this row.
    fault: () => ({ then() {} }) as unknown as Promise<JsonValue>,
    outcome: { kind: 'timeout' },
  },
  {
    name: 'resolves after the run ended',
    fault: () => later(200, (resolve) => resolve('too late')),
    outcome: { kind: 'late' },
  },
  {
    name: 'rejects with a Proxy whose every trap throws after the run ended',
    fault: () => later(200, (_resolve, reject) => reject(throwingProxy())),
    outcome: { kind: 'late' },
  },
  {
    name: 'returns an array nested 1,000,000 levels deep after the run ended',
    fault: () => later(200, (resolve) => resolve(nested(1_000_000) as JsonValue)),
    outcome: { kind: 'late' },
  },
];
