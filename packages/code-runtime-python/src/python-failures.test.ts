import type { CodeRunResult } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createPythonCodeRuntime } from './index.js';

// What a failed run tells the model: CPython's own last traceback line, with what it would print
// around it, so the model can fix its program as from a real traceback.
const runtime = createPythonCodeRuntime({ wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

async function failure(program: string, bindings?: Parameters<typeof runtime.run>[0]['bindings']) {
  const result: CodeRunResult = await runtime.run({ program, ...(bindings === undefined ? {} : { bindings }) });
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  expect(result.failure.kind).toBe('exception');
  return result.failure as { message: string; stack?: string; line?: number };
}

describe('python: failures as CPython prints them', () => {
  it('keeps the "Did you mean" CPython offers for a misspelt name or attribute', async () => {
    expect((await failure('total = 3\nprint(f"{totl:.2f}")')).message).toBe(
      "NameError: name 'totl' is not defined. Did you mean: 'total'? (line 2)",
    );
    const attribute = await failure('from collections import Counter\nreturn Counter("hi").most_comon(1)');
    expect(attribute.message).toContain("Did you mean: 'most_common'?");
    expect(attribute.stack).toMatch(/Did you mean: 'most_common'\?$/);
  });

  it('shows the cause of raise ... from, and the exception being handled, as CPython does', async () => {
    const caused = await failure(
      'def parse(x):\n    return int(x)\ntry:\n    parse("abc")\nexcept ValueError as e:\n    raise RuntimeError("bad config") from e',
    );
    expect(caused).toMatchObject({ message: 'RuntimeError: bad config (line 6)', line: 6 });
    expect(caused.stack).toBe(
      [
        'Traceback (most recent call last):',
        '  File "<program>", line 4, in <module>',
        '    parse("abc")',
        '  File "<program>", line 2, in parse',
        '    return int(x)',
        "ValueError: invalid literal for int() with base 10: 'abc'",
        '',
        'The above exception was the direct cause of the following exception:',
        '',
        'Traceback (most recent call last):',
        '  File "<program>", line 6, in <module>',
        '    raise RuntimeError("bad config") from e',
        'RuntimeError: bad config',
      ].join('\n'),
    );
    const handling = await failure('try:\n    {}["k"]\nexcept KeyError:\n    raise TypeError("while handling")');
    expect(handling.stack).toContain(
      "KeyError: 'k'\n\nDuring handling of the above exception, another exception occurred:\n",
    );
    const suppressed = await failure('try:\n    {}["k"]\nexcept KeyError:\n    raise TypeError("alone") from None');
    expect(suppressed.stack).not.toContain('KeyError');
  });

  it('names the exception inside a TaskGroup’s ExceptionGroup, with its line, in the message and the stack', async () => {
    const group = await failure(
      'async def one(i):\n    return await tools.get_user(id=i)\nasync with asyncio.TaskGroup() as tg:\n    tg.create_task(one(404))',
      {
        tools: {
          get_user: async (input) => {
            throw new Error(`user ${(input as { id: number }).id} not found`);
          },
        },
      },
    );
    expect(group.message).toBe(
      'ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception) (line 3); its only exception: HostCallError: user 404 not found (line 2)',
    );
    expect(group.stack).toContain('| HostCallError: user 404 not found');
  });

  it('keeps notes, and describes an exception whose __str__ fails', async () => {
    const noted = await failure('error = ValueError("bad row")\nerror.add_note("row 7 of orders.csv")\nraise error');
    expect(noted.message).toBe('ValueError: bad row (line 3)\nrow 7 of orders.csv');
    expect(noted.stack).toMatch(/ValueError: bad row\nrow 7 of orders.csv$/);
    const unprintable = await failure(
      'class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError("no")\nraise Odd()',
    );
    expect(unprintable.message).toBe('Odd: <exception str() failed> (line 4)');
  });
});
