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

/** Which runs {@link RunStore.listRuns} lists. */
export interface RunListQuery {
  /** Only runs of this conversation. */
  readonly conversation?: string;
  readonly status?: RunStatus;
  /**
   * Only finished runs whose {@link RunRecord.outcomeKind} is one of these (for example
   * `['exception', 'timeout']`); an empty list matches nothing.
   */
  readonly outcomeKinds?: readonly string[];
  /** Only runs created at or after this time, in milliseconds since the epoch. */
  readonly createdFrom?: number;
  /** Only runs created before this time, in milliseconds since the epoch. */
  readonly createdBefore?: number;
  /**
   * Paging: only runs listed after this one (newest first), as the last run of the previous page
   * gives it: its `createdAt` and run id.
   */
  readonly after?: { readonly createdAt: number; readonly runId: string };
  /** At most this many, 1 to 500. Default 50. */
  readonly limit?: number;
}

/** Where a run is: `running` (or crashed while running), `paused` for an approval, or `finished`. */
export type RunStatus = 'running' | 'paused' | 'finished';

/**
 * A host's hold on a run, from {@link RunStore.createRun}, {@link RunStore.claimRun} or
 * {@link RunStore.renewRun}. Every write an execution makes carries it: once another host has
 * claimed the run, the fencing token has moved on and those writes are refused with
 * `RunStoreLeaseLostError`, so a host that stalled past its lease cannot change the run again.
 */
export interface RunLease {
  readonly runId: string;
  readonly owner: string;
  /** The fencing token: 1 at creation, one more at every claim, kept by renewals. */
  readonly fence: number;
  /** Milliseconds since the epoch, by the database's clock, when the lease lapses unless renewed. */
  readonly expiresAt: number;
}

/** A run as stored: its start record, where it is, and its outcome once finished. */
export interface RunRecord {
  readonly start: StartRecord;
  readonly status: RunStatus;
  /** The run's final outcome as the durable layer recorded it (present once `finished`). */
  readonly outcome?: JsonValue;
  /**
   * What kind of end the outcome records, for filtering (see {@link outcomeKindOf}): `ok`, a failure
   * kind such as `exception` or `timeout`, or `diverged`; absent for an outcome of another shape.
   */
  readonly outcomeKind?: string;
  /**
   * The host process that holds the run, and until when (ms since the epoch, by the database's
   * clock, so hosts with skewed clocks agree); absent when nobody does.
   */
  readonly owner?: string;
  readonly leaseExpiresAt?: number;
  /** The fencing token of the latest claim (see {@link RunLease.fence}). */
  readonly fence: number;
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

/**
 * An approval decision given to a paused run; `by` names who gave it (a principal, a person), when
 * the decider says.
 */
export type PauseDecision =
  | { readonly decision: 'allow'; readonly by?: string }
  | { readonly decision: 'deny'; readonly reason?: string; readonly by?: string };

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
  /**
   * When an execution started the approved call (ms since the epoch, by the database's clock; see
   * {@link RunStore.startPausedCall}): a later execution that finds it set without an outcome knows
   * the call may have taken effect.
   */
  readonly startedAt?: number;
}

/**
 * The kind of end a finished run's outcome records, as the durable layer writes outcomes: `diverged`
 * for `{ status: 'diverged' }`, `ok` for a `result` with `ok: true`, the failure's `kind` for one with
 * `ok: false` (a lower-case word of at most 64 characters); `undefined` for any other value. {@link RunStore.setStatus} stores it beside the outcome.
 */
export function outcomeKindOf(outcome: JsonValue | undefined): string | undefined {
  if (typeof outcome !== 'object' || outcome === null || Array.isArray(outcome)) return undefined;
  if (outcome.status === 'diverged') return 'diverged';
  const result = outcome.result;
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return undefined;
  if (result.ok === true) return 'ok';
  const failure = result.failure;
  if (result.ok !== false || typeof failure !== 'object' || failure === null || Array.isArray(failure))
    return undefined;
  // A kind is a short lower-case word (the failure kinds of @sluice/code-runtime); anything else is no kind.
  return typeof failure.kind === 'string' && /^[a-z][a-z0-9-]{0,63}$/.test(failure.kind) ? failure.kind : undefined;
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
  /**
   * Writes a new run with status `running`, held by `owner` for `leaseMs`, and resolves with that
   * lease (fence 1). Rejects with {@link RunStoreConflictError} when the id exists.
   */
  createRun(start: StartRecord, owner: string, leaseMs: number): Promise<RunLease>;
  /** The run, or `undefined` for an unknown id. */
  getRun(runId: string): Promise<RunRecord | undefined>;
  /**
   * Runs newest first (by `createdAt`, then run id): those of `conversation` when given, with
   * `status` when given, finished with one of `outcomeKinds`, created in `[createdFrom,
   * createdBefore)`, listed after `after` (paging), at most `limit` (default 50, 1 to 500). Rejects
   * with {@link RunStoreError} for a malformed query.
   */
  listRuns(query?: RunListQuery): Promise<RunRecord[]>;
  /**
   * Takes the run for `owner` until now + `leaseMs` when nobody holds it or the lease has expired,
   * with a new fencing token (so writes under any earlier lease, this owner's too, are refused from
   * now on). Resolves `undefined` when another owner holds a live lease; rejects with
   * {@link RunStoreNotFoundError} for an unknown run. Atomic across hosts sharing one database.
   */
  claimRun(runId: string, owner: string, leaseMs: number): Promise<RunLease | undefined>;
  /**
   * Extends `lease` to now + `leaseMs`, keeping its fencing token, and resolves with it; resolves
   * `undefined` when the run was claimed since (the lease is lost, even if it had not lapsed yet by
   * this host's clock). A lapsed lease that nobody claimed is renewed.
   */
  renewRun(lease: RunLease, leaseMs: number): Promise<RunLease | undefined>;
  /** Gives the run up when `lease` still holds it (a no-op otherwise), so another host can claim it at once. */
  releaseRun(lease: RunLease): Promise<void>;
  /**
   * Sets the status (and, for `finished`, the outcome and its {@link outcomeKindOf}). A finished run stays finished: later calls are
   * no-ops. Rejects with {@link RunStoreNotFoundError} for an unknown run and {@link RunStoreError}
   * for an outcome with another status; with `lease`, rejects with `RunStoreLeaseLostError`, writing
   * nothing, when the run was claimed since.
   */
  setStatus(runId: string, status: RunStatus, outcome?: JsonValue, lease?: RunLease): Promise<void>;
  /**
   * Commits a call's intent before its host function runs. Resolves with the entry now stored: the
   * new one, or the one already there for `seq` (then its intent may differ: the caller compares).
   * Rejects with {@link RunStoreNotFoundError} for an unknown run; with `lease`, with
   * `RunStoreLeaseLostError`, writing nothing, when the run was claimed since.
   */
  recordIntent(runId: string, seq: number, intent: JournalIntent, lease?: RunLease): Promise<JournalEntry>;
  /**
   * Commits a call's outcome. The first outcome recorded for `seq` stays; rejects with
   * {@link RunStoreNotFoundError} without an intent, and with `lease`, with `RunStoreLeaseLostError`
   * when the run was claimed since.
   */
  recordOutcome(runId: string, seq: number, outcome: JournalOutcome, lease?: RunLease): Promise<void>;
  /** The run's journal in `seq` order. */
  readJournal(runId: string): Promise<JournalEntry[]>;
  /**
   * Writes a pause and sets the run's status to `paused` (a finished run stays finished), in one
   * transaction. Rejects with {@link RunStoreConflictError} when the token exists or the run already
   * paused at `seq`, {@link RunStoreNotFoundError} for an unknown run, and with `lease`,
   * `RunStoreLeaseLostError` when the run was claimed since.
   */
  createPause(pause: Omit<PauseRecord, 'decision' | 'startedAt'>, lease?: RunLease): Promise<void>;
  /** The pause, or `undefined` for an unknown token. */
  getPause(token: string): Promise<PauseRecord | undefined>;
  /** The run's pauses in `seq` order (a run pauses at most once per call). */
  listPauses(runId: string): Promise<PauseRecord[]>;
  /**
   * How many calls wait for a person now, across the store: pauses of paused runs with no decision
   * whose token has not expired at `now` (ms since the epoch, default `Date.now()`). For a gauge an
   * operator watches; every host sharing the database sees the same number.
   */
  countPendingPauses(now?: number): Promise<number>;
  /**
   * Records the decision (with its `by`, when given) when the pause has none yet and resolves with the pause as stored and
   * whether this call's decision is the one recorded: the first decision wins, so deciding twice is
   * safe. Rejects with {@link RunStoreNotFoundError} for an unknown token and
   * {@link RunStoreExpiredError} when `now` (default `Date.now()`) is past `expiresAt` and none was given.
   */
  decidePause(
    token: string,
    decision: PauseDecision,
    now?: number,
  ): Promise<PauseRecord & { readonly applied: boolean }>;
  /**
   * Marks the approved call of pause `token` as started by the execution holding `lease`, just before
   * it runs: resolves `true` when this execution is the first, `false` when an earlier one already
   * started it (it may have taken effect, so it must not run again unless it is replay-safe).
   * Rejects with `RunStoreLeaseLostError` when the run was claimed since, and
   * {@link RunStoreNotFoundError} for an unknown token.
   */
  startPausedCall(token: string, lease: RunLease): Promise<boolean>;
  /** The conversation's stored values. */
  readValues(conversation: string): Promise<Record<string, JsonValue>>;
  /**
   * Writes the changes of one successful run in one transaction (`null` deletes a key). Rejects with
   * {@link RunStoreLimitError}, writing nothing, when a value or the conversation's total would pass
   * {@link storedValueLimits}: a value counts the characters (UTF-16 code units) of its JSON text, the
   * total those of every key and value of the conversation once the changes are applied. With
   * `lease`, rejects with `RunStoreLeaseLostError`, writing nothing, when its run was claimed since.
   */
  commitValues(
    conversation: string,
    changes: Readonly<Record<string, JsonValue | null>>,
    lease?: RunLease,
  ): Promise<void>;
  /** Closes the connection (the embedded database flushes to its directory). Idempotent. */
  close(): Promise<void>;
}
