import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { failureOf, python, successValue, testRuntime } from './__fixtures__/test-runtime.js';

const echo: HostFunction = (input) => input;

describe('a child waiting for its program', () => {
  // No spares: every child is forked for a run that waits, so its program arrives just after `started`,
  // before or while the child rehearses one (see _warm_while_waiting).
  const forked = testRuntime({}, { spareChildren: 0 });
  // Spares that wait long enough to rehearse.
  const spared = testRuntime();
  afterAll(() => Promise.all([forked.dispose(), spared.dispose()]));

  it('runs a program that arrives while it is still starting or rehearsing', async () => {
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        forked.run({
          program: python(`value = await tools.echo({"n": ${index}})`, 'print(value["n"])', 'return value["n"] * 2'),
          bindings: { tools: { echo } },
        }),
      ),
    );
    expect(results.map((result) => successValue(result))).toEqual(Array.from({ length: 16 }, (_, index) => index * 2));
    expect(results.map((result) => result.logs.map((entry) => entry.text))).toEqual(
      Array.from({ length: 16 }, (_, index) => [String(index)]),
    );
  });

  it('leaves nothing of its rehearsal for the program to see', async () => {
    successValue(await spared.run({ program: 'return 1' }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const names = await spared.run({
      program: python('return sorted(name for name in globals() if not name.startswith("__"))'),
    });
    expect(successValue(names)).not.toContain('items');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const failure = failureOf(await spared.run({ program: python('x = 1', 'raise ValueError("boom")') }), 'exception');
    if (failure.kind !== 'exception') throw new Error('unreachable');
    expect(failure.stack).toContain('raise ValueError("boom")');
    expect(failure.stack).not.toContain('tools.get');
  });
});
