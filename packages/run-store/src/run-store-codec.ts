import type { JsonValue } from '@sluice/code-runtime';
import type {
  JournalEntry,
  JournalIntent,
  JournalOutcome,
  PauseDecision,
  PauseRecord,
  RunRecord,
  RunStatus,
  StartRecord,
} from './run-store.js';
import { RunStoreError } from './run-store-errors.js';

// Values cross into SQL here and come back out here. JSON goes in as the text JSON.stringify wrote
// (never reordered, never re-serialised); free text that a program or a tool chose (the program,
// a tool's name, an error message, a stored key) goes in as a JSON string literal, so a NUL or a
// lone surrogate, which PostgreSQL's text cannot hold, round-trips byte for byte. Identifiers the
// host chooses (run ids, tokens, owners, conversations) are checked instead and stored as they are.

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function refuse(message: string): never {
  throw new RunStoreError({ message });
}

/** Checks a host-chosen identifier: a non-empty, well-formed string without NUL. */
export function identifier(what: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0)
    refuse(`${what} must be a non-empty string, got ${describe(value)}.`);
  if (value.includes('\u0000') || loneSurrogate.test(value))
    refuse(`${what} must be well-formed text without NUL characters (PostgreSQL text cannot hold them).`);
  return value;
}

/** Checks an integer in `[min, max]`. */
export function integer(what: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    refuse(`${what} must be an integer from ${min} to ${max}, got ${describe(value)}.`);
  return value;
}

/** A journal sequence number: 1, 2, … within PostgreSQL's `integer`. */
export function sequence(value: unknown): number {
  return integer('seq', value, 1, 2 ** 31 - 1);
}

/** The JSON text of `value`, exactly as JSON.stringify writes it. */
export function jsonText(what: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new RunStoreError({ message: `${what} must be a JSON value; JSON.stringify threw.`, cause: error });
  }
  if (typeof text !== 'string') refuse(`${what} must be a JSON value, got ${describe(value)}.`);
  return text;
}

/** Free text stored as a JSON string literal. */
export function freeText(what: string, value: unknown): string {
  if (typeof value !== 'string') refuse(`${what} must be a string, got ${describe(value)}.`);
  return JSON.stringify(value);
}

/** Reads back a `jsonText` or `freeText` column. */
export function parseText<Value = JsonValue>(text: string): Value {
  return JSON.parse(text) as Value;
}

export function runStatus(value: unknown): RunStatus {
  if (value !== 'running' && value !== 'paused' && value !== 'finished')
    refuse(`status must be 'running', 'paused' or 'finished', got ${describe(value)}.`);
  return value;
}

/** The decision as stored: only `decision`, for a denial `reason`, and `by` when given. */
export function decisionText(value: unknown): string {
  const decision = (value as { decision?: unknown } | null)?.decision;
  if (decision !== 'allow' && decision !== 'deny')
    refuse(`decision must be { decision: 'allow', by? } or { decision: 'deny', reason?, by? }.`);
  const { reason, by } = value as { reason?: unknown; by?: unknown };
  if (by !== undefined && typeof by !== 'string') refuse(`a decision's by must be a string, got ${describe(by)}.`);
  const who = by === undefined ? {} : { by };
  if (decision === 'allow' || reason === undefined) return JSON.stringify({ decision, ...who });
  if (typeof reason !== 'string') refuse(`a denial's reason must be a string, got ${describe(reason)}.`);
  return JSON.stringify({ decision, reason, ...who });
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 40 ? 'a long string' : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  return Array.isArray(value) ? 'an array' : `a value of type ${typeof value}`;
}

/** A timestamp or other bigint column: a number from PGlite, a string from node-postgres. */
function milliseconds(value: unknown): number {
  return Number(value);
}

function optional(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : milliseconds(value);
}

export interface RunRow {
  run_id: string;
  conversation: string | null;
  program: string;
  language: string;
  seed: number | string;
  start_time: number | string;
  fingerprint: string;
  metadata: string | null;
  status: RunStatus;
  outcome: string | null;
  outcome_kind?: string | null;
  owner: string | null;
  lease_expires_at: number | string | null;
  fence: number | string;
  created_at: number | string;
  updated_at: number | string;
}

export function runRecord(row: RunRow): RunRecord {
  const start: StartRecord = {
    runId: row.run_id,
    ...(row.conversation === null ? {} : { conversation: row.conversation }),
    program: parseText<string>(row.program),
    language: row.language,
    seed: milliseconds(row.seed),
    startTime: milliseconds(row.start_time),
    fingerprint: row.fingerprint,
    ...(row.metadata === null ? {} : { metadata: parseText(row.metadata) }),
  };
  return {
    start,
    status: row.status,
    ...(row.outcome === null ? {} : { outcome: parseText(row.outcome) }),
    ...(row.outcome_kind === null || row.outcome_kind === undefined ? {} : { outcomeKind: row.outcome_kind }),
    ...(row.owner === null ? {} : { owner: row.owner, leaseExpiresAt: optional(row.lease_expires_at) }),
    fence: Number(row.fence),
    createdAt: milliseconds(row.created_at),
    updatedAt: milliseconds(row.updated_at),
  };
}

export interface JournalRow {
  seq: number;
  namespace: string;
  name: string;
  input: string;
  positional: string | null;
  intent_at: number | string;
  outcome_ok: boolean | null;
  outcome_value: string | null;
  outcome_message: string | null;
  outcome_at: number | string | null;
}

export function journalEntry(row: JournalRow): JournalEntry {
  const intent: JournalIntent = {
    namespace: parseText<string>(row.namespace),
    name: parseText<string>(row.name),
    input: parseText(row.input),
    ...(row.positional === null ? {} : { positional: parseText<JsonValue[]>(row.positional) }),
  };
  let outcome: JournalOutcome | undefined;
  if (row.outcome_ok === true) outcome = { ok: true, value: parseText(row.outcome_value ?? 'null') };
  else if (row.outcome_ok === false) outcome = { ok: false, message: parseText<string>(row.outcome_message ?? '""') };
  return {
    seq: Number(row.seq),
    intent,
    intentAt: milliseconds(row.intent_at),
    ...(outcome === undefined ? {} : { outcome, outcomeAt: optional(row.outcome_at) }),
  };
}

export interface PauseRow {
  token: string;
  run_id: string;
  seq: number;
  tool: string;
  input: string;
  reason: string;
  created_at: number | string;
  expires_at: number | string;
  decision: string | null;
  started_at: number | string | null;
}

export function pauseRecord(row: PauseRow): PauseRecord {
  return {
    token: row.token,
    runId: row.run_id,
    seq: Number(row.seq),
    tool: parseText<string>(row.tool),
    input: parseText(row.input),
    reason: parseText<string>(row.reason),
    createdAt: milliseconds(row.created_at),
    expiresAt: milliseconds(row.expires_at),
    ...(row.decision === null ? {} : { decision: parseText<PauseDecision>(row.decision) }),
    ...(row.started_at === null ? {} : { startedAt: milliseconds(row.started_at) }),
  };
}
