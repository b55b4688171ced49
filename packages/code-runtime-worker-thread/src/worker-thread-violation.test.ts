import { checkJsonValue, findJsonViolation, jsonDepthLimit, measureJson } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { captureIntrinsics } from './prelude-intrinsics.js';
import { makeJsonWriter } from './prelude-json.js';
import { rebuildViolation } from './worker-thread-violation.js';

// The prelude's writer runs here, in the test's realm, on the same values the contract's checker
// judges: the first violation it reports, rebuilt on the host, must read exactly the same. (A Map,
// Set, iterator or Error is converted by the boundary's table first; its refusals, such as a Map
// key that is an object, are the conformance suite's json-boundary cases and worker-thread-json's.)
const writeJson = makeJsonWriter(captureIntrinsics());

class Money {
  amount = 1;
}
const cyclic: Record<string, unknown> = { name: 'root', child: { list: [1] } };
(cyclic.child as Record<string, unknown>).back = cyclic;
const sparse = [1, 2];
delete sparse[0];
const extraKey = Object.assign([1, 2], { note: 'x' });
const withSymbol = { [Symbol('key')]: 1 };
const accessor = {
  get value() {
    return 1;
  },
};

const refused: Array<[string, unknown]> = [
  ['NaN', { ratio: Number.NaN }],
  ['Infinity', [1, [Number.POSITIVE_INFINITY]]],
  ['-Infinity', { deep: { deeper: Number.NEGATIVE_INFINITY } }],
  ['-0', { zero: -0 }],
  ['BigInt', { big: 10n }],
  ['function', { call() {} }],
  ['symbol', [Symbol('s')]],
  ['cycle', cyclic],
  ['hole', { list: sparse }],
  ['array key', { list: extraKey }],
  ['symbol key', { nested: withSymbol }],
  ['accessor', { item: accessor }],
  ['class instance', [new Money()]],
  ['null-prototype class', { odd: Object.create(Object.create(null)) }],
  ['foreign array', { list: Object.setPrototypeOf([], Object.create(Array.prototype)) }],
  ['odd keys', { 'a b': { '0': { __proto__: [Number.NaN] } } }],
];

// Values the writer first converts as JSON.stringify does (toJSON run, undefined properties left out,
// undefined elements null), each with its converted form: the violation must read as the
// contract's reading of that form.
const converted: Array<[string, unknown, unknown]> = [
  ['a NaN after an omitted undefined', { skipped: undefined, ratio: Number.NaN }, { ratio: Number.NaN }],
  ['a BigInt after an undefined element', { list: [undefined, 1n] }, { list: [null, 1n] }],
  [
    'a Date, then a NaN',
    { when: new Date(0), ratio: Number.NaN },
    { when: new Date(0).toISOString(), ratio: Number.NaN },
  ],
  [
    'what a toJSON returned',
    [{ toJSON: () => ({ inner: [Number.POSITIVE_INFINITY] }) }],
    [{ inner: [Number.POSITIVE_INFINITY] }],
  ],
  ['a toJSON that returns undefined at the root', { toJSON: () => undefined }, undefined],
  ['a toJSON that returns a function', { item: { toJSON: () => () => 1 } }, { item: () => 1 }],
];

describe('prelude JSON writer and rebuildViolation', () => {
  it.each(refused)('reports %s exactly as the contract does', (_label, value) => {
    const written = writeJson(value, Number.POSITIVE_INFINITY, jsonDepthLimit);
    expect(written[0]).toBe('V');
    const rebuilt = rebuildViolation(JSON.parse(written.slice(1)));
    // The host reads a value converted by the boundary's table (toJsonValue), then measured.
    const host = checkJsonValue(value);
    expect(host.ok).toBe(false);
    expect(findJsonViolation(rebuilt)).toEqual(host.ok ? undefined : host.violation);
  });

  it.each(converted)('reports %s as the contract reads the converted value', (_label, value, equivalent) => {
    const written = writeJson(value, Number.POSITIVE_INFINITY, jsonDepthLimit);
    expect(written[0]).toBe('V');
    const rebuilt = rebuildViolation(JSON.parse(written.slice(1)));
    expect(findJsonViolation(rebuilt)).toEqual(findJsonViolation(equivalent));
    expect(findJsonViolation(equivalent)).toBeDefined();
  });

  it('refuses a cycle made by toJSON at the same place as the contract', () => {
    const root: Record<string, unknown> = { child: {} };
    (root.child as Record<string, unknown>).link = { toJSON: () => root };
    const written = writeJson(root, Number.POSITIVE_INFINITY, jsonDepthLimit);
    const equivalent: Record<string, unknown> = { child: {} };
    (equivalent.child as Record<string, unknown>).link = equivalent;
    expect(findJsonViolation(rebuildViolation(JSON.parse(written.slice(1))))).toEqual(findJsonViolation(equivalent));
  });

  it('writes what JSON.stringify writes for dates, toJSON methods and undefined members', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
      toJSON(key: string) {
        return { x: this.x, y: this.y, key, gone: undefined };
      }
    }
    const value = {
      fetchedAt: new Date(1_700_000_000_123),
      cursor: undefined,
      list: [undefined, 1, undefined],
      point: new Point(1, 2),
      points: [new Point(3, 4)],
      nested: { toJSON: () => 'replaced' },
      empty: { gone: undefined },
    };
    expect(writeJson(value, Number.POSITIVE_INFINITY, jsonDepthLimit)).toBe(`T${JSON.stringify(value)}`);
    expect(writeJson([undefined], Number.POSITIVE_INFINITY, jsonDepthLimit)).toBe('T[null]');
    expect(writeJson(new Date(0), Number.POSITIVE_INFINITY, jsonDepthLimit)).toBe(`T${JSON.stringify(new Date(0))}`);
  });

  it('uses a toJSON the program put on BigInt.prototype, as JSON.stringify does', () => {
    const prototype = BigInt.prototype as unknown as { toJSON?: unknown };
    prototype.toJSON = function (this: bigint) {
      return this.toString();
    };
    try {
      const value = { big: 12345678901234567890n };
      expect(writeJson(value, Number.POSITIVE_INFINITY, jsonDepthLimit)).toBe(`T${JSON.stringify(value)}`);
    } finally {
      delete prototype.toJSON;
    }
  });

  it('never runs a getter, not even one named toJSON, and passes on what toJSON throws', () => {
    let ran = 0;
    const getter = {
      get toJSON() {
        ran += 1;
        return () => 1;
      },
    };
    expect(writeJson(getter, Number.POSITIVE_INFINITY, jsonDepthLimit)[0]).toBe('V');
    expect(ran).toBe(0);
    const thrown = new Error('from toJSON');
    expect(() =>
      writeJson(
        {
          toJSON() {
            throw thrown;
          },
        },
        Number.POSITIVE_INFINITY,
        jsonDepthLimit,
      ),
    ).toThrow(thrown);
  });

  it('refuses a value nested past the depth limit at the same place as the contract, without recursion', () => {
    let deep: unknown = 0;
    for (let level = 0; level < 1_000_000; level += 1) deep = { next: deep };
    const written = writeJson(deep, Number.POSITIVE_INFINITY, jsonDepthLimit);
    expect(written[0]).toBe('V');
    const rebuilt = rebuildViolation(JSON.parse(written.slice(1)));
    const options = { depthLimit: jsonDepthLimit };
    expect(measureJson(rebuilt, options)).toEqual(measureJson(deep, options));
    expect(measureJson(rebuilt, options).ok).toBe(false);
  });

  it('writes lossless values as the same JSON text as JSON.stringify', () => {
    const shared = { shared: true };
    const value = { text: 'héllo ✓ 🌊 "quoted"', list: [1, -2.5, 1e21, null, true, shared, shared], empty: {}, '': [] };
    expect(writeJson(value, Number.POSITIVE_INFINITY, jsonDepthLimit)).toBe(`T${JSON.stringify(value)}`);
  });

  it('stops writing past the limit but still finds a later violation', () => {
    expect(writeJson({ long: 'x'.repeat(100) }, 50, jsonDepthLimit)).toBe('L');
    expect(writeJson({ long: 'x'.repeat(100), bad: Number.NaN }, 50, jsonDepthLimit)[0]).toBe('V');
  });
});
