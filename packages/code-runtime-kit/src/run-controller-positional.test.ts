import type { HostCallContext, JsonValue } from '@sluice/code-runtime';
import { normalizeBindings } from '@sluice/code-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { RunController } from './run-controller.js';
import { defaultRunLimits } from './run-limits.js';

const created: RunController[] = [];

afterEach(() => {
  for (const controller of created.splice(0)) controller.cancel('the test ended');
});

function recordingController(seen: Array<[JsonValue, HostCallContext['positional']]>, hostCallBytes?: number) {
  const controller = new RunController({
    bindings: normalizeBindings({
      tools: {
        echo: (input, context) => {
          seen.push([input, context.positional]);
          return null;
        },
      },
    }),
    limits: { ...defaultRunLimits, ...(hostCallBytes === undefined ? {} : { hostCallBytes }) },
  });
  created.push(controller);
  return controller;
}

describe('RunController positional calls', () => {
  it('passes one positional argument as the input and all of them as context.positional', async () => {
    const seen: Array<[JsonValue, HostCallContext['positional']]> = [];
    const run = recordingController(seen);
    await run.call('tools', 'echo', null, ['oslo']);
    await run.call('tools', 'echo', null, [5, 3]);
    await run.call('tools', 'echo', null, [[1, 2]]);
    await run.call('tools', 'echo', { limit: 3 }, ['oslo']);
    await run.call('tools', 'echo', { query: 'oslo' });
    expect(seen).toEqual([
      ['oslo', ['oslo']],
      [
        [5, 3],
        [5, 3],
      ],
      [[1, 2], [[1, 2]]],
      [{ limit: 3 }, ['oslo']],
      [{ query: 'oslo' }, undefined],
    ]);
  });

  it('counts keywords and positional arguments together against the per-call bytes', async () => {
    const seen: Array<[JsonValue, HostCallContext['positional']]> = [];
    const run = recordingController(seen, 40);
    const reply = await run.call('tools', 'echo', { note: 'x'.repeat(20) }, ['y'.repeat(20)]);
    expect(reply).toMatchObject({ ok: false, error: expect.stringContaining('bytes of JSON; the limit is 40') });
    expect(seen).toEqual([]);
  });
});
