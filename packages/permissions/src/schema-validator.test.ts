import { describe, expect, it } from 'vitest';
import { compileSchema } from './schema-validator.js';

const issue = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1 },
    labels: { type: 'array', items: { type: 'string' } },
    assignee: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] },
    'due date': { type: 'string', format: 'date' },
  },
  required: ['title'],
  additionalProperties: false,
} as const;

describe('compileSchema', () => {
  it('accepts valid input', () => {
    expect(compileSchema(issue)({ title: 'Bug', labels: ['a'], assignee: { login: 'x' } })).toBeUndefined();
  });

  it('names the JSON path of every problem', () => {
    const problems = compileSchema(issue)({ labels: ['ok', 7], assignee: {}, extra: true, 'due date': 'soon' });
    expect(problems).toEqual([
      '$.title is required',
      '$.extra is not allowed',
      '$.labels[1] must be string',
      '$.assignee.login is required',
      '$["due date"] must match format "date"',
    ]);
  });

  it('caps the list of problems', () => {
    const wide = { type: 'array', items: { type: 'integer' } };
    const problems = compileSchema(wide)(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(problems).toHaveLength(6);
    expect(problems?.at(-1)).toBe('and 2 more');
  });

  it('describes enum and const failures with the allowed values', () => {
    const schema = { type: 'object', properties: { mode: { enum: ['r', 'w'] }, v: { const: 1 } } };
    expect(compileSchema(schema)({ mode: 'x', v: 2 })).toEqual(['$.mode must be one of "r", "w"', '$.v must be 1']);
  });

  it('validates a null input against the schema like any other value', () => {
    expect(compileSchema({ type: 'object' })(null)).toEqual(['$ must be object']);
  });

  it('reads draft-07 schemas by their $schema', () => {
    const tuple = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }] };
    expect(compileSchema(tuple)([1])).toEqual(['$[0] must be string']);
  });

  it('never changes the input, even where the schema has defaults', () => {
    const schema = { type: 'object', properties: { path: { type: 'string', default: '/etc/passwd' } } };
    const input = {};
    expect(compileSchema(schema)(input)).toBeUndefined();
    expect(input).toEqual({});
  });

  it('throws for an invalid schema or an unsupported dialect', () => {
    expect(() => compileSchema({ type: 'nonsense' })).toThrow(/schema is invalid/);
    expect(() => compileSchema({ $schema: 'http://json-schema.org/draft-04/schema#' })).toThrow(/is not supported/);
  });

  it('compiles recursive schemas and repeated $ids', () => {
    const tree = {
      $id: 'https://example.com/tree',
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['name'],
    };
    expect(compileSchema(tree)({ name: 'a', children: [{ name: 'b', children: [{}] }] })).toEqual([
      '$.children[0].children[0].name is required',
    ]);
    expect(compileSchema({ ...tree, required: [] })({ children: [{}] })).toBeUndefined();
  });
});
