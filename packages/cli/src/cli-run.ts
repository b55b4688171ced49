import { randomUUID } from 'node:crypto';
import { createRunCodeTool, type RunCodeDurableOptions } from '@sluice/code-mode';
import { type CodeRuntime, InvalidRequestError, InvalidSettingsError } from '@sluice/code-runtime';
import { createContext } from '@sluice/context';
import type { Policy, PolicyDefinition, Tool } from '@sluice/permissions';
import type { RunStore } from '@sluice/run-store';
import type { Verbosity } from './cli-arguments.js';
import { openRunStore, requireDeterminism, resumeOptions, withRunStore } from './cli-durable.js';
import { failureHints, policyNameWarnings } from './cli-hints.js';
import { loadPolicy } from './cli-inputs.js';
import { type CliIo, UsageError } from './cli-io.js';
import { OutcomePrinter } from './cli-outcome.js';
import { ProgressLine } from './cli-progress.js';
import type { RunCommandOptions } from './cli-run-command.js';
import { loadToolsModule } from './cli-tools-module.js';

/** Without `--policy`, every tool in the module is allowed: the operator chose them by naming the module. */
export const allowEverything: PolicyDefinition = { default: 'allow', rules: [] };

/**
 * The rest of `sluice run` once its runtime is made and starting and the program (`code`) is read
 * (see cli-run-command.ts): reads the tools, runs the program and prints what happened. Resolves
 * with the exit code; disposes `runtime` whatever happens.
 */
export async function runProgram(
  runtime: CodeRuntime,
  options: RunCommandOptions,
  code: string,
  io: CliIo,
  signal?: AbortSignal,
): Promise<number> {
  const held = new HeldRun(runtime, io, options.verbosity);
  try {
    if (options.runStore !== undefined) requireDeterminism(runtime);
    const { tools, policy } = await loadToolsAndPolicy(options, io);
    const location = options.runStore;
    const store = location === undefined ? undefined : held.holdStore(openRunStore(location, io.cwd));
    const runCode = held.holdTool(
      buildRunCodeTool(
        held.ctx,
        tools,
        policy,
        store === undefined
          ? undefined
          : { store, ...(options.conversation === undefined ? {} : { conversation: options.conversation }) },
      ),
    );
    const printer = new OutcomePrinter(io, held.progress, options);
    if (location === undefined) {
      const runOptions = { onEvent: printer.onEvent, ...(signal === undefined ? {} : { signal }) };
      const outcome = await runCode.run({ code }, runOptions);
      const exit = printer.print(outcome);
      if (outcome.result?.ok === false) io.stderr.write(failureHints(outcome.result.failure, options, code));
      return exit;
    }
    // Chosen here, not by the store, so a run whose host dies can be found: `sluice resume --run <id>`.
    const runId = `durable_${randomUUID()}`;
    if (options.verbosity !== 'quiet') io.stderr.write(`sluice: durable run ${runId} in ${location}\n`);
    const outcome = await stopOnSignal(runCode, signal, () =>
      withRunStore(location, () => runCode.run({ code }, { onEvent: printer.onEvent, runId })),
    );
    return printer.print(outcome, resumeOptions({ ...options, runStore: location }));
  } finally {
    await held.release();
  }
}

/**
 * Runs `work`, a durable run of `runCode`; a signal (SIGTERM, Ctrl-C) lets the run go unfinished
 * and resumable rather than cancelling it: it ends as `stopped`, with nothing lost.
 */
export async function stopOnSignal<T>(
  runCode: { close(): Promise<void> },
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const stop = () => {
    runCode.close().catch(() => {});
  };
  signal?.addEventListener('abort', stop, { once: true });
  try {
    if (signal?.aborted === true) stop();
    return await work();
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

/** What a command holds while its run goes: the runtime in a context, the progress line, the tool and the store. */
export class HeldRun {
  readonly ctx = createContext();
  readonly #progressStream: CliIo['stderr'];
  #progress: ProgressLine | undefined;
  #tool: { dispose(): void } | undefined;
  #store: RunStore | undefined;

  constructor(runtime: CodeRuntime, io: CliIo, verbosity: Verbosity) {
    this.ctx.provide('codeRuntime', runtime);
    this.#progressStream = verbosity === 'quiet' ? { write: () => {} } : io.stderr;
  }

  /** The progress line, started when first asked for: after the program is read, so not while stdin waits. */
  get progress(): ProgressLine {
    this.#progress ??= new ProgressLine(this.#progressStream);
    return this.#progress;
  }

  holdTool<T extends { dispose(): void }>(tool: T): T {
    this.#tool = tool;
    return tool;
  }

  holdStore(store: RunStore): RunStore {
    this.#store = store;
    return store;
  }

  /** Lets go of everything, in order; call it once, in `finally`. */
  async release(): Promise<void> {
    this.#progress?.stop();
    // The full text of a cut result is of no use once the command ends: nothing is left in the temp folder.
    this.#tool?.dispose();
    // Disposing kills the sandbox: a cancelled run leaves no worker or child behind.
    await this.ctx.dispose();
    await this.#store?.close();
  }
}

/** The tools module and the policy file the options name (no tools, and allow everything, when absent). */
export async function loadToolsAndPolicy(
  options: { readonly tools: string | undefined; readonly policy: string | undefined },
  io: CliIo,
): Promise<{ tools: Tool[]; policy: Policy | PolicyDefinition }> {
  const tools = options.tools === undefined ? [] : await loadToolsModule(options.tools, io.cwd);
  const policy = options.policy === undefined ? allowEverything : loadPolicy(options.policy, io.cwd);
  if (options.tools !== undefined && options.policy !== undefined) {
    const names = tools.map((tool) => tool.name);
    io.stderr.write(policyNameWarnings(policy, names, { policy: options.policy, tools: options.tools }));
  }
  return { tools, policy };
}

/** The `run_code` tool over these tools; a tool set or policy code mode refuses is a {@link UsageError}. */
export function buildRunCodeTool(
  ctx: ReturnType<typeof createContext>,
  tools: Tool[],
  policy: Policy | PolicyDefinition,
  durable?: RunCodeDurableOptions,
): ReturnType<typeof createRunCodeTool> {
  try {
    return createRunCodeTool({ context: ctx, tools, policy, ...(durable === undefined ? {} : { durable }) });
  } catch (error) {
    if (InvalidRequestError.isInstance(error) || InvalidSettingsError.isInstance(error)) {
      throw new UsageError(error.message);
    }
    throw error;
  }
}
