import type { RunCodeOutcome, RunCodeStructuredResult } from '@sluice/code-mode';
import { cutUtf8, type JsonObject, wellFormedText } from '@sluice/code-runtime';

/** The most of a pause's reason the data carries, in UTF-8 bytes (the text shows as much). */
const reasonBytes = 400;

/**
 * `run_code`'s output schema with durable runs: `status` says how the run stands, `runId` is the
 * id `resume_run` takes, and a paused run names the call that waits (never its pause token).
 */
export function durableOutputSchema(base: JsonObject): JsonObject {
  const properties = (base.properties ?? {}) as JsonObject;
  return {
    ...base,
    properties: {
      ...properties,
      runId: { type: 'string', description: 'The durable run id: resume_run takes it.' },
      status: {
        type: 'string',
        description:
          'How the durable run stands: finished (it ended, see ok); paused (a call waits for a person to approve it: continue with resume_run); diverged (a continued run took another path than it recorded); stopped (it was let go unfinished: resume_run continues it).',
      },
      pause: {
        type: 'object',
        description: 'The call a paused run waits on.',
        properties: {
          tool: { type: 'string', description: 'The tool as the program called it (namespace.name).' },
          reason: { type: 'string', description: "The policy rule's description." },
          expiresAt: { type: 'string', description: 'When the approval can no longer be given (ISO 8601).' },
        },
        required: ['tool', 'reason', 'expiresAt'],
      },
    },
  };
}

/** A durable run's structured result for the MCP client: {@link durableOutputSchema}'s shape. */
export type DurableStructuredResult = RunCodeStructuredResult & {
  readonly status: NonNullable<RunCodeOutcome['durable']>['status'];
  readonly pause?: { readonly tool: string; readonly reason: string; readonly expiresAt: string };
};

/**
 * The structured result of `outcome`, with how a durable run stands: its status and the durable run
 * id (the runtime's own id names one execution, which `resume_run` does not take). A paused run is
 * no failure: the runtime's `abort` that stopped it at the pause is left out.
 */
export function durableStructured(
  outcome: RunCodeOutcome,
): RunCodeStructuredResult | DurableStructuredResult | undefined {
  const { structured, durable } = outcome;
  if (structured === undefined || durable === undefined) return structured;
  if (durable.status !== 'paused') return { ...structured, runId: durable.runId, status: durable.status };
  const { failure: _stoppedAtThePause, ...rest } = structured;
  const { pause } = durable;
  return {
    ...rest,
    runId: durable.runId,
    status: 'paused',
    pause: {
      tool: pause.binding,
      reason: wellFormedText(cutUtf8(pause.reason, reasonBytes)),
      expiresAt: new Date(pause.expiresAt).toISOString(),
    },
  };
}
