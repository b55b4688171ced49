import { type RunCodeOutcome, summaryLine, usageFacts } from '@sluice/code-mode';
import type { CodeRunEvent, LogEntry } from '@sluice/code-runtime';
import type { Verbosity } from './cli-arguments.js';
import { notAppliedLines, pauseLines, stoppedLines, waitingCall } from './cli-durable.js';
import {
  type CliIo,
  exitDecisionNotApplied,
  exitPaused,
  exitProgramFailure,
  exitSuccess,
  UsageError,
} from './cli-io.js';
import type { ProgressLine } from './cli-progress.js';
import { callLines, describeFailure, roundedResult } from './cli-report.js';

/**
 * Prints a run for `sluice run` and `sluice resume`: its logs as they stream (`onEvent`), then the
 * value or the failure, or for a durable run that paused, what it waits for and how to continue it.
 */
export class OutcomePrinter {
  readonly #io: CliIo;
  readonly #progress: ProgressLine;
  readonly #options: { readonly json: boolean; readonly verbosity: Verbosity };
  #streamedLogs = 0;

  constructor(io: CliIo, progress: ProgressLine, options: { readonly json: boolean; readonly verbosity: Verbosity }) {
    this.#io = io;
    this.#progress = progress;
    this.#options = options;
  }

  /** Give it to the run: it counts host calls for the progress line and prints logs as they come. */
  readonly onEvent = (event: CodeRunEvent): void => {
    if (event.type === 'host-call-start') this.#progress.hostCall();
    if (event.type === 'log' && !this.#options.json) {
      this.#streamedLogs += 1;
      this.#printLog(event);
    }
  };

  /**
   * Prints how the run ended and resolves with the exit code. `again` are the `sluice resume`
   * options a paused or stopped durable run is continued with; `given`, the decision this command
   * gave, when it gave one.
   */
  print(outcome: RunCodeOutcome, again: readonly string[] = [], given?: { readonly decision: string }): number {
    this.#progress.stop();
    const { result, durable } = outcome;
    const { json, verbosity } = this.#options;
    const io = this.#io;
    if (result === undefined) throw new UsageError(outcome.rendered.text.replace(/^\[run_code\] not run: /, '').trim());
    // Another decision of the same token came first: this one changed nothing, and it says so.
    const overruled =
      given !== undefined &&
      durable?.decision?.applied === false &&
      durable.decision.decision.decision !== given.decision;
    if (overruled && durable?.decision !== undefined)
      io.stderr.write(notAppliedLines(given.decision, durable.decision.decision));
    // An outcome read back from the store (a token decided again) streamed nothing: its logs print now.
    if (!json) for (const entry of result.logs.slice(this.#streamedLogs)) this.#printLog(entry);
    if (json) {
      const rounded = roundedResult(result);
      io.stdout.write(
        `${JSON.stringify(durable === undefined ? rounded : { ...durable, result: rounded }, null, 2)}\n`,
      );
    } else if (durable?.status === 'paused') {
      io.stderr.write(pauseLines(waitingCall(outcome)!, again, io.invocation));
    } else if (durable?.status === 'diverged') {
      io.stderr.write(`sluice: the run was stopped: ${durable.message}\n`);
    } else if (durable?.status === 'stopped') {
      io.stderr.write(
        durable.reason === 'host-stopped'
          ? stoppedLines(durable.runId, again, io.invocation)
          : `sluice: ${durable.message}\n`,
      );
      return overruled ? exitDecisionNotApplied : exitProgramFailure;
    } else if (result.ok) {
      if (result.value !== undefined) io.stdout.write(`${JSON.stringify(result.value, null, 2)}\n`);
    } else {
      io.stderr.write(describeFailure(result.failure));
    }
    if (verbosity === 'verbose') io.stderr.write(callLines(result.calls));
    if (overruled) return exitDecisionNotApplied;
    if (durable?.status === 'paused') return exitPaused;
    if (!json && verbosity !== 'quiet') {
      const summary = durable?.status === 'diverged' ? `failed: diverged · ${usageFacts(result)}` : summaryLine(result);
      io.stderr.write(`sluice: ${summary}\n`);
    }
    return result.ok && durable?.status !== 'diverged' ? exitSuccess : exitProgramFailure;
  }

  #printLog(entry: LogEntry): void {
    const target = entry.level === 'warn' || entry.level === 'error' ? this.#io.stderr : this.#io.stdout;
    this.#progress.print(target, `${entry.text}\n`);
  }
}
