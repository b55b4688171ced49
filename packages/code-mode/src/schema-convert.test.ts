import { describe, expect, it } from 'vitest';
import { typescriptType } from './declarations-typescript.js';
import { schemaToType } from './schema-convert.js';
import type { JsonSchema } from './schema-model.js';
import { DefinitionRegistry } from './schema-registry.js';

function typeOf(schema: JsonSchema, registry = new DefinitionRegistry()): string {
  return typescriptType(schemaToType(schema, { hint: 'Root', registry }));
}

function definitionsOf(schema: JsonSchema): Record<string, string> {
  const registry = new DefinitionRegistry();
  schemaToType(schema, { hint: 'Root', registry });
  return Object.fromEntries([...registry.definitions].map(([name, type]) => [name, typescriptType(type)]));
}

describe('schemaToType', () => {
  it('maps primitive types, integer included', () => {
    expect(typeOf({ type: 'string' })).toBe('string');
    expect(typeOf({ type: 'integer' })).toBe('number');
    expect(typeOf({ type: 'boolean' })).toBe('boolean');
    expect(typeOf({ type: 'null' })).toBe('null');
    expect(typeOf({ type: ['string', 'number'] })).toBe('string | number');
  });

  it('treats true, {} and unknown keywords as unknown, and false as never', () => {
    expect(typeOf(true)).toBe('unknown');
    expect(typeOf({})).toBe('unknown');
    expect(typeOf({ type: 'frobnicate' })).toBe('unknown');
    expect(typeOf(false)).toBe('never');
  });

  it('turns enum and const into literal unions', () => {
    expect(typeOf({ enum: ['a', 1, true, null] })).toBe('"a" | 1 | true | null');
    expect(typeOf({ const: 'fixed' })).toBe('"fixed"');
    expect(typeOf({ enum: [{ not: 'primitive' }] })).toBe('unknown');
  });

  it('makes nullable types from OpenAPI nullable and from type arrays', () => {
    expect(typeOf({ type: 'string', nullable: true })).toBe('string | null');
    expect(typeOf({ type: ['integer', 'null'] })).toBe('number | null');
  });

  it('writes oneOf and anyOf as unions, and absorbs members it cannot type', () => {
    expect(typeOf({ oneOf: [{ type: 'string' }, { type: 'number' }] })).toBe('string | number');
    expect(typeOf({ anyOf: [{ type: 'string' }, { type: 'string' }] })).toBe('string');
    expect(typeOf({ anyOf: [{ type: 'string' }, {}] })).toBe('unknown');
    expect(typeOf({ type: 'object', properties: { a: { type: 'string' } }, oneOf: [{ required: ['a'] }, {}] })).toBe(
      '{\n  a?: string;\n}',
    );
  });

  it('merges allOf objects into one, a property required by any member being required', () => {
    const schema = {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } },
      ],
    };
    expect(typeOf(schema)).toBe('{\n  a: string;\n  b?: number;\n}');
  });

  it('marks properties optional unless required, and quotes keys that are not identifiers', () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string' }, 'x-id': { type: 'string' }, $ok: { type: 'string' } },
      required: ['id'],
    };
    expect(typeOf(schema)).toBe('{\n  id: string;\n  "x-id"?: string;\n  $ok?: string;\n}');
  });

  it('writes additionalProperties and patternProperties as an index signature', () => {
    expect(typeOf({ type: 'object', additionalProperties: { type: 'number' } })).toBe('{ [key: string]: number }');
    expect(typeOf({ type: 'object' })).toBe('{ [key: string]: unknown }');
    expect(typeOf({ type: 'object', additionalProperties: false })).toBe('{ [key: string]: never }');
    expect(typeOf({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true })).toBe(
      '{\n  a?: string;\n  [key: string]: unknown;\n}',
    );
    expect(typeOf({ type: 'object', patternProperties: { '^x-': { type: 'string' } } })).toBe(
      '{ [key: string]: string }',
    );
  });

  it('writes arrays and tuples, from prefixItems and from draft-4 item lists', () => {
    expect(typeOf({ type: 'array', items: { type: 'string' } })).toBe('string[]');
    expect(typeOf({ type: 'array', items: { type: ['string', 'null'] } })).toBe('(string | null)[]');
    expect(typeOf({ type: 'array' })).toBe('unknown[]');
    expect(typeOf({ prefixItems: [{ type: 'number' }, { type: 'string' }], items: false })).toBe('[number, string]');
    expect(typeOf({ prefixItems: [{ type: 'number' }], items: { type: 'string' } })).toBe('[number, ...string[]]');
    expect(typeOf({ items: [{ type: 'number' }], additionalItems: { type: 'boolean' } })).toBe(
      '[number, ...boolean[]]',
    );
  });

  it('inlines a $ref that is not recursive', () => {
    const schema = {
      $ref: '#/$defs/Point',
      $defs: { Point: { type: 'object', properties: { x: { type: 'number' } } } },
    };
    expect(typeOf(schema)).toBe('{\n  x?: number;\n}');
  });

  it('decodes JSON Pointer escapes in a $ref', () => {
    const schema = { $ref: '#/$defs/a~1b%20c', $defs: { 'a/b c': { type: 'string' } } };
    expect(typeOf(schema)).toBe('string');
  });

  it('types a $ref it cannot resolve, or that points outside the document, as unknown', () => {
    expect(typeOf({ $ref: '#/$defs/Missing' })).toBe('unknown');
    expect(typeOf({ $ref: 'https://example.com/schema.json' })).toBe('unknown');
  });

  it('turns a recursive $ref into a named type instead of expanding it forever', () => {
    const schema = {
      $ref: '#/$defs/Tree',
      $defs: { Tree: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/Tree' } } } } },
    };
    expect(typeOf(schema)).toBe('Tree');
    expect(definitionsOf(schema)).toEqual({ Tree: '{\n  children?: Tree[];\n}' });
  });

  it('names a schema that refers to itself through the root after its own hint', () => {
    const schema = { type: 'object', properties: { parent: { $ref: '#' }, name: { type: 'string' } } };
    expect(typeOf(schema)).toBe('Root');
    expect(definitionsOf(schema)).toEqual({ Root: '{\n  parent?: Root;\n  name?: string;\n}' });
  });

  it('names mutually recursive definitions once each', () => {
    const schema = {
      $ref: '#/$defs/A',
      $defs: {
        A: { type: 'object', properties: { b: { $ref: '#/$defs/B' } } },
        B: { type: 'object', properties: { a: { $ref: '#/$defs/A' } } },
      },
    };
    expect(typeOf(schema)).toBe('A');
    expect(definitionsOf(schema)).toEqual({ A: '{\n  b?: {\n    a?: A;\n  };\n}' });
  });

  it('shares a name between identical recursive definitions of different schemas, and separates different ones', () => {
    const registry = new DefinitionRegistry();
    const tree = (leaf: string) => ({
      $ref: '#/$defs/Tree',
      $defs: {
        Tree: { type: 'object', properties: { leaf: { type: leaf }, kids: { items: { $ref: '#/$defs/Tree' } } } },
      },
    });
    expect(typeOf(tree('string'), registry)).toBe('Tree');
    expect(typeOf({ ...tree('string'), description: 'another tool' }, registry)).toBe('Tree');
    expect(typeOf(tree('number'), registry)).toBe('Tree2');
  });

  it('never names a type after a global the declarations rely on', () => {
    const schema = {
      $ref: '#/$defs/Promise',
      $defs: { Promise: { type: 'object', properties: { next: { $ref: '#/$defs/Promise' } } } },
    };
    expect(typeOf(schema)).toBe('Promise2');
  });

  it('stops at the depth cap with unknown', () => {
    let schema: JsonSchema = { type: 'string' };
    for (let level = 0; level < 30; level += 1) schema = { type: 'object', properties: { next: schema } };
    const text = typeOf(schema);
    expect(text).toContain('next?: unknown;');
    expect(text.split('next?').length - 1).toBe(13);
  });

  it('caps $ref expansions, so a schema that fans out exponentially stays small', () => {
    const defs: Record<string, JsonSchema> = { D6: { type: 'string' } };
    for (let level = 5; level >= 0; level -= 1) {
      const properties = Object.fromEntries(
        Array.from({ length: 8 }, (_, index) => [`p${index}`, { $ref: `#/$defs/D${level + 1}` }]),
      );
      defs[`D${level}`] = { type: 'object', properties };
    }
    const text = typeOf({ $ref: '#/$defs/D0', $defs: defs });
    // Without the cap this is 8^6 = 262,144 expansions and tens of megabytes of text.
    expect(text.length).toBeLessThan(200_000);
    expect(text).toContain('unknown');
  });

  it('writes descriptions and constraints as doc comments, and cannot be closed early by */', () => {
    const schema = {
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date', description: 'Day of it */ alert(1) /*' },
        count: { type: 'integer', minimum: 1, default: 5, deprecated: true },
      },
    };
    expect(typeOf(schema)).toBe(
      '{\n  /** Day of it *\\/ alert(1) /*. Format: date. */\n  when?: string;\n  /** Default: 5. Minimum: 1. Deprecated. Integer. */\n  count?: number;\n}',
    );
  });
});
