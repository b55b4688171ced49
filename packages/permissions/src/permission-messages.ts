import type { ApprovalRecord } from './approval.js';
import type { PolicyVerdict } from './policy-evaluate.js';

const maxListed = 20;

/** @internal What a denied call needs to explain itself to the model. */
export interface DenialDetails {
  readonly binding: string;
  readonly cause: 'rule' | 'default' | 'approval' | 'policy-error';
  readonly verdict?: PolicyVerdict;
  readonly approval?: ApprovalRecord;
  readonly timeoutMs?: number;
  /** From {@link describeAvailable}. */
  readonly available?: string;
}

/** @internal The sentence naming what the program may call, for the end of a denial. */
export function describeAvailable(bindings: readonly string[]): string {
  if (bindings.length === 0) return 'No tools are available to this program.';
  const sorted = [...bindings].sort();
  const listed = sorted.slice(0, maxListed).join(', ');
  const more = sorted.length > maxListed ? ` and ${sorted.length - maxListed} more` : '';
  return `Tools available to this program: ${listed}${more}.`;
}

/** @internal The error message a denied call rejects with, written for the model. */
export function denialMessage(details: DenialDetails): string {
  const { binding, verdict, approval } = details;
  const available = details.available === undefined ? '' : ` ${details.available}`;
  switch (details.cause) {
    case 'policy-error':
      return `Permission denied: ${binding} was not called because the permission policy could not be read.`;
    case 'rule':
      return `Permission denied: ${binding} is not allowed: ${verdict?.reason ?? 'a policy rule forbids it'}.${available}`;
    case 'default': {
      const why = verdict?.reason ?? 'no policy rule allows it';
      const unmet = verdict?.unmet === undefined ? '' : ` (${verdict.unmet})`;
      return `Permission denied: ${binding} is not allowed: ${why}${unmet}.${available}`;
    }
    case 'approval':
      return `Permission denied: ${binding} ${approvalText(approval, details.timeoutMs)}.${available}`;
  }
}

function approvalText(approval: ApprovalRecord | undefined, timeoutMs: number | undefined): string {
  switch (approval?.outcome) {
    case 'deny':
      return `was not approved${approval.reason === undefined ? '' : `: ${approval.reason}`}`;
    case 'timeout':
      return `needs approval and none came within ${timeoutMs} ms`;
    case 'aborted':
      return 'needs approval and the run ended while waiting for it';
    case 'unavailable':
      return 'needs approval and no one is available to give it';
    default:
      return 'needs approval and the approval step failed';
  }
}

/** @internal The error message for input that fails the tool's `inputSchema`, naming each JSON path. */
export function invalidInputMessage(binding: string, problems: readonly string[]): string {
  return `Invalid input for ${binding}: ${problems.join('; ')}. Fix the argument and call it again.`;
}

/** @internal The error message for a tool result that fails its `outputSchema`. */
export function invalidOutputMessage(binding: string, problems: readonly string[]): string {
  return `${binding} returned a result that does not match its output schema: ${problems.join('; ')}.`;
}
