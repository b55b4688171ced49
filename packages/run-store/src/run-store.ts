import type { JsonValue } from '@sluice/code-runtime';
import type {
  RunStoreConflictError,
  RunStoreError,
  RunStoreExpiredError,
  RunStoreLimitError,
  RunStoreNotFoundError,
} from './run-store-errors.js';

/**
 * What a durable run starts from. A rerun (resume after a crash, or after an approval) starts the
 * program again from exactly this record and replays the journal, so everything that decides what
 * the program sees is here. Written once by {@link RunStore.createRun}; never changed.
 */
export interface StartRecord {
  /** Unique per store; chosen by the caller (a UUID). */
  readonly runId: string;
  /** The conversation whose stored values (`store`/`load`) the run reads and commits; absent for none. */
  readonly conversation?: string;
  /** The program's source, as the model wrote it. */
  readonly program: string;
  /** The runtime's language: `typescript` or `python`. */
  readonly language: string;
  /** The seed of the run's randomness (an unsigned 32-bit integer). */
  readonly seed: number;
  /** The virtual clock's start, in milliseconds since the Unix epoch. */
  readonly startTime: number;
  /**
   * The engine and durable-layer fingerprint recorded by the first run: a rerun under a different
   * fingerprint could see different results for the same journal, so it is refused.
   */
  readonly fingerprint: string;
  /** Anything else the host needs to rebuild the run (for example the tool names offered); JSON. */
  readonly metadata?: JsonValue;
}

/** Where a run is: `running` (or crashed while running), `paused` for an approval, or `finished`. */
export type RunStatus = 'running' | 'paused' | 'finished';

/** A run as stored: its start record, where it is, and its outcome once finished. */
export interface RunRecord {
  readonly start: StartRecord;
  readonly status: RunStatus;
  /** The run's final outcome as the durable layer recorded it (present once `finished`). */
  readonly outcome?: JsonValue;
  /**
   * The host process that holds the run, and until when (ms since the epoch, by the database's
   * clock, so hosts with skewed clocks agree); absent when nobody does.
   */
  readonly owner?: string;
  readonly leaseExpiresAt?: number;
  /** Milliseconds since the epoch, by the database's clock. */
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What a program asked for: committed before the host function runs. */
export interface JournalIntent {
  readonly namespace: string;
  readonly name: string;
  /** The argument exactly as the program passed it (JSON). */
  readonly input: JsonValue;
  /** Positional arguments, when the program called positionally (see `HostCallContext.positional`). */
  readonly positional?: readonly JsonValue[];
}

/** What the host function gave back: committed after it settled. */
export type JournalOutcome =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly message: string };

/** One host call of a run, numbered from 1 in the order the program made its calls. */
export interface JournalEntry {
  readonly seq: number;
  readonly intent: JournalIntent;
  /** Absent while the call is in flight, or when the host died before it settled. */
  readonly outcome?: JournalOutcome;
  /** Milliseconds since the epoch, by the database's clock. */
  readonly intentAt: number;
  readonly outcomeAt?: number;
}

/** An approval decision given to a paused run. */
export type PauseDecision = { readonly decision: 'allow' } | { readonly decision: 'deny'; readonly reason?: string };

/** A run paused on an `ask` approval: the pending call and the token that resumes it. */
export interface PauseRecord {
  /** Unguessable (at least 128 random bits), chosen by the caller. */
  readonly token: string;
  readonly runId: string;
  /** The journal entry of the pending call. */
  readonly seq: number;
  /** The tool's name as policies match it, and the arguments it would receive. */
  readonly tool: string;
  readonly input: JsonValue;
  /** Why the call waits: the matched rule, in words. */
  readonly reason: string;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  readonly expiresAt: number;
  /** The first decision given; later ones do not replace it. */
  readonly decision?: PauseDecision;
}

/** Limits on stored values, from seed `002_680c99bef20a19ba.txt`: 256 Ki characters a value, 1 Mi in all. */
export const storedValueLimits = { valueChars: 256 * 1024, totalChars: 1024 * 1024 } as const;

/**
 * Durable runs' state: start records, journals, pause tokens and per-conversation stored values.
 * One interface; an embedded store (`createPGliteRunStore`) and PostgreSQL (`createPostgresRunStore`)
 * share its SQL and its schema migrations. JSON is stored as text, byte for byte (never `jsonb`,
 * which reorders keys): a replayed program must see the same key order as the first run.
 *
 * Every method rejects with {@link RunStoreError} (or a subclass) for what the caller did wrong (a
 * malformed argument, a store used after `close()`), and with the database's own error for a failed
 * connection or query. Identifiers (run ids, owners, tokens, conversations) must be non-empty
 * well-formed text without NUL; every other string round-trips exactly, NUL and lone surrogates too.
 */
export interface RunStore {
  /** `pglite` or `postgres`. */
  readonly kind: string;
  /** Writes a new run with status `running`, owned by `owner` for `leaseMs`. Rejects with {@link RunStoreConflictError} when the id exists. */
  createRun(start: StartRecord, owner: string, leaseMs: number): Promise<void>;
  /** The run, or `undefined` for an unknown id. */
  getRun(runId: string): Promise<RunRecord | undefined>;
  /**
   * Takes the run for `owner` until now + `leaseMs`, when nobody holds it, the lease has expired, or
   * `owner` already holds it. Resolves `false` when another owner holds a live lease; rejects with
   * {@link RunStoreNotFoundError} for an unknown run. Atomic across hosts sharing one database.
   */
  claimRun(runId: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Gives the run up when `owner` holds it (a no-op otherwise). */
  releaseRun(runId: string, owner: string): Promise<void>;
  /**
   * Sets the status (and, for `finished`, the outcome). A finished run stays finished: later calls are
   * no-ops. Rejects with {@link RunStoreNotFoundError} for an unknown run and {@link RunStoreError}
   * for an outcome with another status.
   */
  setStatus(runId: string, status: RunStatus, outcome?: JsonValue): Promise<void>;
  /**
   * Commits a call's intent before its host function runs. Resolves with the entry now stored: the
   * new one, or the one already there for `seq` (then its intent may differ: the caller compares).
   * Rejects with {@link RunStoreNotFoundError} for an unknown run.
   */
  recordIntent(runId: string, seq: number, intent: JournalIntent): Promise<JournalEntry>;
  /** Commits a call's outcome. The first outcome recorded for `seq` stays; rejects with {@link RunStoreNotFoundError} without an intent. */
  recordOutcome(runId: string, seq: number, outcome: JournalOutcome): Promise<void>;
  /** The run's journal in `seq` order. */
  readJournal(runId: string): Promise<JournalEntry[]>;
  /**
   * Writes a pause and sets the run's status to `paused` (a finished run stays finished), in one
   * transaction. Rejects with {@link RunStoreConflictError} when the token exists or the run already
   * paused at `seq`, and {@link RunStoreNotFoundError} for an unknown run.
   */
  createPause(pause: Omit<PauseRecord, 'decision'>): Promise<void>;
  /** The pause, or `undefined` for an unknown token. */
  getPause(token: string): Promise<PauseRecord | undefined>;
  /** The run's pauses in `seq` order (a run pauses at most once per call). */
  listPauses(runId: string): Promise<PauseRecord[]>;
  /**
   * Records the decision when the pause has none yet and resolves with the pause as stored: the
   * first decision wins, so deciding twice is safe. Rejects with {@link RunStoreNotFoundError} for an
   * unknown token and {@link RunStoreExpiredError} when `now` (default `Date.now()`) is past
   * `expiresAt` and none was given.
   */
  decidePause(token: string, decision: PauseDecision, now?: number): Promise<PauseRecord>;
  /** The conversation's stored values. */
  readValues(conversation: string): Promise<Record<string, JsonValue>>;
  /**
   * Writes the changes of one successful run in one transaction (`null` deletes a key). Rejects with
   * {@link RunStoreLimitError}, writing nothing, when a value or the conversation's total would pass
   * {@link storedValueLimits}: a value counts the characters (UTF-16 code units) of its JSON text, the
   * total those of every key and value of the conversation once the changes are applied.
   */
  commitValues(conversation: string, changes: Readonly<Record<string, JsonValue | null>>): Promise<void>;
  /** Closes the connection (the embedded database flushes to its directory). Idempotent. */
  close(): Promise<void>;
}
