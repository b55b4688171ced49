import { tool } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { convertAiSdkTools } from './ai-sdk-tools.js';

describe('convertAiSdkTools', () => {
  it('stops a streaming tool when its run ends, rather than reading it forever', async () => {
    let stopped = false;
    const ticker = tool({
      description: 'Counts up forever.',
      inputSchema: z.object({}),
      execute: async function* () {
        try {
          for (let count = 0; ; count += 1) {
            await new Promise((resolve) => setTimeout(resolve, 5));
            yield count;
          }
        } finally {
          stopped = true;
        }
      },
    });
    const { tools } = await convertAiSdkTools({ ticker }, () => undefined);
    const run = new AbortController();
    const result = tools[0]!.execute({}, { signal: run.signal, runId: 'r', callId: 'c1' });
    setTimeout(() => run.abort('timeout'), 30);
    await expect(result).rejects.toThrow('The run ended (timeout) while the tool was still streaming.');
    await vi.waitFor(() => expect(stopped).toBe(true));
  });

  it('gives a Map, Set, generator, Date and Error in a result by the boundary table, not as {}', async () => {
    const report = tool({
      description: 'A report in JavaScript shapes.',
      inputSchema: z.object({}),
      execute: () => {
        function* pages() {
          yield 1;
          yield 2;
        }
        return {
          counts: new Map([['bug', 2]]),
          tags: new Set(['b', 'a']),
          pages: pages(),
          at: new Date(Date.UTC(2026, 0, 2)),
          failure: new TypeError('quota exceeded'),
        };
      },
    });
    const { tools } = await convertAiSdkTools({ report }, () => undefined);
    const signal = new AbortController().signal;
    expect(await tools[0]!.execute({}, { signal, runId: 'r', callId: 'c1' })).toEqual({
      counts: { bug: 2 },
      tags: ['a', 'b'],
      pages: [1, 2],
      at: '2026-01-02T00:00:00.000Z',
      failure: { error: 'TypeError: quota exceeded' },
    });
  });

  it("gives a finite stream's last value", async () => {
    const steps = tool({
      description: 'Three steps.',
      inputSchema: z.object({}),
      execute: async function* () {
        yield 'one';
        yield 'two';
        yield 'three';
      },
    });
    const { tools } = await convertAiSdkTools({ steps }, () => undefined);
    const signal = new AbortController().signal;
    expect(await tools[0]!.execute({}, { signal, runId: 'r', callId: 'c1' })).toBe('three');
  });

  it('survives a stream whose return() throws when its run ends', async () => {
    const hostile = tool({
      description: 'A stream that refuses to stop.',
      inputSchema: z.object({}),
      execute: () => ({
        [Symbol.asyncIterator]() {
          return {
            next: () =>
              new Promise<IteratorResult<number>>((resolve) => setTimeout(() => resolve({ done: false, value: 1 }), 5)),
            get return(): () => never {
              throw new Error('no return for you');
            },
          };
        },
      }),
    });
    const { tools } = await convertAiSdkTools({ hostile }, () => undefined);
    const run = new AbortController();
    const result = tools[0]!.execute({}, { signal: run.signal, runId: 'r', callId: 'c1' });
    setTimeout(() => run.abort('timeout'), 20);
    await expect(result).rejects.toThrow('The run ended (timeout) while the tool was still streaming.');
  });
});
