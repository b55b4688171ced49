import { describe, expect, it } from 'vitest';
import { intersectionOf, type ObjectNode, type TypeNode, unionOf } from './schema-model.js';

/** `node` behind a proxy that counts every property read, at any depth. */
function counted<T extends object>(node: T): { node: T; reads: () => number } {
  let reads = 0;
  const wrap = <V>(value: V): V =>
    typeof value === 'object' && value !== null
      ? (new Proxy(value, {
          get(target, key, receiver) {
            reads += 1;
            return wrap(Reflect.get(target, key, receiver));
          },
        }) as V)
      : value;
  return { node: wrap(node), reads: () => reads };
}

function nested(depth: number): ObjectNode {
  let node: ObjectNode = { kind: 'object', hint: 'Leaf', label: 'Leaf', properties: [], additional: undefined };
  for (let level = 0; level < depth; level += 1) {
    node = {
      kind: 'object',
      hint: `Level${level}`,
      label: `Level${level}`,
      properties: [{ name: 'child', type: node, optional: false, doc: undefined }],
      additional: undefined,
    };
  }
  return node;
}

describe.each([
  ['unionOf', unionOf],
  ['intersectionOf', intersectionOf],
])('%s', (_name, combine) => {
  it('returns a lone member as it is, neither serialising nor copying it', () => {
    const { node, reads } = counted(nested(12));
    expect(combine([node])).toBe(node);
    // A few reads of its kind; serialising it to compare, or copying it, reads far more.
    expect(reads()).toBeLessThan(8);
  });
});

describe('unionOf', () => {
  it('still drops repeated members and never, and lets unknown absorb the rest', () => {
    const text: TypeNode = { kind: 'primitive', name: 'string' };
    expect(unionOf([text, { kind: 'primitive', name: 'string' }, { kind: 'never' }])).toEqual(text);
    expect(unionOf([text, { kind: 'unknown' }])).toEqual({ kind: 'unknown' });
    expect(unionOf([{ kind: 'never' }])).toEqual({ kind: 'never' });
    expect(unionOf([])).toEqual({ kind: 'never' });
  });
});

describe('intersectionOf', () => {
  it('still merges several objects, a property required by any member being required', () => {
    const merged = intersectionOf([
      {
        kind: 'object',
        hint: 'A',
        label: 'A',
        properties: [{ name: 'id', type: { kind: 'primitive', name: 'string' }, optional: false, doc: undefined }],
        additional: undefined,
      },
      {
        kind: 'object',
        hint: 'B',
        label: 'B',
        properties: [{ name: 'id', type: { kind: 'primitive', name: 'string' }, optional: true, doc: 'The id.' }],
        additional: undefined,
      },
    ]);
    expect(merged).toMatchObject({
      kind: 'object',
      properties: [{ name: 'id', optional: false, doc: 'The id.' }],
    });
  });
});
