import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { echo, failureOf, python, successValue, testRuntime } from './__fixtures__/test-runtime.js';
import { requiredAddressSpace } from './python-settings.js';

const runtime = testRuntime();
afterAll(async () => {
  await runtime.dispose();
});

const text: HostFunction = () => '{"items": [1, 2, 3]}';
const bindings = { tools: { echo, text } };

async function valueFrom(...lines: string[]) {
  return successValue(await runtime.run({ program: python(...lines), bindings }));
}

async function failureFor(kind: string, ...lines: string[]) {
  return failureOf(await runtime.run({ program: python(...lines), bindings }), kind);
}

describe('top-level names', () => {
  it('are module globals: global, globals() and functions that read them', async () => {
    expect(
      await valueFrom(
        'count = 0',
        'def bump():',
        '    global count',
        '    count += 1',
        'bump()',
        'bump()',
        'return [count, globals()["count"], "bump" in globals(), __name__]',
      ),
    ).toEqual([2, 2, true, '__main__']);
  });

  it('are globals for classes and comprehensions too, and the module is __main__', async () => {
    expect(
      await valueFrom(
        'from dataclasses import dataclass, asdict',
        'import __main__',
        'rate = 2',
        '@dataclass',
        'class Line:',
        '    amount: int',
        '    def total(self):',
        '        return self.amount * rate',
        'lines = [Line(n) for n in range(3)]',
        'import sys',
        'return [sum(line.total() for line in lines), asdict(lines[1]), __main__.rate, sys.argv]',
      ),
    ).toEqual([6, { amount: 1 }, 2, ['<program>']]);
  });

  it('keep top-level await and return, even inside loops, match and try', async () => {
    expect(
      await valueFrom(
        'reply = await tools.echo(step=1)',
        'for index in range(10):',
        '    match index:',
        '        case 3:',
        '            try:',
        '                return [reply, index]',
        '            finally:',
        '                print("leaving")',
        'return "not reached"',
      ),
    ).toEqual([{ echoed: { step: 1 } }, 3]);
  });

  it('let a top-level return through a bare except or except BaseException around it', async () => {
    expect(await valueFrom('try:', '    return "returned"', 'except:', '    pass', 'return "swallowed"')).toBe(
      'returned',
    );
    expect(
      await valueFrom('try:', '    return "returned"', 'except BaseException:', '    pass', 'return "swallowed"'),
    ).toBe('returned');
    expect(await valueFrom('try:', '    1 / 0', 'except:', '    return "caught"')).toBe('caught');
  });

  it('keep the line of a return in an except* block a syntax error, as CPython does', async () => {
    const failure = await failureFor(
      'exception',
      'try:',
      '    raise ExceptionGroup("g", [ValueError(1)])',
      'except* ValueError:',
      '    return 1',
    );
    expect(failure).toMatchObject({ name: 'SyntaxError', line: 4 });
  });
});

describe('the final expression', () => {
  it('is the value when no return ends the program', async () => {
    expect(await valueFrom('total = sum([1, 2, 3])', 'total * 2')).toBe(12);
    expect(await valueFrom('items = await tools.echo([1, 2])', 'items')).toEqual({ echoed: [1, 2] });
  });

  it('is the value after an early return that did not happen', async () => {
    expect(await valueFrom('items = [1]', 'if not items:', '    return []', 'len(items)')).toBe(1);
  });

  it('gives no value when it is None, such as a final print', async () => {
    const result = await runtime.run({ program: python('answer = 42', 'print(answer)') });
    expect(result).toMatchObject({ ok: true, logs: [{ text: '42' }] });
    expect(result.ok && 'value' in result ? result.value : 'absent').toBe('absent');
    expect(await valueFrom('return None')).toBeNull();
  });

  it('is the last expression of a final __main__ block', async () => {
    expect(await valueFrom('def main():', '    return "ran"', 'if __name__ == "__main__":', '    main()')).toBe('ran');
  });
});

describe('asyncio.run', () => {
  it('runs main() in the program loop, its value the result, at the top level or under __main__', async () => {
    const main = ['import asyncio', 'async def main():', '    return await tools.echo(city="Oslo")'];
    const expected = { echoed: { city: 'Oslo' } };
    expect(await valueFrom(...main, 'asyncio.run(main())')).toEqual(expected);
    expect(await valueFrom(...main, 'if __name__ == "__main__":', '    asyncio.run(main())')).toEqual(expected);
    expect(await valueFrom(...main, 'result = asyncio.run(main())', 'return result')).toEqual(expected);
  });

  it('runs in the program loop when a program with top-level await also calls it', async () => {
    expect(
      await valueFrom(
        'first = await tools.echo(1)',
        'async def main():',
        '    return [first, await tools.echo(2)]',
        'asyncio.run(main())',
      ),
    ).toEqual([{ echoed: 1 }, { echoed: 2 }]);
  });

  it('runs from a plain function of a program that does not await at the top level', async () => {
    expect(
      await valueFrom(
        'import asyncio',
        'async def fetch(n):',
        '    return (await tools.echo(n))["echoed"]',
        'def main():',
        '    return asyncio.run(fetch(3)) + 1',
        'main()',
      ),
    ).toBe(4);
  });

  it('treats loop.run_until_complete(main()) at the top level as await main()', async () => {
    expect(
      await valueFrom(
        'import asyncio',
        'async def main():',
        '    return await tools.echo(5)',
        'loop = asyncio.get_event_loop()',
        'result = loop.run_until_complete(main())',
        'result["echoed"]',
      ),
    ).toBe(5);
  });

  it('refuses a new event loop, saying what to write instead', async () => {
    for (const making of [
      'loop = asyncio.new_event_loop()',
      'with asyncio.Runner() as runner:\n    runner.run(main())',
    ]) {
      const failure = await failureFor('exception', 'import asyncio', 'async def main():', '    return 1', making);
      expect(failure).toMatchObject({ name: 'RuntimeError', line: 4 });
      expect(failure.message).toContain('write `await main()`');
    }
  });

  it('inside a running loop says to await instead', async () => {
    const failure = await failureFor(
      'exception',
      'import asyncio',
      'async def main():',
      '    return 1',
      'def helper():',
      '    return asyncio.run(main())',
      'await asyncio.sleep(0)',
      'helper()',
    );
    expect(failure).toMatchObject({ name: 'RuntimeError', line: 5 });
    expect(failure.message).toContain('await main()');
  });
});

describe('a host call without await', () => {
  it('where its value is used is made at once, as in smolagents and Monty', async () => {
    expect(await valueFrom('return {"reply": tools.echo(1)}')).toEqual({ reply: { echoed: 1 } });
    expect(await valueFrom('reply = tools.echo(1)', 'reply["echoed"]')).toBe(1);
    expect(await valueFrom('import json', 'json.dumps({"reply": tools.echo(1)})')).toBe('{"reply": {"echoed": 1}}');
    expect(await valueFrom('tools.echo(1).get("echoed")')).toBe(1);
  });

  it('reached another way than its name, used as a value, names the call and says to await it', async () => {
    const indexed = await failureFor(
      'exception',
      'call = getattr(tools, "echo")',
      'reply = call(1)',
      'reply["echoed"]',
    );
    expect(indexed).toMatchObject({ name: 'TypeError', line: 3 });
    expect(indexed.message).toContain('await tools.echo(...)');
    const returned = await failureFor('invalid-output', 'call = getattr(tools, "echo")', 'return {"reply": call(1)}');
    expect(returned.message).toContain('$["reply"] is tools.echo(...), which was never awaited');
  });

  it('never awaited is reported with its line, and the call is not made', async () => {
    const result = await runtime.run({
      program: python('pending = [tools.echo(1)]', 'if False:', '    await asyncio.gather(*pending)', 'return 1'),
      bindings,
    });
    const failure = failureOf(result, 'exception');
    expect(failure).toMatchObject({ name: 'RuntimeError', line: 1 });
    expect(failure.message).toContain('tools.echo(...) on line 1 was never awaited');
    expect(result.calls).toEqual([]);
  });

  it('a coroutine of the program dropped unawaited is reported with its line: it never ran', async () => {
    const result = await runtime.run({
      program: python('async def main():', '    print("ran")', 'main()', 'return "done"'),
    });
    const failure = failureOf(result, 'exception');
    expect(failure).toMatchObject({ name: 'RuntimeError', line: 3 });
    expect(failure.message).toContain('main(...) on line 3 was never awaited, so it never ran');
    expect(result.logs).toEqual([]);
  });

  it('is awaited when it is the value itself, returned or final, as a returned promise is in JavaScript', async () => {
    expect(await valueFrom('return tools.echo(1)')).toEqual({ echoed: 1 });
    expect(await valueFrom('tools.echo(2)')).toEqual({ echoed: 2 });
    expect(await valueFrom('async def main():', '    return (await tools.echo(3))["echoed"]', 'main()')).toBe(3);
    const raised = await failureFor('exception', 'async def main():', '    raise ValueError("late")', 'main()');
    expect(raised).toMatchObject({ name: 'ValueError', line: 2 });
    const nested = await failureFor('invalid-output', 'async def main():', '    return 1', '[main()]');
    expect(nested.message).toContain('await main(...)');
  });

  it('works as a coroutine: gathered, made a task, awaited later', async () => {
    expect(
      await valueFrom(
        'pending = tools.echo(1)',
        'task = asyncio.create_task(tools.echo(2))',
        'both = await asyncio.gather(pending, task, tools.echo(3))',
        '[reply["echoed"] for reply in both]',
      ),
    ).toEqual([1, 2, 3]);
  });
});

describe('values as json.dumps users expect', () => {
  it('carry tuples as lists, datetimes as ISO strings and int keys as strings, both ways', async () => {
    expect(
      await valueFrom(
        'import datetime',
        'moment = datetime.datetime(2026, 11, 30, 21, 5, 7, tzinfo=datetime.timezone.utc)',
        'sent = await tools.echo(pair=(1, 2), day=datetime.date(2026, 11, 30))',
        'return {"pair": (1, "a"), "at": moment, "time": datetime.time(9, 30), "years": {2025: 1}, "sent": sent}',
      ),
    ).toEqual({
      pair: [1, 'a'],
      at: '2026-11-30T21:05:07+00:00',
      time: '09:30:00',
      years: { '2025': 1 },
      sent: { echoed: { pair: [1, 2], day: '2026-11-30' } },
    });
  });

  it('are checked in memory close to their JSON: a 1 MiB list of ints fits the smallest memory the gate accepts', {
    timeout: 30_000,
  }, async () => {
    // The interpreter's baseline + the multiple × the 1 MiB budgets. The walker used to build a tuple and a path
    // string per element, and this run ended `memory` (python-value-edges.test.ts has the worse shapes).
    const small = testRuntime({
      memoryBytes: requiredAddressSpace({ valueBytes: 1 << 20, hostCallBytes: 1 << 20, logBytes: 1 << 16 }),
    });
    try {
      const result = await small.run({ program: 'return [1] * 524287' });
      expect((successValue(result) as number[]).length).toBe(524287);
    } finally {
      await small.dispose();
    }
  });

  it('carry str subclasses (a str-mixin Enum, StrEnum) as their text, as values, keys and arguments', async () => {
    expect(
      await valueFrom(
        'from enum import Enum, StrEnum',
        'class Priority(str, Enum):',
        '    HIGH = "high"',
        'class State(StrEnum):',
        '    OPEN = "open"',
        'reply = await tools.echo({"state": State.OPEN})',
        'return {"priority": Priority.HIGH, State.OPEN: 1, "echoed": reply}',
      ),
    ).toEqual({ priority: 'high', open: 1, echoed: { echoed: { state: 'open' } } });
  });

  it('refuse a tuple key, with the path and the fix', async () => {
    const failure = await failureFor('invalid-output', 'return {"totals": {("Oslo", 2026): 3}}');
    expect(failure.message).toContain(`$["totals"] has the key ('Oslo', 2026), a tuple`);
    expect(failure.message).toContain('",".join(map(str, key))');
  });

  it('refuse what JSON cannot carry, with the path and the fix', async () => {
    const cases: Array<[string, string]> = [
      ['return {"check": len}', '$["check"] is a builtin_function_or_method, which JSON cannot carry'],
      ['return [b"raw"]', '$[0] is a bytes, which JSON cannot carry: decode it'],
      ['return {"ratio": float("inf")}', '$["ratio"] is inf'],
      ['return {1: "a", "1": "b"}', '$ has both the key 1 and the key "1"'],
      ['return [2 ** 80]', '$[0] is an integer of 81 bits (25 digits)'],
      [
        'import sys\nsys.set_int_max_str_digits(0)\nreturn {7 ** 6000: 1}',
        '$ has an integer key of 16845 bits (5071 digits), beyond ±(2**53 - 1)',
      ],
    ];
    for (const [program, message] of cases) {
      expect((await failureFor('invalid-output', program)).message).toContain(message);
    }
    const argument = await failureFor('exception', 'await tools.echo(tags=b"a")');
    expect(argument).toMatchObject({ name: 'HostCallError' });
    expect(argument.message).toContain('$["tags"] is a bytes');
  });
});

describe('errors', () => {
  it('point at the model own lines, in the program and in its functions', async () => {
    const failure = await failureFor(
      'exception',
      'import asyncio',
      '',
      'async def main():',
      '    data = await tools.echo(1)',
      '    return data["missing"]',
      '',
      'asyncio.run(main())',
    );
    expect(failure).toMatchObject({ name: 'KeyError', line: 5 });
    if (failure.kind !== 'exception') throw new Error('unreachable');
    expect(failure.stack).toContain('File "<program>", line 7, in <module>');
    expect(failure.stack).toContain('File "<program>", line 5, in main');
    // Only the program's frames: none of the runner's, nor asyncio's.
    expect(failure.stack).not.toMatch(/sluice_|asyncio\/|File "\//);
  });
});
