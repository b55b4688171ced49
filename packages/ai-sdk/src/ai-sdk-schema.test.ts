import { InvalidRequestError } from '@sluice/code-runtime';
import { asSchema, jsonSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseWithSchema, readProblems, resolveSchema } from './ai-sdk-schema.js';

/** A Standard Schema that is not zod: the AI SDK wraps its issues in a TypeValidationError's cause. */
const evenNumbers = {
  '~standard': {
    version: 1 as const,
    vendor: 'hand-made',
    validate: (value: unknown) => {
      const n = (value as { n?: unknown }).n;
      return typeof n === 'number' && n % 2 === 0
        ? { value: { n, half: n / 2 } }
        : { issues: [{ message: 'must be even', path: [{ key: 'n' }] }] };
    },
    jsonSchema: { input: () => ({ type: 'object', properties: { n: { type: 'number' } } }) },
  },
};

describe('parseWithSchema', () => {
  it("uses a Standard Schema's own validate and names the path of its issue", async () => {
    const schema = asSchema(evenNumbers as never);
    expect(await parseWithSchema(schema, { n: 3 })).toEqual({ ok: false, problems: ['$.n: must be even'] });
    expect(await parseWithSchema(schema, { n: 4 })).toEqual({ ok: true, value: { n: 4, half: 2 } });
  });

  it('names nested paths and array indexes of zod issues, five at most', async () => {
    const schema = asSchema(z.object({ rows: z.array(z.object({ 'first name': z.string().min(2) })) }));
    const rows = Array.from({ length: 7 }, () => ({ 'first name': 'x' }));
    const outcome = await parseWithSchema(schema, { rows });
    expect(outcome.ok).toBe(false);
    const problems = outcome.ok ? [] : outcome.problems;
    expect(problems).toHaveLength(6);
    expect(problems[0]).toMatch(/^\$\.rows\[0\]\["first name"\]: /);
    expect(problems[5]).toBe('and 2 more');
  });

  it('passes the value through a schema without validate', async () => {
    const value = { anything: true };
    expect(await parseWithSchema(jsonSchema({ type: 'object' }), value)).toEqual({ ok: true, value });
  });

  it('turns a validator that throws into a problem', async () => {
    const schema = jsonSchema(
      { type: 'object' },
      {
        validate: () => {
          throw new Error('validator broke');
        },
      },
    );
    expect(await parseWithSchema(schema, {})).toEqual({ ok: false, problems: ['validator broke'] });
  });
});

describe('readProblems', () => {
  it('reads hostile errors without throwing', () => {
    const throwing = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    expect(readProblems(throwing)).toHaveLength(1);
    expect(
      readProblems({
        issues: [
          {
            get message() {
              throw new Error('trap');
            },
            path: [Symbol('s')],
          },
        ],
      }),
    ).toEqual(['$[?]: is invalid']);
    expect(readProblems('plain text')).toEqual(['plain text']);
  });
});

describe('resolveSchema', () => {
  it('throws InvalidRequestError naming the tool for a schema the AI SDK cannot read', async () => {
    const error = await resolveSchema('lookup', 'inputSchema', 42).catch((caught: unknown) => caught);
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: 'tools.lookup.inputSchema' });
    expect((error as Error).message).toMatch(/^Tool "lookup": its inputSchema cannot be converted/);
  });
});
