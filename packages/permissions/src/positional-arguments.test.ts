import type { HostCallContext, JsonValue } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import type { PermissionDecision } from './audit-log.js';
import { deriveBindings } from './derive-bindings.js';
import type { JsonSchema, Tool } from './tool.js';

function tool(name: string, inputSchema: JsonSchema, received: JsonValue[]): Tool {
  return {
    name,
    description: name,
    inputSchema,
    execute: (input) => {
      received.push(input);
      return 'done';
    },
  };
}

const object = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

function setUp() {
  const received: JsonValue[] = [];
  const decisions: PermissionDecision[] = [];
  const tools = [
    tool('search', object({ query: { type: 'string' }, limit: { type: 'integer' } }, ['query']), received),
    tool('add', object({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']), received),
    tool('page', object({ size: { type: 'integer' }, page: { type: 'integer' } }, ['page']), received),
    tool('list', object({ cursor: { type: 'string' }, limit: { type: 'integer' } }), received),
    tool('tag', object({ tags: { type: 'array', items: { type: 'string' } } }, ['tags']), received),
    tool('raw', { type: 'string' }, received),
    tool('note', object({ text: { type: 'string' }, due: { type: ['string', 'null'] } }, ['text']), received),
  ];
  const bindings = deriveBindings(
    tools,
    { default: 'allow', rules: [] },
    { onDecision: (entry) => decisions.push(entry) },
  );
  const call = (name: string, input: JsonValue, positional?: JsonValue[]) => {
    const context: HostCallContext = {
      runId: 'r',
      callId: 'c',
      signal: new AbortController().signal,
      ...(positional === undefined ? {} : { positional }),
    };
    return Promise.resolve(bindings.tools![name]!(input, context));
  };
  return { received, decisions, call };
}

describe('deriveBindings with positional calls', () => {
  it('maps one argument to the one required property, and several to the properties in declared order', async () => {
    const { received, decisions, call } = setUp();
    await call('search', 'oslo', ['oslo']);
    await call('add', [5, 3], [5, 3]);
    await call('search', ['oslo', 3], ['oslo', 3]);
    await call('tag', ['a', 'b'], [['a', 'b']]);
    await call('list', { cursor: 'x' });
    expect(received).toEqual([
      { query: 'oslo' },
      { a: 5, b: 3 },
      { query: 'oslo', limit: 3 },
      { tags: ['a', 'b'] },
      { cursor: 'x' },
    ]);
    expect(decisions.map((entry) => entry.arguments)).toEqual(received);
  });

  it('maps positional arguments beside keywords to the properties the keywords left', async () => {
    const { received, call } = setUp();
    await call('search', { limit: 3 }, ['oslo']);
    await call('add', { a: 1 }, [2]);
    expect(received).toEqual([
      { limit: 3, query: 'oslo' },
      { a: 1, b: 2 },
    ]);
  });

  it('refuses two readings, naming both', async () => {
    const { received, decisions, call } = setUp();
    await expect(call('page', [2, 10], [2, 10])).rejects.toThrow(
      'tools.page with 2 positional arguments has two readings: {"size":2,"page":10} (properties in declared order) or {"page":2,"size":10} (required properties first); pass one object instead, e.g. tools.page({ page: ..., size: ... }).',
    );
    expect(received).toEqual([]);
    expect(decisions).toMatchObject([{ decision: 'deny', deniedBy: 'validation' }]);
  });

  it('refuses a count that has no reading, naming the properties and the object form', async () => {
    const { call } = setUp();
    await expect(call('add', 5, [5])).rejects.toThrow(
      'tools.add got 1 positional argument; its properties are a, b (required: a, b): pass one object instead, e.g. tools.add({ a: ..., b: ... }).',
    );
    await expect(call('list', 'abc', ['abc'])).rejects.toThrow(
      'tools.list got 1 positional argument; its properties are cursor, limit (none required)',
    );
    await expect(call('search', ['a', 1, true], ['a', 1, true])).rejects.toThrow(
      'tools.search got 3 positional arguments',
    );
  });

  it('passes the value through for a schema without properties, as a plain host function gets it', async () => {
    const { received, call } = setUp();
    await call('raw', 'text', ['text']);
    await expect(call('raw', { note: 'x' }, ['text'])).rejects.toThrow(
      'tools.raw takes one JSON value or keyword arguments, not both',
    );
    expect(received).toEqual(['text']);
  });
});

describe('deriveBindings with a null for an optional property', () => {
  it('leaves out a null the schema refuses for an optional property, as Python None and function-calling APIs mean it', async () => {
    const { received, decisions, call } = setUp();
    await call('list', { cursor: null, limit: 3 });
    await call('search', { limit: null }, ['oslo']);
    await call('note', { text: 'x', due: null });
    expect(received).toEqual([{ limit: 3 }, { query: 'oslo' }, { text: 'x', due: null }]);
    expect(decisions.map((entry) => entry.arguments)).toEqual(received);
  });

  it('keeps a null for a required property, or beside another problem, so the error names it', async () => {
    const { received, call } = setUp();
    await expect(call('search', { query: null })).rejects.toThrow('$.query must be string');
    await expect(call('list', { cursor: null, limit: 'ten' })).rejects.toThrow('$.cursor must be string');
    expect(received).toEqual([]);
  });
});

describe('deriveBindings with a tool that parses its own input', () => {
  function parsingSetUp(parseInput: Tool['parseInput']) {
    const received: unknown[] = [];
    const decisions: PermissionDecision[] = [];
    let asked = 0;
    const tools: Tool[] = [
      {
        name: 'read',
        description: 'read',
        inputSchema: object({ path: { type: 'string' }, limit: { type: 'integer' } }, ['path']),
        parseInput,
        execute: (input) => {
          received.push(input);
          return 'done';
        },
      },
    ];
    const bindings = deriveBindings(
      tools,
      { default: 'ask', rules: [] },
      {
        onDecision: (entry) => decisions.push(entry),
        approve: () => {
          asked += 1;
          return { decision: 'allow' };
        },
      },
    );
    const call = (input: JsonValue) =>
      Promise.resolve(bindings.tools!.read!(input, { runId: 'r', callId: 'c', signal: new AbortController().signal }));
    return { received, decisions, call, asked: () => asked };
  }

  it('hands execute the parsed value, with defaults filled, after approval', async () => {
    const { received, decisions, call, asked } = parsingSetUp((input) => ({
      ok: true,
      value: { limit: 10, ...(input as object) },
    }));
    await call({ path: '/etc/motd' });
    expect(received).toEqual([{ limit: 10, path: '/etc/motd' }]);
    expect(asked()).toBe(1);
    expect(decisions).toMatchObject([{ decision: 'allow', arguments: { path: '/etc/motd' } }]);
  });

  it('refuses what it refuses as a validation denial, before approval is asked', async () => {
    const { received, decisions, call, asked } = parsingSetUp(async () => ({
      ok: false,
      problems: ['$.path: must be an absolute path'],
    }));
    await expect(call({ path: 'relative' })).rejects.toThrow(
      'Invalid input for tools.read: $.path: must be an absolute path. Fix the argument and call it again.',
    );
    expect(received).toEqual([]);
    expect(asked()).toBe(0);
    expect(decisions).toMatchObject([{ decision: 'deny', deniedBy: 'validation' }]);
  });

  it('takes a parse that throws or answers nonsense as a refusal, never a crash', async () => {
    const throwing = parsingSetUp(() => {
      throw new Error('parser broke');
    });
    await expect(throwing.call({ path: '/x' })).rejects.toThrow('Invalid input for tools.read: parser broke.');
    const nonsense = parsingSetUp(() => 42 as never);
    await expect(nonsense.call({ path: '/x' })).rejects.toThrow('Invalid input for tools.read: the tool refused it.');
    expect([...throwing.received, ...nonsense.received]).toEqual([]);
  });
});
