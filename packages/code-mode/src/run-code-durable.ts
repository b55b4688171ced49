import { type CodeRuntime, cutUtf8, InvalidSettingsError, wellFormedText } from '@sluice/code-runtime';
import type { DurableOutcome } from '@sluice/durable';
import type { RunStore } from '@sluice/run-store';
import { logsSection, type RenderedSections, usageFacts } from './result-render.js';

/** The `durable` option of `createRunCodeTool`: runs journaled to a store, replayed to resume them. */
export interface RunCodeDurableOptions {
  /** Where start records, journals, pauses and stored values live (`@sluice/run-store`). */
  readonly store: RunStore;
  /**
   * The conversation whose values `sluice.load` reads and a successful run's `sluice.store` writes.
   * Without it the two refuse, and the description does not mention them.
   */
  readonly conversation?: string;
  /** How long a paused call can be decided, in ms. Default 7 days. */
  readonly pauseTtlMs?: number;
  /** How long this host holds a run without renewing its lease, in ms. Default 30 000. */
  readonly leaseMs?: number;
}

/** The most of a paused call's arguments the model is shown, in UTF-8 bytes. */
const shownInputBytes = 1024;
/** The most of a pause's reason the model is shown, in UTF-8 bytes. */
const shownReasonBytes = 400;

/**
 * Checks the `durable` option when the tool is made: a store, and a runtime that can replay. Throws
 * `InvalidSettingsError` naming the providers that publish `determinism` today (QuickJS, worker-thread).
 */
export function checkDurableOptions(durable: RunCodeDurableOptions, runtime: CodeRuntime): void {
  if (typeof durable !== 'object' || durable === null || typeof durable.store?.createRun !== 'function') {
    throw new InvalidSettingsError({
      message: 'durable needs { store } with a RunStore from @sluice/run-store, such as createPGliteRunStore().',
      setting: 'durable',
    });
  }
  if (durable.conversation !== undefined && (typeof durable.conversation !== 'string' || durable.conversation === '')) {
    throw new InvalidSettingsError({
      message: 'durable.conversation must be a non-empty string when given.',
      setting: 'durable.conversation',
    });
  }
  if (runtime.determinism === undefined) {
    throw new InvalidSettingsError({
      message: `Durable runs are replayed, and the ${runtime.id} code runtime cannot run a program deterministically. Provide a runtime that publishes \`determinism\`, such as createQuickJsCodeRuntime() from @sluice/code-runtime-quickjs (or the worker-thread or python provider).`,
      setting: 'durable',
    });
  }
}

/**
 * The text the model reads for a durable run that did not finish: a paused run says which call
 * waits for a person and why, that the run continues on its own, and what it logged so far; a
 * diverged run is a failure. Never the pause token: the model must not approve its own call.
 * `undefined` for a finished run, rendered as any other result.
 */
export function durableSections(outcome: DurableOutcome): RenderedSections | undefined {
  const { result } = outcome;
  if (outcome.status === 'finished') return undefined;
  if (outcome.status === 'paused') {
    const { pause } = outcome;
    const call = `${pause.binding}(${cutUtf8(JSON.stringify(pause.input), shownInputBytes)})`;
    const reason = cutUtf8(pause.reason, shownReasonBytes).replace(/[.\s]+$/, '');
    const logLines = `${result.logs.length} log line${result.logs.length === 1 ? '' : 's'}`;
    const notice = [
      `The program is waiting for a person to approve ${call}: ${reason}.`,
      'The run continues on its own once they decide, from where it stopped, and its result comes to you then; a denial reaches the program as an error from that call. Do not run the program again: that would repeat its calls.',
    ].join('\n');
    return {
      header: `[run_code] paused: waiting for approval · ${Math.round(result.usage.wallMs)} ms so far · ${logLines}`,
      body: wellFormedText(`${notice}\n${logsSection(result.logs, result.logsTruncated, 'logs so far')}\n`),
    };
  }
  if (outcome.status === 'stopped') {
    const notice =
      outcome.reason === 'host-stopped'
        ? 'The host running this program stopped before it ended. The run is kept: it continues from where it stopped when the host is back, and its result comes to you then. Do not run the program again: that would repeat its calls.'
        : 'The run moved to another host, which continues it from where it stopped; its result comes from there. Do not run the program again: that would repeat its calls.';
    return {
      header: `[run_code] stopped: the run continues later · ${usageFacts(result)}`,
      body: wellFormedText(`${notice}\n${logsSection(result.logs, result.logsTruncated, 'logs so far')}\n`),
    };
  }
  const notice = [
    `The run was continued from what it had recorded, and stopped. ${outcome.message}`,
    'Its recorded calls were not made again: check what they did before running the program again.',
  ].join('\n');
  return {
    header: `[run_code] failed: diverged · ${usageFacts(result)}`,
    body: wellFormedText(`${notice}\n${logsSection(result.logs, result.logsTruncated)}\n`),
  };
}
