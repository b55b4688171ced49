import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { storedValueLimits } from './run-store.js';
import { awkwardText, type CurrentStore, rejectionOf } from './run-store-behaviour.test-helper.js';
import { RunStoreError, RunStoreLimitError } from './run-store-errors.js';

/** A JSON string value whose JSON text is exactly `chars` characters long. */
const valueOfChars = (chars: number) => 'x'.repeat(chars - 2);

export function describeStoredValueBehaviour(store: CurrentStore): void {
  describe('readValues and commitValues', () => {
    it('commits values that the next read sees byte for byte, per conversation', async () => {
      const conversation = randomUUID();
      const profile = { name: awkwardText, tags: ['b', 'a'], nested: { z: 1, a: { '10': 1, '9': 2 } } };
      await store().commitValues(conversation, { profile, count: 3, flag: false, empty: null });
      const values = await store().readValues(conversation);
      expect(values).toEqual({ count: 3, flag: false, profile });
      expect(JSON.stringify(values.profile)).toBe(JSON.stringify(profile));
      expect(await store().readValues(randomUUID())).toEqual({});
    });

    it('replaces a key’s value and deletes a key committed as null', async () => {
      const conversation = randomUUID();
      await store().commitValues(conversation, { a: 1, b: 2 });
      await store().commitValues(conversation, { a: { now: 'object' }, b: null, c: [] });
      expect(await store().readValues(conversation)).toEqual({ a: { now: 'object' }, c: [] });
    });

    it('commits thousands of keys at once, deletions and replacements mixed', async () => {
      const conversation = randomUUID();
      const first: Record<string, number> = {};
      for (let index = 0; index < 3_000; index += 1) first[`key ${index}`] = index;
      await store().commitValues(conversation, first);
      const second: Record<string, number | string | null> = {};
      for (let index = 0; index < 3_000; index += 1) second[`key ${index}`] = index % 2 === 0 ? null : `odd ${index}`;
      second[awkwardText] = 'new';
      await store().commitValues(conversation, second);
      const expected: Record<string, string> = { [awkwardText]: 'new' };
      for (let index = 1; index < 3_000; index += 2) expected[`key ${index}`] = `odd ${index}`;
      expect(await store().readValues(conversation)).toEqual(expected);
    });

    it('keeps keys that JavaScript treats specially or PostgreSQL text cannot hold', async () => {
      const conversation = randomUUID();
      const changes = JSON.parse('{"__proto__": 1, "": 3}') as Record<string, number>;
      changes[awkwardText] = 2;
      await store().commitValues(conversation, changes);
      const values = await store().readValues(conversation);
      expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
      expect(Object.keys(values).sort()).toEqual(['', '__proto__', awkwardText].sort());
      expect(Object.getOwnPropertyDescriptor(values, '__proto__')?.value).toBe(1);
      expect(values[awkwardText]).toBe(2);
    });

    it('accepts a value of exactly the limit and refuses one character more, writing nothing of that commit', async () => {
      const conversation = randomUUID();
      await store().commitValues(conversation, { big: valueOfChars(storedValueLimits.valueChars) });
      const error = await rejectionOf(
        store().commitValues(conversation, { small: 1, big: valueOfChars(storedValueLimits.valueChars + 1) }),
      );
      expect(RunStoreLimitError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/The value of "big" is 262145 characters of JSON, over the limit of 262144/);
      const values = await store().readValues(conversation);
      expect(Object.keys(values)).toEqual(['big']);
      expect((values.big as string).length).toBe(storedValueLimits.valueChars - 2);
    });

    it('refuses a commit that would pass the conversation’s total, keeping what was stored', async () => {
      const conversation = randomUUID();
      const quarter = valueOfChars(storedValueLimits.valueChars - 10);
      await store().commitValues(conversation, { a: quarter, b: quarter, c: quarter, d: quarter });
      const error = await rejectionOf(store().commitValues(conversation, { a: null, e: quarter, f: quarter }));
      expect(RunStoreLimitError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/would total \d+ characters \(keys and JSON values\), over the limit of 1048576/);
      expect(Object.keys(await store().readValues(conversation))).toEqual(['a', 'b', 'c', 'd']);
      // Freeing room in the same commit makes it fit.
      await store().commitValues(conversation, { a: null, b: null, e: quarter, f: quarter });
      expect(Object.keys(await store().readValues(conversation))).toEqual(['c', 'd', 'e', 'f']);
    });

    it('lets only one of many concurrent commits that together pass the total succeed', async () => {
      // Each commit is half the total, so any two of one conversation are over it; four
      // conversations race at once, so a store with a pool has its commits truly overlap.
      const value = valueOfChars(storedValueLimits.valueChars);
      const commits = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => ({ [`${name}1`]: value, [`${name}2`]: value }));
      const conversations = Array.from({ length: 4 }, () => randomUUID());
      await Promise.all(conversations.map((conversation) => store().readValues(conversation)));
      const rounds = await Promise.all(
        conversations.map((conversation) =>
          Promise.allSettled(commits.map((changes) => store().commitValues(conversation, changes))),
        ),
      );
      for (const [index, results] of rounds.entries()) {
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        const winner = commits[results.findIndex((result) => result.status === 'fulfilled')];
        expect(Object.keys(await store().readValues(conversations[index]!))).toEqual(Object.keys(winner ?? {}));
      }
    });

    it('refuses changes that are not an object, and a value that is not JSON', async () => {
      await expect(store().commitValues(randomUUID(), [] as never)).rejects.toThrow(/changes must be an object/);
      const error = await rejectionOf(store().commitValues(randomUUID(), { f: (() => 1) as never }));
      expect(RunStoreError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/the value of "f" must be a JSON value/);
    });
  });
}
