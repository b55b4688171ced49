import { InvalidSettingsError, type JsonValue } from '@sluice/code-runtime';
import type { ApprovalRecord } from './approval.js';
import type { PolicyEffect } from './policy-definition.js';
import type { MatchedRule } from './policy-evaluate.js';

/** What stopped a call: a `deny` rule, the policy's default, the approver, invalid input, or a policy that could not be read. */
export type DenialCause = 'rule' | 'default' | 'approval' | 'validation' | 'policy-error';

/** One decision about one call, made when the program made it. JSON-serialisable as it stands. */
export interface PermissionDecision {
  /** When the call arrived, ISO 8601. */
  readonly time: string;
  readonly runId: string;
  readonly callId: string;
  /** The tool's name, as policies match it. */
  readonly tool: string;
  /** How the program called it: `namespace.name`. */
  readonly binding: string;
  /** The arguments the program passed (a copy taken when the call arrived). */
  readonly arguments: JsonValue;
  /** `allow`: `execute` was invoked. `deny`: it was not, and the program got an error. */
  readonly decision: 'allow' | 'deny';
  /** Why the call was denied; absent when allowed. */
  readonly deniedBy?: DenialCause;
  /** What the policy said; absent only when the policy could not be read. */
  readonly effect?: PolicyEffect;
  /** The rule that matched; absent when the policy's default applied (or no policy could be read). */
  readonly rule?: MatchedRule;
  /** Present when the policy said `ask`. */
  readonly approval?: ApprovalRecord;
  /** The error message the program received, when denied. */
  readonly message?: string;
  /** Milliseconds from the call's arrival to the decision, approval wait included. */
  readonly ms: number;
}

/** Options for {@link createAuditLog}. */
export interface AuditLogOptions {
  /** The most decisions kept; older ones are dropped first and counted. Default 10,000. */
  readonly limit?: number;
}

/** A log of decisions a caller can store: pass `record` as `onDecision`, read `entries` or `JSON.stringify` it. */
export interface AuditLog {
  /** Appends a decision; pass it as `onDecision` (it is bound). */
  readonly record: (decision: PermissionDecision) => void;
  /** The decisions kept, oldest first. */
  entries(): readonly PermissionDecision[];
  /** How many decisions were dropped to stay within `limit`. */
  readonly dropped: number;
  /** Empties the log and resets `dropped`. */
  clear(): void;
  /** `{ entries, dropped }`, so `JSON.stringify(log)` stores the whole log. */
  toJSON(): { entries: readonly PermissionDecision[]; dropped: number };
}

/** Creates an in-memory {@link AuditLog}. Throws {@link InvalidSettingsError} for a `limit` that is not a positive integer. */
export function createAuditLog(options: AuditLogOptions = {}): AuditLog {
  const limit = options.limit ?? 10_000;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new InvalidSettingsError({
      message: `Audit log limit must be a positive integer, got ${String(limit)}.`,
      setting: 'limit',
    });
  }
  let kept: PermissionDecision[] = [];
  let dropped = 0;
  return {
    record: (decision) => {
      kept.push(decision);
      if (kept.length > limit) {
        kept.shift();
        dropped += 1;
      }
    },
    entries: () => [...kept],
    get dropped() {
      return dropped;
    },
    clear: () => {
      kept = [];
      dropped = 0;
    },
    toJSON: () => ({ entries: [...kept], dropped }),
  };
}
