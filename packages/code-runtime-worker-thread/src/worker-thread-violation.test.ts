import { findJsonViolation, jsonDepthLimit, measureJson } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { captureIntrinsics } from './prelude-intrinsics.js';
import { makeJsonWriter } from './prelude-json.js';
import { rebuildViolation } from './worker-thread-violation.js';

// The prelude's writer runs here, in the test's realm, on the same values the contract's checker
// judges: the first violation it reports, rebuilt on the host, must read exactly the same.
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
  ['undefined', { missing: undefined }],
  ['function', { call() {} }],
  ['symbol', [Symbol('s')]],
  ['cycle', cyclic],
  ['hole', { list: sparse }],
  ['array key', { list: extraKey }],
  ['symbol key', { nested: withSymbol }],
  ['accessor', { item: accessor }],
  ['Date', { when: new Date(0) }],
  ['class instance', [new Money()]],
  ['Map', new Map()],
  ['null-prototype class', { odd: Object.create(Object.create(null)) }],
  ['foreign array', { list: Object.setPrototypeOf([], Object.create(Array.prototype)) }],
  ['odd keys', { 'a b': { '0': { __proto__: [Number.NaN] } } }],
];

describe('prelude JSON writer and rebuildViolation', () => {
  it.each(refused)('reports %s exactly as the contract does', (_label, value) => {
    const written = writeJson(value, Number.POSITIVE_INFINITY, jsonDepthLimit);
    expect(written[0]).toBe('V');
    const rebuilt = rebuildViolation(JSON.parse(written.slice(1)));
    expect(findJsonViolation(rebuilt)).toEqual(findJsonViolation(value));
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
