import type { CliCommand } from './cli-arguments.js';
import { createBudgetedRuntime } from './cli-budgets.js';
import {
  openRunStore,
  pauseLines,
  requireDeterminism,
  resumeOptions,
  storedWaitingCall,
  withRunStore,
} from './cli-durable.js';
import { type CliIo, exitPaused } from './cli-io.js';
import { OutcomePrinter } from './cli-outcome.js';
import { runtimeLines } from './cli-report.js';
import { buildRunCodeTool, HeldRun, loadToolsAndPolicy } from './cli-run.js';

/** Options of `sluice resume`, as parsed: paths are relative to the `cwd` of the {@link CliIo}. */
export type ResumeCommandOptions = Omit<Extract<CliCommand, { readonly command: 'resume' }>, 'command'>;

/**
 * `sluice resume`: gives a paused durable run its decision, or continues a run whose host stopped,
 * by replay on the provider the run started on (QuickJS unless `--runtime` says otherwise), and
 * prints it as `sluice run` does. Resolves with the exit code.
 */
export async function resumeCommand(options: ResumeCommandOptions, io: CliIo, signal?: AbortSignal): Promise<number> {
  const runtimeName = options.runtime ?? 'quickjs';
  const runtime = createBudgetedRuntime('typescript', options.budgets, runtimeName);
  const held = new HeldRun(runtime, io, options.verbosity);
  try {
    requireDeterminism(runtime);
    if (options.verbosity === 'verbose') io.stderr.write(runtimeLines(runtime));
    const { tools, policy } = await loadToolsAndPolicy(options, io);
    const store = held.holdStore(openRunStore(options.runStore, io.cwd));
    const tool = held.holdTool(buildRunCodeTool(held.ctx, tools, policy, { store }));
    const again = resumeOptions({ ...options, runtime: runtimeName });
    const { run, token, decision } = options;
    if (run !== undefined) {
      // A run that waits for a person is answered with its token, which the person may have lost.
      const waiting = await withRunStore(options.runStore, () => storedWaitingCall(store, run));
      if (waiting !== undefined) {
        io.stderr.write(pauseLines(waiting, again));
        return exitPaused;
      }
    }
    const printer = new OutcomePrinter(io, held.progress, options);
    const runOptions = { onEvent: printer.onEvent, ...(signal === undefined ? {} : { signal }) };
    const outcome = await withRunStore(options.runStore, () =>
      token !== undefined && decision !== undefined
        ? tool.decide(token, decision, runOptions)
        : tool.resume(run as string, runOptions),
    );
    return printer.print(outcome, again);
  } finally {
    await held.release();
  }
}
