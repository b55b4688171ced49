import { foreignText, type JsonValue } from '@sluice/code-runtime';
import type { MatchedRule } from './policy-evaluate.js';

/** What the approval callback is asked about: one call, with its real arguments. */
export interface ApprovalRequest {
  /** The tool's name, as policies match it. */
  readonly tool: string;
  /** How the program called it: `namespace.name`. */
  readonly binding: string;
  /** The arguments the tool will receive if allowed (a copy: changing it changes nothing). */
  readonly arguments: JsonValue;
  readonly runId: string;
  readonly callId: string;
  /** The `ask` rule that matched; absent when the policy's default is `ask`. */
  readonly rule?: MatchedRule;
  /** Aborted once the answer is no longer wanted: it came, time ran out, or the run ended. */
  readonly signal: AbortSignal;
}

/** The approval callback's answer: allow this one call, or deny it with a reason the model reads. */
export type ApprovalAnswer = { readonly decision: 'allow' } | { readonly decision: 'deny'; readonly reason?: string };

/** Decides an `ask`. Resolving late, throwing or answering anything but an {@link ApprovalAnswer} is a denial. */
export type ApprovalCallback = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;

/**
 * How an approval ended. `timeout`: no answer within the configured time. `aborted`: the run ended
 * first. `error`: the callback threw, rejected or answered something malformed. `unavailable`: no
 * callback was configured.
 */
export type ApprovalOutcome = 'allow' | 'deny' | 'timeout' | 'aborted' | 'error' | 'unavailable';

/** The approval part of an audit event. */
export interface ApprovalRecord {
  readonly outcome: ApprovalOutcome;
  /** The denial's reason, or for `error` what went wrong (for the audit log, not the model). */
  readonly reason?: string;
  /** Milliseconds spent waiting for the answer. */
  readonly ms: number;
}

/** @internal Asks `approve` about one call; always resolves, with a denial for anything but a timely `allow`. */
export function requestApproval(
  approve: ApprovalCallback | undefined,
  request: Omit<ApprovalRequest, 'signal'>,
  runSignal: AbortSignal,
  timeoutMs: number,
): Promise<ApprovalRecord> {
  const started = performance.now();
  if (approve === undefined) return Promise.resolve({ outcome: 'unavailable', ms: 0 });
  if (runSignal.aborted) return Promise.resolve({ outcome: 'aborted', ms: 0 });
  const controller = new AbortController();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: ApprovalOutcome, reason?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      runSignal.removeEventListener('abort', onAbort);
      controller.abort();
      const ms = Math.round((performance.now() - started) * 1000) / 1000;
      resolve(reason === undefined ? { outcome, ms } : { outcome, reason, ms });
    };
    const onAbort = (): void => finish('aborted');
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    runSignal.addEventListener('abort', onAbort, { once: true });
    let answer: unknown;
    try {
      answer = approve({ ...request, signal: controller.signal });
    } catch (error) {
      finish('error', `the approval callback threw: ${errorText(error)}`);
      return;
    }
    Promise.resolve(answer).then(
      (value) => {
        const read = readAnswer(value);
        if (read === undefined) {
          finish('error', 'the approval callback answered something other than { decision: "allow" | "deny" }');
        } else {
          finish(read.decision, read.reason);
        }
      },
      (error: unknown) => finish('error', `the approval callback rejected: ${errorText(error)}`),
    );
  });
}

function readAnswer(value: unknown): { decision: 'allow' | 'deny'; reason?: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { decision, reason } = value as { decision?: unknown; reason?: unknown };
  if (decision === 'allow') return { decision };
  if (decision !== 'deny') return undefined;
  return typeof reason === 'string' && reason !== '' ? { decision, reason } : { decision };
}

function errorText(error: unknown): string {
  return foreignText(error, 1024);
}
