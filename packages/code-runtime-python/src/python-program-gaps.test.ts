import type { CodeRunResult } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createPythonCodeRuntime } from './index.js';

const runtime = createPythonCodeRuntime({ wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

function message(result: CodeRunResult): string {
  return result.ok ? '' : result.failure.message;
}

describe('python: more shapes models write', () => {
  it('runs a program inside a markdown fence, keeping its line numbers', async () => {
    expect(await runtime.run({ program: '```python\nx = 2\nx * 21\n```\n' })).toMatchObject({ ok: true, value: 42 });
    const failed = await runtime.run({ program: '```py\nraise ValueError("on line 2")\n```' });
    expect(failed).toMatchObject({ ok: false, failure: { kind: 'exception', line: 2 } });
  });

  it('leaves a fence of another language alone, so it fails as the syntax error it is', async () => {
    expect(await runtime.run({ program: '```bash\necho hi\n```' })).toMatchObject({
      ok: false,
      failure: { kind: 'exception' },
    });
  });

  it('calls the one function a program defines and never calls, and returns its value', async () => {
    const program =
      'import asyncio\n\nasync def main():\n    await asyncio.sleep(0)\n    return await tools.echo(text="from main")\n';
    const result = await runtime.run({ program, bindings: { tools: { echo: async (input) => input } } });
    expect(result).toMatchObject({ ok: true, value: { text: 'from main' } });
    expect(await runtime.run({ program: 'LIMIT = 3\n\ndef main():\n    return list(range(LIMIT))\n' })).toMatchObject({
      ok: true,
      value: [0, 1, 2],
    });
  });

  it('refuses two such functions, naming both and how to pick one', async () => {
    const result = await runtime.run({ program: 'def first():\n    return 1\n\nasync def second():\n    return 2\n' });
    expect(message(result)).toContain('first(), second()');
    expect(message(result)).toContain('`return first()`');
  });

  it('refuses to call a lone function that needs arguments, naming the fix', async () => {
    const result = await runtime.run({ program: 'async def main(city):\n    return city\n' });
    expect(message(result)).toContain('return await main(...)');
  });

  it('leaves a program that calls its function, or does more than declare, as it is', async () => {
    expect(await runtime.run({ program: 'def main():\n    return 5\n\nresult = main()\nreturn result' })).toMatchObject(
      { ok: true, value: 5 },
    );
    expect(await runtime.run({ program: 'def main():\n    return 5\n\nprint("hi")\n' })).toMatchObject({
      ok: true,
      logs: [{ text: 'hi' }],
    });
  });

  it('says that only the standard library is available when an import is missing', async () => {
    const result = await runtime.run({ program: 'import requests\nreturn 1' });
    expect(message(result)).toContain("No module named 'requests'");
    expect(message(result)).toContain('only the Python standard library');
    const caught = await runtime.run({
      program: 'try:\n    import yaml\nexcept ImportError as error:\n    return str(error)',
    });
    expect(caught).toMatchObject({ ok: true, value: "No module named 'yaml'" });
  });
});
