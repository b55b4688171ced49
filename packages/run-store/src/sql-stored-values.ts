import type { JsonValue } from '@sluice/code-runtime';
import { type RunLease, storedValueLimits } from './run-store.js';
import { identifier, jsonText, parseText } from './run-store-codec.js';
import { RunStoreError, RunStoreLimitError } from './run-store-errors.js';
import { advisoryLockClass } from './run-store-migrations.js';
import type { SqlClient, SqlQueryable } from './sql-client.js';
import { leaseArgument, lockHeldRun, nowSql } from './sql-shared.js';

/** `RunStore.readValues`. */
export async function readValues(db: SqlQueryable, conversation: string): Promise<Record<string, JsonValue>> {
  const rows = await db.query<{ key: string; value: string }>(
    'SELECT key, value FROM sluice_stored_values WHERE conversation = $1 ORDER BY key COLLATE "C"',
    [identifier('conversation', conversation)],
  );
  const values: Record<string, JsonValue> = {};
  // defineProperty, so a key named __proto__ is a value like any other.
  for (const row of rows)
    Object.defineProperty(values, parseText<string>(row.key), {
      value: parseText(row.value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return values;
}

/**
 * `RunStore.commitValues`: one transaction that writes every change, then checks the conversation's
 * total and rolls everything back when it is over the limit. A value over its own limit is refused
 * before anything is sent. A conversation counts the characters of its keys and its values' JSON.
 */
export async function commitValues(
  client: SqlClient,
  conversation: string,
  changes: Readonly<Record<string, JsonValue | null>>,
  lease: RunLease | undefined,
): Promise<void> {
  identifier('conversation', conversation);
  const held = lease === undefined ? undefined : leaseArgument(identifier('lease.runId', lease?.runId), lease);
  const writes = valueWrites(changes);
  if (writes.length === 0) return;
  await client.transaction(async (db) => {
    // A run that lost its lease commits nothing: the host that took it over commits its own run.
    if (held !== undefined) await lockHeldRun(db, held.runId, held);
    // Two runs of one conversation committing at once must not pass the total together.
    await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [advisoryLockClass + 1, conversation]);
    // One statement for the deletions and one for the rest, whatever the number of keys (the keys
    // of one commit are distinct, so no row is written twice by the upsert).
    const deleted = writes.filter((write) => write.value === null).map((write) => write.key);
    const stored = writes.filter((write) => write.value !== null);
    if (deleted.length > 0)
      await db.query('DELETE FROM sluice_stored_values WHERE conversation = $1 AND key = ANY($2::text[])', [
        conversation,
        deleted,
      ]);
    if (stored.length > 0)
      await db.query(
        `INSERT INTO sluice_stored_values (conversation, key, value, chars, updated_at)
         SELECT $1, change.key, change.value, change.chars, ${nowSql}
         FROM unnest($2::text[], $3::text[], $4::integer[]) AS change(key, value, chars)
         ON CONFLICT (conversation, key) DO UPDATE
         SET value = excluded.value, chars = excluded.chars, updated_at = excluded.updated_at`,
        [
          conversation,
          stored.map((write) => write.key),
          stored.map((write) => write.value),
          stored.map((write) => write.chars),
        ],
      );
    const [total] = await db.query<{ chars: number | string }>(
      'SELECT coalesce(sum(chars), 0) AS chars FROM sluice_stored_values WHERE conversation = $1',
      [conversation],
    );
    const chars = Number(total?.chars ?? 0);
    if (chars > storedValueLimits.totalChars)
      throw new RunStoreLimitError({
        message: `Conversation ${JSON.stringify(conversation)}'s stored values would total ${chars} characters (keys and JSON values), over the limit of ${storedValueLimits.totalChars}: nothing was stored; delete keys (store null) or store smaller values.`,
      });
  });
}

interface ValueWrite {
  /** The key as a JSON string literal (see run-store-codec.ts). */
  readonly key: string;
  /** The value's JSON text, or null to delete the key. */
  readonly value: string | null;
  readonly chars: number;
}

function valueWrites(changes: Readonly<Record<string, JsonValue | null>>): ValueWrite[] {
  if (typeof changes !== 'object' || changes === null || Array.isArray(changes))
    throw new RunStoreError({ message: 'changes must be an object of key → JSON value (null deletes the key).' });
  return Object.entries(changes).map(([key, value]) => {
    if (value === null) return { key: JSON.stringify(key), value: null, chars: 0 };
    const text = jsonText(`the value of ${JSON.stringify(key.slice(0, 100))}`, value);
    if (text.length > storedValueLimits.valueChars)
      throw new RunStoreLimitError({
        message: `The value of ${JSON.stringify(key.slice(0, 100))} is ${text.length} characters of JSON, over the limit of ${storedValueLimits.valueChars} per value: nothing was stored; store a smaller value.`,
      });
    return { key: JSON.stringify(key), value: text, chars: key.length + text.length };
  });
}
