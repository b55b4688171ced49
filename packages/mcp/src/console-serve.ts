import { foreignText } from '@sluice/code-runtime';
import type { PauseDecision, PauseRecord, RunRecord } from '@sluice/run-store';
import type { Router } from 'express';
import type { ConsoleSession } from './console-auth.js';
import { type ContinueResult, createConsoleRouter } from './console-router.js';
import type { FairShare } from './mcp-fair-share.js';
import { createServeTokenVerifier } from './mcp-http-auth.js';
import type { ReplyRouter } from './mcp-http-sessions.js';
import type { ServeSettings } from './mcp-serve-config.js';
import type { McpService } from './mcp-service.js';

/** Where `sluice serve` mounts the console. */
export const consolePath = '/console';

/** What the console of `sluice serve` needs from the server. */
export interface ServeConsoleOptions {
  readonly settings: ServeSettings;
  readonly service: McpService;
  readonly share: FairShare;
  /** The elicitations this replica waits on: a decision about one of them answers it. */
  readonly replies: ReplyRouter;
  /**
   * Aborted when the server starts to close: a run continuing in the background stops waiting for a
   * place and is let go, resumable, as the runs of requests are.
   */
  readonly stopping: AbortSignal;
  readonly log: (line: string) => void;
}

/**
 * The console of `sluice serve` ({@link createConsoleRouter}), behind the same authentication as
 * `/mcp`. A decision made in it continues the run: a client's elicitation about that call waiting on
 * this replica is answered (its request goes on with the run); otherwise the run continues here in
 * the background with the principal's catalog, holding a place of the principal's share. A replica
 * watching the pause for its client continues it as well: the run's lease lets one execution run
 * at a time and the approved call is started once (`startPausedCall`), so the call runs once.
 */
export function serveConsole(options: ServeConsoleOptions): Router {
  const { settings, service, share, replies, stopping, log } = options;
  const configured = service.config.durable?.conversation;
  const principalOf = (conversation: string | undefined): string | undefined => {
    if (conversation === undefined || !conversation.startsWith('principal:')) return undefined;
    const rest = conversation.slice('principal:'.length);
    if (configured === undefined) return rest;
    const suffix = `/${configured}`;
    return rest.endsWith(suffix) ? rest.slice(0, -suffix.length) : undefined;
  };
  const limits = service.runtime.limits;
  const budgets: Record<string, string> = {};
  if (limits !== undefined) {
    budgets['Wall time'] = `${limits.wallTimeMs} ms`;
    if (limits.cpuTimeMs !== undefined) budgets['CPU time'] = `${limits.cpuTimeMs} ms`;
    if (limits.memoryBytes !== undefined) budgets.Memory = `${limits.memoryBytes} bytes`;
    budgets['Host calls'] = String(limits.hostCalls);
    budgets.Logs = `${limits.logBytes} bytes`;
    budgets.Value = `${limits.valueBytes} bytes`;
  }

  const continueInBackground = async (
    principal: string,
    scopes: readonly string[],
    pause: PauseRecord,
    decision: PauseDecision,
  ) => {
    const place = await share.admit(principal, stopping, { queueAlways: true });
    if (stopping.aborted) {
      log(`console: run ${pause.runId} was decided as the server closed; resume_run continues it`);
      return;
    }
    if ('busy' in place) {
      log(
        `console: run ${pause.runId} was decided but ${principal}'s share of this replica is full; resume_run continues it`,
      );
      return;
    }
    try {
      const catalog = await service.catalog({ principal, scopes });
      const outcome = await catalog.runCode.decide(
        pause.token,
        decision.decision === 'allow'
          ? { decision: 'allow' }
          : { decision: 'deny', ...(decision.reason === undefined ? {} : { reason: decision.reason }) },
        { detach: stopping },
      );
      log(`console: run ${pause.runId} continued after the decision: ${outcome.durable?.status ?? 'not durable'}`);
    } finally {
      place.release();
    }
  };

  return createConsoleRouter({
    store: () => service.store,
    base: consolePath,
    sessionSecret: settings.sessionSecret,
    verifier: settings.auth.none ? undefined : createServeTokenVerifier(settings, log),
    ...(settings.auth.oauth === undefined ? {} : { requiredScopes: settings.auth.oauth.requiredScopes }),
    secure: settings.publicUrl.startsWith('https:'),
    conversationOf: (principal) => service.conversationOf({ principal, scopes: [] }) ?? `principal:${principal}`,
    principalOf,
    budgets,
    log,
    continueRun(run: RunRecord, pause: PauseRecord, decision: PauseDecision, decider: ConsoleSession): ContinueResult {
      const principal = principalOf(run.start.conversation);
      if (principal === undefined) return 'recorded';
      if (replies.answerPause({ runId: pause.runId, seq: pause.seq }, principal, decision.decision === 'allow'))
        return 'answered';
      // The principal's own scopes when it decided; an operator deciding for another principal knows none of its scopes.
      const scopes = decider.principal === principal ? decider.scopes : [];
      continueInBackground(principal, scopes, pause, decision).catch((error: unknown) => {
        log(`console: run ${pause.runId} could not continue after the decision: ${foreignText(error, 2048)}`);
      });
      return 'continuing';
    },
  });
}
