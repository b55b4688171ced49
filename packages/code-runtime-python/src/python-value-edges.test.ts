import { afterAll, describe, expect, it } from 'vitest';
import { echo, failureOf, python, successValue, testRuntime } from './__fixtures__/test-runtime.js';
import { requiredAddressSpace } from './python-settings.js';

const mebibyte = 1024 * 1024;
// Long runs of digits in a message would be the number itself: a size is at most a few digits.
const manyDigits = /\d{12,}/;

describe('integers beyond ±(2**53 - 1)', () => {
  const runtime = testRuntime();
  afterAll(() => runtime.dispose());

  it('are invalid-output naming the path and the size, not the digits, whatever the digit limit', async () => {
    for (const program of [
      'return {"n": 7 ** 6000}',
      python('import sys', 'sys.set_int_max_str_digits(0)', 'return {"n": 7 ** 6000}'),
    ]) {
      const failure = failureOf(await runtime.run({ program }), 'invalid-output');
      expect(failure.message).toContain('$["n"] is an integer of 16845 bits (5071 digits), beyond ±(2**53 - 1)');
      expect(failure.message).not.toMatch(manyDigits);
      expect(failure.message).not.toContain('set_int_max_str_digits');
    }
  });

  it('are found in an int subclass that lies about its size', async () => {
    const failure = failureOf(
      await runtime.run({
        program: python(
          'class Small(int):',
          '    def __abs__(self): return 0',
          '    def bit_length(self): return 1',
          'return [Small(2 ** 60)]',
        ),
      }),
      'invalid-output',
    );
    expect(failure.message).toContain('$[0] is an integer of 61 bits (19 digits)');
  });

  it('as a tool argument raise HostCallError naming the argument as written and the size; the tool is not called', async () => {
    const result = await runtime.run({
      program: python(
        'import sys',
        'sys.set_int_max_str_digits(0)',
        'messages = []',
        'for call in (lambda: tools.echo(7 ** 6000), lambda: tools.echo(1, [7 ** 6000]), lambda: tools.echo(n=7 ** 6000)):',
        '    try:',
        '        await call()',
        '    except HostCallError as error:',
        '        messages.append(str(error))',
        'return messages',
      ),
      bindings: { tools: { echo } },
    });
    expect(successValue(result)).toEqual([
      "tools.echo: the call's argument is not JSON: args[0] is an integer of 16845 bits (5071 digits), beyond ±(2**53 - 1), which JSON cannot carry exactly: use str(...).",
      "tools.echo: the call's argument is not JSON: args[1][0] is an integer of 16845 bits (5071 digits), beyond ±(2**53 - 1), which JSON cannot carry exactly: use str(...).",
      'tools.echo: the call\'s argument is not JSON: $["n"] is an integer of 16845 bits (5071 digits), beyond ±(2**53 - 1), which JSON cannot carry exactly: use str(...).',
    ]);
    expect(result.calls).toEqual([]);
  });

  it('as a dict key are refused by size too', async () => {
    const failure = failureOf(await runtime.run({ program: 'return {2 ** 64: 1}' }), 'invalid-output');
    expect(failure.message).toContain('$ has an integer key of 65 bits (20 digits), beyond ±(2**53 - 1)');
  });
});

describe('the value check', () => {
  const defaults = { valueBytes: mebibyte, hostCallBytes: mebibyte, logBytes: 64 * 1024 };

  it('checks the worst shapes of a 1 MiB value in the smallest memory the gate accepts', async () => {
    const runtime = testRuntime({ ...defaults, memoryBytes: requiredAddressSpace(defaults) });
    try {
      for (const [program, length] of [
        ['return [1] * 524287', 524287],
        ['return [[] for _ in range(349525)]', 349525], // 3 bytes of JSON per element, 72 of Python
        ['return [{} for _ in range(349525)]', 349525],
        ['return await tools.echo([[] for _ in range(349500)])', 1],
        // The worst shape measured: lists of one list, 80 bytes of Python for 2 of JSON, also parsed from a reply.
        ['return [[[[[[[[[[[]]]]]]]]]] for _ in range(49900)]', 49900],
        ['return await tools.echo([[[[[[[[[[[]]]]]]]]]] for _ in range(49900)])', 1],
      ] as const) {
        const value = successValue(await runtime.run({ program, bindings: { tools: { echo } } }));
        expect(Array.isArray(value) ? value.length : Object.keys(value as object).length, program).toBe(length);
      }
    } finally {
      await runtime.dispose();
    }
  }, 120_000);

  it('passes an 8 MiB list of ints with 8 MiB value and call budgets on the default memory', async () => {
    const runtime = testRuntime({ valueBytes: 8 * mebibyte, hostCallBytes: 8 * mebibyte });
    try {
      const value = successValue(await runtime.run({ program: 'return [1] * (4 * 1024 * 1024 - 1)' }));
      expect((value as number[]).length).toBe(4 * mebibyte - 1);
    } finally {
      await runtime.dispose();
    }
  }, 120_000);

  it('stops at the budget when one string is reached many times, rather than writing gigabytes of JSON', async () => {
    const runtime = testRuntime();
    try {
      for (const program of [
        'text = "x" * (1 << 20)\nreturn [text] * 1000', // 1 GiB of JSON from 1 MiB of memory
        'v = [1]\nfor _ in range(60):\n    v = [v, v]\nreturn v',
      ]) {
        const failure = failureOf(await runtime.run({ program }), 'output-limit');
        expect(failure.message).toMatch(/The returned value is \d+ or more bytes of JSON/);
      }
      const failure = failureOf(
        await runtime.run({
          program: 'text = "x" * (1 << 20)\nawait tools.echo([text] * 1000)',
          bindings: { tools: { echo } },
        }),
        'exception',
      );
      expect(failure.message).toMatch(/the call's argument is \d+ or more bytes of JSON; the limit is 1048576 bytes/);
    } finally {
      await runtime.dispose();
    }
  }, 120_000);
});
