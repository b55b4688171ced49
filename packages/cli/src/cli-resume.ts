import type { CliCommand } from './cli-arguments.js';
import { createBudgetedRuntime } from './cli-budgets.js';
import {
  openRunStore,
  pauseLines,
  recordedRuntime,
  requireDeterminism,
  resumeOptions,
  storedWaitingCall,
  withRunStore,
} from './cli-durable.js';
import { type CliIo, exitPaused, UsageError } from './cli-io.js';
import { OutcomePrinter } from './cli-outcome.js';
import { runtimeLines } from './cli-report.js';
import { buildRunCodeTool, HeldRun, loadToolsAndPolicy, stopOnSignal } from './cli-run.js';

/** Options of `sluice resume`, as parsed: paths are relative to the `cwd` of the {@link CliIo}. */
export type ResumeCommandOptions = Omit<Extract<CliCommand, { readonly command: 'resume' }>, 'command'>;

/**
 * `sluice resume`: gives a paused durable run its decision, or continues a run whose host stopped,
 * by replay on the language and provider the run started on (read from the store; `--runtime`
 * overrides it for TypeScript), and prints it as `sluice run` does. Resolves with the exit code.
 */
export async function resumeCommand(options: ResumeCommandOptions, io: CliIo, signal?: AbortSignal): Promise<number> {
  const store = openRunStore(options.runStore, io.cwd);
  let held: HeldRun | undefined;
  try {
    const recorded = await withRunStore(options.runStore, () => recordedRuntime(store, options, options.runtime));
    if (recorded?.language === 'python' && options.runtime !== undefined) {
      throw new UsageError(`--runtime ${options.runtime} runs TypeScript; this run is a Python program.`, {
        commandLine: true,
      });
    }
    const language = recorded?.language ?? 'typescript';
    const runtimeName = language === 'python' ? undefined : (recorded?.runtime ?? options.runtime ?? 'quickjs');
    const runtime = await createBudgetedRuntime(language, options.budgets, runtimeName);
    // Started now, while the tools are loaded and the journal read, so the replay finds it ready.
    runtime.ready?.().catch(() => {});
    held = new HeldRun(runtime, io, options.verbosity);
    held.holdStore(store);
    requireDeterminism(runtime);
    if (options.verbosity === 'verbose') io.stderr.write(runtimeLines(runtime));
    const { tools, policy } = await loadToolsAndPolicy(options, io);
    const tool = held.holdTool(buildRunCodeTool(held.ctx, tools, policy, { store }));
    const again = resumeOptions(options);
    const { run, token, decision } = options;
    if (run !== undefined) {
      // A run that waits for a person is answered with its token, which the person may have lost.
      const waiting = await withRunStore(options.runStore, () => storedWaitingCall(store, run));
      if (waiting !== undefined) {
        io.stderr.write(pauseLines(waiting, again, io.invocation));
        return exitPaused;
      }
    }
    const printer = new OutcomePrinter(io, held.progress, options);
    const runOptions = { onEvent: printer.onEvent };
    const outcome = await stopOnSignal(tool, signal, () =>
      withRunStore(options.runStore, () =>
        token !== undefined && decision !== undefined
          ? tool.decide(token, decision, runOptions)
          : tool.resume(run as string, runOptions),
      ),
    );
    return printer.print(outcome, again, decision);
  } finally {
    if (held === undefined) await store.close();
    else await held.release();
  }
}
