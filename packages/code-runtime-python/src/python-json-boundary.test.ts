import type { HostFunction, JsonValue } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { echo, failureOf, python, successValue, testRuntime } from './__fixtures__/test-runtime.js';

// The Python side of the JSON boundary (issue 27): what Python's JSON encoders accept crosses as they
// write it, in results and in host-call arguments alike; functions, cycles, bytes and integers beyond
// 2**53 are still refused with the path and the fix. The result is read after what the program armed
// is stopped (python-output-order.test.ts) and before it is sent.

const runtime = testRuntime({ valueBytes: 4096, hostCallBytes: 4096 });
afterAll(async () => {
  await runtime.dispose();
});

const fail: HostFunction = () => {
  throw new Error('no station near Gotham');
};
const bindings = { tools: { echo, fail } };

async function returnedBy(...lines: string[]): Promise<JsonValue | undefined> {
  return successValue(await runtime.run({ program: python(...lines), bindings }));
}

describe('values Python encoders accept', () => {
  it('cross as they write them: sets sorted, paths and Decimals as text, exceptions as {error}', async () => {
    expect(
      await returnedBy(
        'import decimal, pathlib',
        'return {',
        '    "set": {3, 1, 2},',
        '    "frozen": frozenset({"b", "a"}),',
        '    "path": pathlib.Path("/data") / "report.csv",',
        '    "pure": pathlib.PureWindowsPath("C:/Users/ana"),',
        '    "money": decimal.Decimal("12.50"),',
        '    "errors": [ValueError("bad row 3"), KeyError("city"), RuntimeError()],',
        '}',
      ),
    ).toEqual({
      set: [1, 2, 3],
      frozen: ['a', 'b'],
      path: '/data/report.csv',
      pure: 'C:\\Users\\ana',
      money: '12.50',
      errors: [{ error: 'ValueError: bad row 3' }, { error: "KeyError: 'city'" }, { error: 'RuntimeError' }],
    });
  });

  it('keep a set whose items do not compare in its own order', async () => {
    const value = await returnedBy('return {1, "a", None}');
    expect(value).toHaveLength(3);
    expect(value).toEqual(expect.arrayContaining([1, 'a', null]));
  });

  it('carry the exceptions asyncio.gather(return_exceptions=True) leaves in a list', async () => {
    expect(
      await returnedBy(
        'import asyncio',
        'return await asyncio.gather(tools.echo("Oslo"), tools.fail("Gotham"), return_exceptions=True)',
      ),
    ).toEqual([{ echoed: 'Oslo' }, { error: 'HostCallError: no station near Gotham' }]);
  });

  it('read generators, map, filter, zip, enumerate, range and dict views into arrays, once', async () => {
    expect(
      await returnedBy(
        'counts = {"a": 1, "b": 2}',
        'squares = (n * n for n in range(4))',
        'return {',
        '    "squares": squares, "again": squares,',
        '    "map": map(str, [1, 2]), "filter": filter(None, [0, 1, 2]), "zip": zip("ab", [1, 2]),',
        '    "enumerate": enumerate("xy"), "reversed": reversed([1, 2]), "range": range(3),',
        '    "keys": counts.keys(), "values": counts.values(), "items": counts.items(),',
        '}',
      ),
    ).toEqual({
      squares: [0, 1, 4, 9],
      again: [0, 1, 4, 9],
      map: ['1', '2'],
      filter: [1, 2],
      zip: [
        ['a', 1],
        ['b', 2],
      ],
      enumerate: [
        [0, 'x'],
        [1, 'y'],
      ],
      reversed: [2, 1],
      range: [0, 1, 2],
      keys: ['a', 'b'],
      values: [1, 2],
      items: [
        ['a', 1],
        ['b', 2],
      ],
    });
  });

  it('cross the same way in host-call arguments', async () => {
    const seen: JsonValue[] = [];
    const record: HostFunction = (input) => {
      seen.push(input);
      return null;
    };
    const program = python(
      'import decimal, pathlib',
      'await tools.record(tags={"b", "a"}, path=pathlib.Path("out/x.txt"), price=decimal.Decimal("0.10"),',
      '                   ids=(i for i in range(3)), error=ValueError("late"))',
      'return "sent"',
    );
    expect(successValue(await runtime.run({ program, bindings: { tools: { record } } }))).toBe('sent');
    expect(seen).toEqual([
      { tags: ['a', 'b'], path: 'out/x.txt', price: '0.10', ids: [0, 1, 2], error: { error: 'ValueError: late' } },
    ]);
  });

  it('read a generator by running its code, before the result is sent: what it prints is logged', async () => {
    const result = await runtime.run({
      program: python(
        'def rows():',
        '    for n in range(2):',
        '        print("row", n)',
        '        yield n',
        'return rows()',
      ),
      bindings,
    });
    expect(successValue(result)).toEqual([0, 1]);
    expect(result.logs.map((entry) => entry.text)).toEqual(['row 0', 'row 1']);
  });
});

describe('reading a value', () => {
  it('stops again what its code arms, before the result is sent', { timeout: 60_000 }, async () => {
    const program = python(
      'import signal',
      'AFTER = {"never_awaited", "_value_outcome", "_finish", "encode_frame", "_shut_down", "send_final", "_send", "_write"}',
      'def late(number, frame):',
      '    if frame is not None and frame.f_code.co_name in AFTER:',
      '        raise RuntimeError(f"a handler armed while the value was read ran in {frame.f_code.co_name}")',
      'def rows():',
      '    signal.signal(signal.SIGALRM, late)',
      '    signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)',
      '    yield from range(20000)',
      'return rows()',
    );
    const roomy = testRuntime();
    const failures: string[] = [];
    try {
      for (let attempt = 0; attempt < 10; attempt += 1) {
        const result = await roomy.run({ program });
        if (!result.ok) failures.push(`${result.failure.kind}: ${result.failure.message}`);
      }
    } finally {
      await roomy.dispose();
    }
    expect(failures).toEqual([]);
  });
});

describe('values that still cannot cross', () => {
  it('an endless generator stops at the value budget', async () => {
    const failure = failureOf(
      await runtime.run({ program: python('import itertools', 'return (n for n in itertools.count())'), bindings }),
      'output-limit',
    );
    expect(failure.message).toContain('bytes of JSON');
  });

  it('a large set is refused at the budget without being copied', async () => {
    const failure = failureOf(await runtime.run({ program: 'return set(range(10 ** 6))', bindings }), 'output-limit');
    expect(failure.message).toContain('2000001 or more bytes of JSON');
  });

  it('a generator that raises is named, with the error, in results and in arguments', async () => {
    const lines = ['def rows():', '    yield 1', '    raise ValueError("row 2 is broken")'];
    const result = failureOf(
      await runtime.run({ program: python(...lines, 'return {"rows": rows()}'), bindings }),
      'invalid-output',
    );
    expect(result.message).toContain(
      '$["rows"] is an iterator that raised ValueError: row 2 is broken while it was read',
    );
    const argument = failureOf(
      await runtime.run({ program: python(...lines, 'await tools.echo(rows=rows())'), bindings }),
      'exception',
    );
    expect(argument).toMatchObject({ name: 'HostCallError' });
    expect(argument.message).toContain('$["rows"] is an iterator that raised ValueError');
  });

  it('functions, cycles, bytes and big integers keep their refusals', async () => {
    const cases: Array<[string, string]> = [
      ['return {"f": lambda: 1}', '$["f"] is a function, which JSON cannot carry'],
      ['rows = []\nrows.append(rows)\nreturn rows', '$[0] is a cycle back to $'],
      ['rows = []\nrows.append(x for x in [rows])\nreturn rows', '$[0][0] is a cycle back to $'],
      ['return {"raw": b"x"}', '$["raw"] is a bytes'],
      ['return {2 ** 60}', '$[0] is an integer of 61 bits'],
    ];
    for (const [program, message] of cases) {
      expect(failureOf(await runtime.run({ program, bindings }), 'invalid-output').message).toContain(message);
    }
  });
});
