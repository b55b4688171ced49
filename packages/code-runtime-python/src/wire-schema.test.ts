import { describe, expect, it } from 'vitest';
import { parseChildFrame, parseHelloFrame, parseZygoteReport } from './wire-frames.js';
import { wire, wireProblem } from './wire-schema.js';

function problemOf(parsed: { frame: unknown } | { problem: string }): string | undefined {
  return 'problem' in parsed ? parsed.problem : undefined;
}

describe('wireProblem', () => {
  it('names the path and the reason of the first mismatch', () => {
    const schema = wire.object({
      name: wire.string(4, /^[a-z]+$/),
      tags: wire.array(wire.union(wire.integer(0, 9), wire.null), 3),
      kind: wire.literal('a', 'b'),
      size: wire.optional(wire.number(1)),
      nested: wire.optional(wire.object({ deep: wire.json })),
    });
    const base = { name: 'ok', tags: [1, null], kind: 'a' };
    const cases: Array<[unknown, string | undefined]> = [
      [base, undefined],
      [{ ...base, size: 2, nested: { deep: [[1]] } }, undefined],
      [[], '$ is not an object'],
      [{ ...base, extra: 1 }, '$ has an unknown field "extra"'],
      [{ tags: [], kind: 'a' }, '$ lacks the field "name"'],
      [{ ...base, name: 5 }, '$.name is not a string'],
      [{ ...base, name: 'toolong' }, '$.name is too long'],
      [{ ...base, name: 'A1' }, '$.name is malformed'],
      [{ ...base, tags: 'x' }, '$.tags is not an array'],
      [{ ...base, tags: [1, 2, 3, 4] }, '$.tags has more than 3 items'],
      [{ ...base, tags: [1, 'x'] }, '$.tags[1] is not an integer from 0 to 9'],
      [{ ...base, kind: 'c' }, '$.kind is not one of a, b'],
      [{ ...base, size: 0 }, '$.size is not a number of at least 1'],
      [{ ...base, nested: { deep: [[[[1]]]] } }, '$.nested.deep is nested deeper than 3 levels'],
      [{ ...base, nested: { deep: 1, other: 2 } }, '$.nested has an unknown field "other"'],
    ];
    for (const [value, expected] of cases) expect(wireProblem(value, schema, 3), JSON.stringify(value)).toBe(expected);
    expect(wireProblem(1, wire.null, 3)).toBe('$ is not null');
  });

  it('gives the same messages for refused frames as it always has', () => {
    expect(problemOf(parseChildFrame({ v: 1, type: 'log', stream: 'stdin', text: 'x' }))).toBe(
      'malformed log frame: $.stream is not one of stdout, stderr',
    );
    expect(
      problemOf(parseChildFrame({ v: 1, type: 'call', id: 1, namespace: 'not valid', name: 'x', input: null })),
    ).toBe('malformed call frame: $.namespace is malformed');
    expect(
      problemOf(
        parseChildFrame({ v: 1, type: 'started', pid: 4, layers: ['a', 'B'], addressSpaceBytes: null, cpuSeconds: 1 }),
      ),
    ).toBe('malformed started frame: $.layers[1] is malformed');
    expect(
      problemOf(parseChildFrame({ v: 1, type: 'done', ok: false, error: { kind: 'timeout', message: 'x' } })),
    ).toBe('malformed done frame: $ has an unknown field "error"');
    expect(problemOf(parseZygoteReport({ v: 1, type: 'exit', run: 3, code: 'none' }))).toBe(
      'malformed exit frame: $.code is not an integer from 0 to 9007199254740991',
    );
    expect(problemOf(parseHelloFrame({ v: 1, type: 'hello', token: 'short', stream: 'control' }))).toBe(
      'malformed hello frame: $.token is malformed',
    );
  });
});
