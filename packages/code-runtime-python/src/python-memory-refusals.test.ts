import { afterAll, describe, expect, it } from 'vitest';
import { failureOf, python, testRuntime } from './__fixtures__/test-runtime.js';

const mebibyte = 1024 * 1024;

describe('an allocation the address-space limit refuses', () => {
  const memoryBytes = 256 * mebibyte;
  const runtime = testRuntime({ memoryBytes });
  afterAll(() => runtime.dispose());

  it('ends the run as memory, whichever way the refusal reached the program', async () => {
    for (const [program, refusal] of [
      ['x = bytearray(1 << 30)', 'MemoryError'],
      ['import mmap\nm = mmap.mmap(-1, 1 << 30)', 'OSError: [Errno 12] Cannot allocate memory'],
      [
        python(
          'import asyncio',
          'async def grow():',
          '    return bytearray(1 << 30)',
          'async with asyncio.TaskGroup() as group:',
          '    group.create_task(grow())',
        ),
        'MemoryError',
      ],
    ] as const) {
      const failure = failureOf(await runtime.run({ program }), 'memory');
      expect(failure).toMatchObject({ limitBytes: memoryBytes });
      expect(failure.message).toContain(`at its ${memoryBytes}-byte address-space limit`);
      if (refusal !== 'MemoryError') expect(failure.message).toContain(refusal);
    }
  });

  it('leaves an OSError that is not about memory an exception', async () => {
    const failure = failureOf(await runtime.run({ program: 'open("/nonexistent/file")' }), 'exception');
    expect(failure).toMatchObject({ name: 'FileNotFoundError' });
  });
});
