import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { echo, failureOf, python, successValue, testRuntime } from './__fixtures__/test-runtime.js';

// What programs written for other code-mode systems take for granted: smolagents' and Monty's
// `final_answer`, and the modules Anthropic's programmatic tool calling lets a program use unimported.

const runtime = testRuntime();
afterAll(async () => {
  await runtime.dispose();
});

const bindings = { tools: { echo } };

// Pinned: the modules a program may use without importing them (PROGRAM_MODULES in sluice_runner.py).
const programModules = [
  'asyncio',
  'collections',
  'datetime',
  'functools',
  'itertools',
  'json',
  'math',
  're',
  'statistics',
];

describe('final_answer', () => {
  it('ends the run with its value; nothing after it runs', async () => {
    const result = await runtime.run({
      program: python('reply = tools.echo("Oslo")', 'final_answer(reply["echoed"])', 'print("after")', 'tools.echo(2)'),
      bindings,
    });
    expect(successValue(result)).toBe('Oslo');
    expect(result.logs).toEqual([]);
    expect(result.calls).toHaveLength(1);
  });

  it('ends it from inside a function, a loop, a gathered task and a TaskGroup', async () => {
    const cases = [
      python(
        'def solve():',
        '    for n in range(10):',
        '        if n * n > 20:',
        '            final_answer(n)',
        'solve()',
        'return -1',
      ),
      python(
        'import asyncio',
        'async def worker(n):',
        '    await asyncio.sleep(0)',
        '    if n == 2:',
        '        final_answer(f"worker {n}")',
        '    return n',
        'await asyncio.gather(*(worker(n) for n in range(4)))',
        'return "gathered"',
      ),
      python(
        'import asyncio',
        'async def answer():',
        '    final_answer({"from": "task group"})',
        'async with asyncio.TaskGroup() as group:',
        '    group.create_task(answer())',
        'return None',
      ),
    ];
    const values = [];
    for (const program of cases) values.push(successValue(await runtime.run({ program, bindings })));
    expect(values).toEqual([5, 'worker 2', { from: 'task group' }]);
  });

  it('passes through a bare except and except BaseException, and finally blocks run', async () => {
    const program = python(
      'def careful():',
      '    try:',
      '        final_answer("kept")',
      '    except:',
      '        print("swallowed")',
      '    return "lost"',
      'try:',
      '    careful()',
      'except BaseException:',
      '    print("swallowed too")',
      'finally:',
      '    print("finally")',
      'return "lost"',
    );
    const result = await runtime.run({ program, bindings });
    expect(successValue(result)).toBe('kept');
    expect(result.logs.map((entry) => entry.text)).toEqual(['finally']);
  });

  it('keeps the first answer when contextlib.suppress(BaseException) swallows it and the program goes on', async () => {
    const program = python(
      'import contextlib',
      'with contextlib.suppress(BaseException):',
      '    final_answer(1)',
      'return 2',
    );
    expect(successValue(await runtime.run({ program, bindings }))).toBe(1);
  });

  it('takes its value by keyword, gives null for None, and refuses a value JSON cannot carry', async () => {
    expect(successValue(await runtime.run({ program: 'final_answer(answer=[1, 2])', bindings }))).toEqual([1, 2]);
    const none = await runtime.run({ program: 'final_answer(None)', bindings });
    expect(none).toMatchObject({ ok: true, value: null });
    const bytes = failureOf(await runtime.run({ program: 'final_answer(b"raw")', bindings }), 'invalid-output');
    expect(bytes.message).toContain('is a bytes');
  });

  it('is the granted tool when the host grants one of that name', async () => {
    const finalAnswer: HostFunction = (input) => ({ recorded: input });
    const result = await runtime.run({
      program: python('reply = final_answer("done")', 'return reply'),
      bindings: { tools: { final_answer: finalAnswer } },
    });
    expect(successValue(result)).toEqual({ recorded: 'done' });
    expect(result.calls.map((call) => call.name)).toEqual(['final_answer']);
  });
});

describe('modules a program may use without importing them', () => {
  it('are exactly these, each the module import gives', async () => {
    const program = python(
      'import sys',
      `names = ${JSON.stringify(programModules)}`,
      'bound = sorted(name for name, value in globals().items() if type(value) is type(sys) and not name.startswith("_") and name != "sys")',
      'return [bound, all(globals()[name] is sys.modules[name] for name in names)]',
    );
    expect(successValue(await runtime.run({ program, bindings }))).toEqual([programModules, true]);
  });

  it('serve Anthropic programmatic-tool-calling snippets that do not import them', async () => {
    const text: HostFunction = () =>
      '{"items": [{"price": 2.5, "day": "2026-11-30"}, {"price": 4, "day": "2026-12-01"}]}';
    const program = python(
      'data = json.loads(await tools.text())',
      'prices = [item["price"] for item in data["items"]]',
      'days = [datetime.date.fromisoformat(item["day"]) for item in data["items"]]',
      'return {',
      '    "mean": statistics.mean(prices),',
      '    "ceil": math.ceil(sum(prices)),',
      '    "days": (days[1] - days[0]).days,',
      '    "digits": re.findall(r"\\d+", "a1b22"),',
      '    "counts": collections.Counter("aab").most_common(1),',
      '    "pairs": list(itertools.combinations([1, 2, 3], 2))[:2],',
      '    "product": functools.reduce(lambda a, b: a * b, [2, 3, 4]),',
      '}',
    );
    expect(successValue(await runtime.run({ program, bindings: { tools: { text } } }))).toEqual({
      mean: 3.25,
      ceil: 7,
      days: 1,
      digits: ['1', '22'],
      counts: [['a', 2]],
      pairs: [
        [1, 2],
        [1, 3],
      ],
      product: 24,
    });
  });

  it('give way to a namespace or tool of the same name, and bring nothing a program could not import', async () => {
    const result = await runtime.run({
      program: python(
        'reply = await json.dumps(1)',
        'missing = []',
        'for name in ["os", "sys", "subprocess", "socket", "ctypes", "builtins", "importlib"]:',
        '    try:',
        '        eval(name)',
        '    except NameError:',
        '        missing.append(name)',
        'return [reply, missing]',
      ),
      bindings: { json: { dumps: echo } },
    });
    expect(successValue(result)).toEqual([
      { echoed: 1 },
      ['os', 'sys', 'subprocess', 'socket', 'ctypes', 'builtins', 'importlib'],
    ]);
  });
});
