// Pins what callers of the run store can see. A red pin is a deliberate act: update the literal,
// add a changeset, and say so in the docs (a new schema version needs a new migration, never an
// edited one).
import { describe, expect, it } from 'vitest';
import * as api from './index.js';
import { runStoreMigrations } from './run-store-migrations.js';

describe('index exports', () => {
  it('names exactly these runtime values', () => {
    expect(Object.keys(api).sort()).toEqual([
      'RunStoreConflictError',
      'RunStoreError',
      'RunStoreExpiredError',
      'RunStoreLeaseLostError',
      'RunStoreLimitError',
      'RunStoreNotFoundError',
      'createPGliteRunStore',
      'createPostgresRunStore',
      'outcomeKindOf',
      'storedValueLimits',
    ]);
  });

  it('keeps the limits of the seed', () => {
    expect(api.storedValueLimits).toEqual({ valueChars: 262_144, totalChars: 1_048_576 });
  });
});

describe('schema', () => {
  it('has these migrations, in order', () => {
    expect(runStoreMigrations.map(({ version, name }) => `${version} ${name}`)).toEqual([
      '1 runs, journal, pauses, stored values',
      '2 fencing tokens, started approved calls',
      '3 runs listed by conversation',
      '4 outcome kinds of finished runs, runs listed by time',
    ]);
  });

  it('stores JSON as text, never jsonb', () => {
    const sql = runStoreMigrations.flatMap((migration) => migration.statements).join('\n');
    expect(sql).not.toMatch(/\bjsonb?\b/i);
  });
});
