import { resolve } from 'node:path';
import type { RunCodeOutcome } from '@sluice/code-mode';
import type { CodeRuntimeLanguage } from '@sluice/code-runtime';
import { type CodeRuntime, cutUtf8, foreignText, InvalidSettingsError, wellFormedText } from '@sluice/code-runtime';
import { createPGliteRunStore, createPostgresRunStore, type RunStore, RunStoreError } from '@sluice/run-store';
import { type BudgetSettings, budgetFlags, type TypeScriptRuntimeName } from './cli-budgets.js';
import { UsageError } from './cli-io.js';

/** The most of a paused call's arguments printed, in UTF-8 bytes: enough for a person to judge it. */
const shownInputBytes = 64 * 1024;

/**
 * The store `--run-store` names: a `postgres://` (or `postgresql://`) URL is a PostgreSQL server;
 * anything else a directory, relative to `cwd`, for the embedded store. Nothing is opened yet.
 */
export function openRunStore(location: string, cwd: string): RunStore {
  try {
    return /^postgres(ql)?:\/\//i.test(location)
      ? createPostgresRunStore({ connectionString: location })
      : createPGliteRunStore({ dataDir: resolve(cwd, location) });
  } catch (error) {
    if (InvalidSettingsError.isInstance(error)) throw new UsageError(`Bad --run-store ${location}: ${error.message}`);
    throw error;
  }
}

/** Refuses `--run-store` over a runtime that cannot replay a program: durable runs are replayed. */
export function requireDeterminism(runtime: CodeRuntime): void {
  if (runtime.determinism !== undefined) return;
  throw new UsageError(
    `--run-store needs a runtime that replays a program exactly, and the ${runtime.id} runtime cannot: use --runtime worker-thread (the default for TypeScript), quickjs or python.`,
    { commandLine: true },
  );
}

/**
 * Runs `work` against the store at `location`, turning what the durable layer refuses (an unknown
 * or expired token, a run another host holds) and a store that cannot be used into a
 * {@link UsageError}, one sentence.
 */
export async function withRunStore<T>(location: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if ((error as { name?: unknown } | null)?.name === 'DurableRunError') {
      throw new UsageError(foreignText(error, 4096));
    }
    if (RunStoreError.isInstance(error) || typeof (error as { code?: unknown } | null)?.code === 'string') {
      throw new UsageError(`The run store ${location} could not be used: ${foreignText(error, 4096)}`);
    }
    throw error;
  }
}

/**
 * The language and provider a stored run started on, read from its start record (the fingerprint
 * names the engine: `quickjs-ng:` for QuickJS), so `sluice resume` replays it where it ran. A
 * `--runtime` given wins (a different engine is then refused by the fingerprint check). `undefined`
 * for an unknown run or token, which the durable layer reports in its own words.
 */
export async function recordedRuntime(
  store: RunStore,
  target: { readonly token?: string | undefined; readonly run?: string | undefined },
  given: TypeScriptRuntimeName | undefined,
): Promise<{ language: CodeRuntimeLanguage; runtime: TypeScriptRuntimeName | undefined } | undefined> {
  const runId = target.run ?? (target.token === undefined ? undefined : (await store.getPause(target.token))?.runId);
  const start = runId === undefined ? undefined : (await store.getRun(runId))?.start;
  if (start === undefined) return undefined;
  if (start.language === 'python') return { language: 'python', runtime: undefined };
  return {
    language: 'typescript',
    runtime: given ?? (start.fingerprint.startsWith('quickjs') ? 'quickjs' : 'worker-thread'),
  };
}

/**
 * What a person reads when `sluice` stops (SIGTERM, Ctrl-C) during a durable run: the run is kept,
 * and the command that continues it.
 */
export function stoppedLines(
  runId: string,
  again: readonly string[],
  invocation: readonly string[] = ['sluice'],
): string {
  const command = [...invocation, 'resume', '--run', runId, ...again].map(shellWord).join(' ');
  return wellFormedText(
    [
      `sluice: stopped before durable run ${runId} ended; it is kept, and nothing it did is lost.`,
      `sluice: continue it with: ${command}`,
      '',
    ].join('\n'),
  );
}

/** What a person reads when their decision came second: it changed nothing, and which one stands. */
export function notAppliedLines(
  given: string,
  standing: { readonly decision: string; readonly reason?: string },
): string {
  const reason = standing.reason === undefined ? '' : ` (${standing.reason})`;
  return wellFormedText(
    `sluice: your decision (${given}) was not applied: the pause had already been decided: ${standing.decision}${reason}. The run's outcome under that decision follows.\n`,
  );
}

/** What a paused run waits for, as {@link pauseLines} prints it. */
export interface WaitingCall {
  readonly runId: string;
  readonly token: string;
  /** The call as the program made it, such as `tools.pay`. */
  readonly call: string;
  readonly input: unknown;
  readonly reason: string;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
}

/** The call a paused durable outcome waits for. */
export function waitingCall(outcome: RunCodeOutcome): WaitingCall | undefined {
  const durable = outcome.durable;
  if (durable?.status !== 'paused') return undefined;
  const { pause } = durable;
  return { ...pause, runId: durable.runId, call: pause.binding };
}

/** The undecided pause of a paused run, for `sluice resume --run` of a run that waits for a person. */
export async function storedWaitingCall(store: RunStore, runId: string): Promise<WaitingCall | undefined> {
  if ((await store.getRun(runId))?.status !== 'paused') return undefined;
  const pause = (await store.listPauses(runId)).findLast((candidate) => candidate.decision === undefined);
  return pause === undefined ? undefined : { ...pause, call: pause.tool };
}

/**
 * What a person needs to decide a paused call, on stderr: the call with its arguments, why it
 * waits, where the run is kept, and the `sluice resume` command that continues it (`again` are the
 * options the run was given, so the resumed run has the same tools, policy and budgets; `invocation`
 * the words that run `sluice`, as `CliIo.invocation` says).
 */
export function pauseLines(
  waiting: WaitingCall,
  again: readonly string[],
  invocation: readonly string[] = ['sluice'],
): string {
  const input = cutUtf8(JSON.stringify(waiting.input) ?? 'null', shownInputBytes);
  const reason = waiting.reason.replace(/[.\s]+$/, '');
  const command = [...invocation, 'resume', waiting.token, '--allow', ...again].map(shellWord).join(' ');
  return wellFormedText(
    [
      `sluice: paused: ${waiting.call}(${input}) waits for a person's approval: ${reason}.`,
      `sluice: continue with: ${command}`,
      `sluice: (or --deny [--reason <text>] in place of --allow; the token expires ${new Date(waiting.expiresAt).toISOString()})`,
      '',
    ].join('\n'),
  );
}

/**
 * The options to give `sluice resume` again: the run store, tools, policy and budget flags, as
 * given (resume reads the runtime from the run itself).
 */
export function resumeOptions(options: {
  readonly runStore: string;
  readonly tools: string | undefined;
  readonly policy: string | undefined;
  readonly budgets: BudgetSettings;
}): string[] {
  const budgets = budgetFlags.flatMap(({ flag, setting }) => {
    const value = options.budgets[setting];
    return value === undefined ? [] : [`--${flag}`, String(value)];
  });
  return [
    '--run-store',
    options.runStore,
    ...(options.tools === undefined ? [] : ['--tools', options.tools]),
    ...(options.policy === undefined ? [] : ['--policy', options.policy]),
    ...budgets,
  ];
}

/** `word` as a POSIX shell reads it back: bare when safe, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
