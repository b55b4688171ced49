import { type JsonValue, normalizeBindings } from '@sluice/code-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { RunController } from './run-controller.js';
import { defaultRunLimits } from './run-limits.js';

const created: RunController[] = [];

afterEach(() => {
  for (const controller of created.splice(0)) controller.cancel('the test ended');
});

/** A run whose one host function, `tools.give`, returns `value`. */
function returning(value: () => unknown, hostCallBytes = defaultRunLimits.hostCallBytes): RunController {
  const controller = new RunController({
    bindings: normalizeBindings({ tools: { give: () => value() as JsonValue } }),
    limits: { ...defaultRunLimits, hostCallBytes },
  });
  created.push(controller);
  return controller;
}

describe('RunController: host function results cross by the boundary table', () => {
  it('gives the program a Map as an object, a Set sorted, a generator as its items, a Date as ISO, an Error as { error }', async () => {
    function* pages() {
      yield { page: 1 };
      yield { page: 2 };
    }
    const run = returning(() => ({
      counts: new Map([
        ['bug', 2],
        ['docs', 1],
      ]),
      tags: new Set(['b', 'c', 'a']),
      pages: pages(),
      at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
      failed: [{ status: 'rejected', reason: new TypeError('quota exceeded') }],
    }));
    expect(await run.call('tools', 'give', null)).toEqual({
      ok: true,
      value: {
        counts: { bug: 2, docs: 1 },
        tags: ['a', 'b', 'c'],
        pages: [{ page: 1 }, { page: 2 }],
        at: '2026-01-02T03:04:05.000Z',
        failed: [{ status: 'rejected', reason: { error: 'TypeError: quota exceeded' } }],
      },
    });
  });

  it('stops an endless generator at the per-call budget and answers with an error, not a hang', async () => {
    function* endless() {
      for (let n = 0; ; n += 1) yield { n };
    }
    const run = returning(() => ({ items: endless() }), 4096);
    expect(await run.call('tools', 'give', null)).toEqual({
      ok: false,
      error: 'tools.give returned more than 4096 bytes of JSON; the limit is 4096 bytes per call. Ask for less.',
    });
  });

  it('answers with an error naming the path for hostile shapes, and never throws', async () => {
    const hostile: Array<[() => unknown, RegExp]> = [
      [
        () =>
          (function* broken() {
            yield 1;
            throw new Error('socket closed');
          })(),
        /\$ is an iterator that threw Error: socket closed while it was read/,
      ],
      [() => ({ m: new Map([[Symbol('k'), 1]]) }), /\$\.m is a Map with a symbol as a key/],
      [
        () => ({
          at: {
            toJSON() {
              throw new RangeError('bad time');
            },
          },
        }),
        /\$\.at is an object whose toJSON method threw RangeError: bad time/,
      ],
      [() => ({ when: new Date('not a date') }), /\$\.when is an invalid Date/],
      [
        () => ({
          set: new Set([1]),
          get secret() {
            throw new Error('getter ran');
          },
        }),
        /\$\.secret is an accessor property/,
      ],
      [
        () => ({
          set: new Set([1]),
          odd: new Proxy(new Map(), {
            getPrototypeOf() {
              throw new Error('trap');
            },
          }),
        }),
        /\$\.odd is an object that throws when it is read/,
      ],
      [() => new Map([[1, new Set([() => 1])]]), /\$\["1"\]\[0\] is a function/],
    ];
    for (const [value, message] of hostile) {
      const reply = await returning(value).call('tools', 'give', null);
      expect(reply).toMatchObject({ ok: false, error: expect.stringMatching(message) });
    }
  });

  it('reads an Error from data properties only: throwing or huge name and message getters cannot hurt the host', async () => {
    const error = new Error('kept');
    Object.defineProperty(error, 'name', {
      get() {
        throw new Error('name getter ran');
      },
    });
    const huge = new Error('m'.repeat(50_000));
    const run = returning(() => [error, huge]);
    const reply = await run.call('tools', 'give', null);
    expect(reply).toMatchObject({ ok: true });
    const [first, second] = (reply as unknown as { value: Array<{ error: string }> }).value;
    expect(first).toEqual({ error: 'Error: kept' });
    expect(second!.error).toHaveLength('Error: '.length + 10_001);
  });
});
