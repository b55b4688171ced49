import type { ThrownDescription } from './worker-thread-compile.js';
import { isReportedViolation, rebuildViolation } from './worker-thread-violation.js';

/** A host call the program made, decoded from its outbox entry. */
export interface PendingCall {
  readonly callId: number;
  readonly namespace: string;
  readonly name: string;
  /** The argument as a host value: parsed JSON, or a rebuilt value with the program's JSON violation. */
  readonly input: unknown;
  /** The program called positionally: `input` is the array of its arguments. */
  readonly positional: boolean;
}

/** How the program said it ended. */
export type RunEnding =
  | { readonly kind: 'none' }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'error'; readonly thrown: ThrownDescription };

/** Decodes a host call the worker process relayed, or says what is wrong with it. */
export function parseCall(
  callId: unknown,
  namespace: unknown,
  name: unknown,
  encoded: unknown,
  positional: unknown,
): PendingCall | string {
  if (
    !Number.isSafeInteger(callId) ||
    typeof namespace !== 'string' ||
    typeof name !== 'string' ||
    typeof positional !== 'boolean'
  ) {
    return 'a malformed host call';
  }
  const input = typeof encoded === 'string' ? decodeValue(encoded) : invalid;
  if (input === invalid) return 'a host-call argument that cannot be decoded';
  // A positional call whose arguments broke JSON goes as one value: the host refuses it, naming the path.
  return { callId: callId as number, namespace, name, input, positional: positional && (encoded as string)[0] === 'T' };
}

/** Decodes how the program ended (the prelude's `done` entry: a kind and a payload), or says what is wrong with it. */
export function parseEnding(kind: unknown, payload: unknown): RunEnding | string {
  if (kind === 'none') return { kind: 'none' };
  if (kind === 'value' && payload === 'L') return { kind: 'too-large' };
  if (kind === 'value' && typeof payload === 'string') {
    const value = decodeValue(payload);
    return value === invalid ? 'a result that cannot be decoded' : { kind: 'value', value };
  }
  if (kind === 'error' && isThrown(payload)) return { kind: 'error', thrown: payload };
  return 'a malformed end of the run';
}

const invalid = Symbol('invalid');

/** Decodes the prelude's `T<json>` / `V<violation>` encoding into a host value, or {@link invalid}. */
function decodeValue(encoded: string): unknown {
  try {
    if (encoded[0] === 'T') return JSON.parse(encoded.slice(1));
    if (encoded[0] === 'V') {
      const violation: unknown = JSON.parse(encoded.slice(1));
      return isReportedViolation(violation) ? rebuildViolation(violation) : invalid;
    }
  } catch {
    // Falls through: not decodable.
  }
  return invalid;
}

function isThrown(value: unknown): value is ThrownDescription {
  if (typeof value !== 'object' || value === null) return false;
  const { name, message, stack } = value as Record<string, unknown>;
  return (
    typeof message === 'string' &&
    (name === undefined || typeof name === 'string') &&
    (stack === undefined || typeof stack === 'string')
  );
}
