import { randomInt, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  type Bindings,
  type CodeRunEvent,
  type CodeRunResult,
  type CodeRuntime,
  InvalidSettingsError,
  type JsonValue,
} from '@sluice/code-runtime';
import {
  type ApprovalRequest,
  type DeriveBindingsOptions,
  deriveBindings,
  type PolicySource,
  type Tool,
  toolBindingNames,
} from '@sluice/permissions';
import {
  type PauseDecision,
  type PauseRecord,
  type RunLease,
  type RunRecord,
  type RunStore,
  RunStoreConflictError,
  RunStoreExpiredError,
  RunStoreLeaseLostError,
  type StartRecord,
} from '@sluice/run-store';
import { type DetachReason, type JournalCost, JournalSession, type PendingPause } from './durable-journal.js';
import { HeldLease } from './durable-lease.js';
import { DurableRunError, fromStore, storeCall, storeFailure } from './durable-run-error.js';
import { RunValues } from './durable-values.js';

/**
 * The version of what turns a journal into what a program sees (result mapping, stored values,
 * the `sluice` helpers). Part of every fingerprint: a run started before a change is not replayed by
 * different code.
 */
export const durableVersion = 1;

export { DurableRunError };

/** Options of {@link createDurableRuns}. */
export interface DurableRunsOptions {
  /** Runs the programs; it must publish `determinism` (the QuickJS provider does). */
  readonly runtime: CodeRuntime;
  /** Where start records, journals, pauses and stored values live (`@sluice/run-store`). */
  readonly store: RunStore;
  /** The tools programs may call, as for `deriveBindings`; a tool may declare `replay: 'safe'`. */
  readonly tools: readonly Tool[];
  /** Decides each call when it is made (see `@sluice/permissions`). */
  readonly policy: PolicySource;
  /**
   * Permission options. `approve` is used only when `pauseOnAsk` is `false`; otherwise an `ask`
   * pauses the run and {@link DurableRuns.decide} answers it.
   */
  readonly permissions?: DeriveBindingsOptions;
  /** More host functions (not tools): journaled like tools, never run again after a crash. */
  readonly bindings?: Bindings;
  /**
   * Applied to the tools' bindings (from `deriveBindings`) before they are journaled, for a host
   * that adapts calls on their way in; code mode passes a call with no argument as `{}` to a tool
   * whose input properties are all optional.
   */
  readonly mapBindings?: (bindings: Bindings) => Bindings;
  /** Whether a policy `ask` pauses the run (default `true`) rather than waiting for `permissions.approve`. */
  readonly pauseOnAsk?: boolean;
  /** How long a pause token can be decided, in ms. Default 7 days. */
  readonly pauseTtlMs?: number;
  /** Names this host process in run leases. Default `<hostname>:<pid>:<random>`. */
  readonly owner?: string;
  /** How long a lease holds without renewal, in ms (renewed every third of it while running). Default 30 000. */
  readonly leaseMs?: number;
}

/** Per-call options of {@link DurableRuns}. */
export interface DurableRunOptions {
  /** Aborting it cancels the run; it then ends as an `abort` failure, finished. */
  readonly signal?: AbortSignal;
  /**
   * Aborting it lets this run go without finishing it, as {@link DurableRuns.close} does for all of
   * them: for a caller that went away (a client whose connection dropped), not one that cancelled.
   * The run is kept, its lease released, and the promise resolves with status `stopped`.
   */
  readonly detach?: AbortSignal;
  /** Streams logs and host calls as they happen; a replay streams the replayed ones again. */
  readonly onEvent?: (event: CodeRunEvent) => void;
}

/** What {@link DurableRuns.start} runs. */
export interface DurableStart extends DurableRunOptions {
  readonly program: string;
  /**
   * The run's id, unique in the store: the caller's own (for example the model's tool-call id), so
   * it can resume the run after a crash without having seen an outcome. Default `durable_<UUID>`.
   */
  readonly runId?: string;
  /** The conversation whose values `sluice.load` reads and a successful run's `sluice.store` writes. */
  readonly conversation?: string;
}

/** A call waiting for an approval. */
export interface DurablePause {
  /** Give it to {@link DurableRuns.decide}. */
  readonly token: string;
  /** The tool as policies name it, how the program called it, and the arguments it would get. */
  readonly tool: string;
  readonly binding: string;
  readonly input: JsonValue;
  readonly reason: string;
  /** Milliseconds since the epoch after which the token is refused. */
  readonly expiresAt: number;
}

/**
 * How a durable run stands. `finished`: it ended (well or not) and `result` is final. `paused`: a
 * call waits for an approval; `result` is the run so far (its logs and calls). `diverged`: a rerun
 * took another path than the journal; `result` is the stopped rerun, `message` names both calls.
 * `stopped`: this execution let the run go unfinished — its host stopped (`host-stopped`, from
 * {@link DurableRuns.close}) or another host took the run over (`lease-lost`); the run is kept as
 * after a crash, `resume(runId)` continues it, and `message` says so in words.
 */
export type DurableOutcome = (
  | { readonly status: 'finished'; readonly runId: string; readonly result: CodeRunResult }
  | { readonly status: 'paused'; readonly runId: string; readonly result: CodeRunResult; readonly pause: DurablePause }
  | { readonly status: 'diverged'; readonly runId: string; readonly result: CodeRunResult; readonly message: string }
  | {
      readonly status: 'stopped';
      readonly runId: string;
      readonly result: CodeRunResult;
      readonly reason: DetachReason;
      readonly message: string;
    }
) & {
  /** What journaling cost the execution that produced this outcome (the last one, for a run resumed). */
  readonly journal: JournalCost;
};

/** What {@link DurableRuns.decide} resolves with: the run's outcome, and whether this decision was the one recorded. */
export type DurableDecision = DurableOutcome & {
  readonly decision: {
    /** `false` when another decision of the same token came first: this one changed nothing. */
    readonly applied: boolean;
    /** The decision that stands (the first one given). */
    readonly decision: PauseDecision;
  };
};

/** Durable runs over one runtime, store, tool set and policy. Create with {@link createDurableRuns}. */
export interface DurableRuns {
  /** The fingerprint recorded in start records: the runtime's and this layer's version. */
  readonly fingerprint: string;
  /**
   * Starts a run and resolves with how it stands when this execution stops. Never rejects for what
   * the program did. Rejects with {@link DurableRunError} after {@link DurableRuns.close}.
   */
  start(input: DurableStart): Promise<DurableOutcome>;
  /**
   * Continues a run whose host stopped (a crash, a deploy): runs the program again from its start
   * record, answering its journaled calls from the journal. A finished or paused run resolves with
   * its outcome as stored; a run this object is already executing resolves with that execution's
   * outcome (one execution per run at a time). Rejects with {@link DurableRunError} for an unknown
   * run, a run another host holds, or a fingerprint that differs.
   */
  resume(runId: string, options?: DurableRunOptions): Promise<DurableOutcome>;
  /**
   * Gives the decision for a pause and continues its run by replay. Only the first decision of a
   * token is recorded: a later one (a double click, a second person) resolves with the same outcome
   * and `decision.applied: false`, naming the decision that stands. Rejects with
   * {@link DurableRunError} for an unknown or expired token.
   */
  decide(token: string, decision: PauseDecision, options?: DurableRunOptions): Promise<DurableDecision>;
  /**
   * Lets every run this object is executing go without finishing it, as a crash would but at once:
   * calls in flight keep no outcome (a resume reruns the replay-safe ones and gives the others
   * `interrupted`), nothing more is written, and each lease is released so any host can resume the
   * run straight away. Their `start`/`resume`/`decide` promises resolve with status `stopped`.
   * Resolves when they have; later calls reject. Idempotent. For a deploy, SIGTERM, a client that
   * went away — only a caller's own `signal` finishes a run as `abort`.
   */
  close(): Promise<void>;
}

const defaultLeaseMs = 30_000;
const defaultPauseTtlMs = 7 * 24 * 60 * 60 * 1000;

/**
 * Durable runs (DESIGN §10, seed `002_680c99bef20a19ba.txt`): each host call is numbered in the
 * order the program makes it, its intent committed to the store before the tool runs and its
 * outcome after; a rerun starts the program again from its start record (program, seed, start
 * time, fingerprint) on a deterministic runtime and answers recorded calls from the journal. One
 * execution of a run at a time: in this process by joining the execution in flight, across hosts by
 * a lease whose fencing token every write carries.
 * Throws {@link InvalidSettingsError} when the runtime cannot run deterministically.
 */
export function createDurableRuns(options: DurableRunsOptions): DurableRuns {
  const { runtime, store, tools, policy } = options;
  if (runtime.determinism === undefined) {
    throw new InvalidSettingsError({
      message: `The ${runtime.id} code runtime cannot run programs deterministically, so its runs cannot be replayed. Use a runtime that publishes \`determinism\`, such as the quickjs, worker-thread or python provider.`,
      setting: 'runtime',
    });
  }
  checkOptions(options);
  const fingerprint = `${runtime.determinism.fingerprint}+durable-${durableVersion}`;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? defaultLeaseMs;
  const pauseTtlMs = options.pauseTtlMs ?? defaultPauseTtlMs;
  const pauseOnAsk = options.pauseOnAsk ?? true;
  // The permission options carry the naming options (`defaultNamespace`, `splitNamespaces`) deriveBindings uses.
  const naming = options.permissions ?? {};
  // Named as deriveBindings names them: two tools that map to one binding both stay, the second with a suffix.
  const bound = toolBindingNames(
    tools.map((tool) => tool.name),
    naming,
  );
  const safe = new Set(
    tools
      .filter((tool) => tool.replay === 'safe')
      .map((tool) => bound.get(tool.name))
      .filter((binding) => typeof binding === 'object')
      .map((binding) => bindingPath(binding)),
  );
  const messageBytes = runtime.limits?.hostCallBytes ?? 64 * 1024;
  const mapBindings = options.mapBindings ?? ((bindings: Bindings) => bindings);
  /** The executions in flight, by run: a second resume or decision of one joins it. */
  const executions = new Map<string, Promise<DurableOutcome>>();
  /** How to let each execution in flight go, for close(). */
  const detachers = new Set<() => void>();
  let closing: Promise<void> | undefined;
  /** The store's first answer: once it has given one, it is open. */
  let opened: Promise<void> | undefined;

  const refuseClosed = () => {
    if (closing !== undefined)
      throw new DurableRunError({
        message: 'These durable runs are closed (their host is stopping): create them anew to start, resume or decide.',
      });
  };

  /** Runs `execute` for `runId` unless this process already does; the map holds it until it settles. */
  const once = (runId: string, execute: () => Promise<DurableOutcome>): Promise<DurableOutcome> => {
    const running = executions.get(runId);
    if (running !== undefined) return running;
    const execution = execute().finally(() => executions.delete(runId));
    executions.set(runId, execution);
    return execution;
  };

  const execute = async (
    record: RunRecord,
    claimed: RunLease,
    claimedAt: number,
    runOptions: DurableRunOptions,
  ): Promise<DurableOutcome> => {
    const { start } = record;
    const runId = start.runId;
    let session: JournalSession | undefined;
    const held = new HeldLease(store, claimed, leaseMs, claimedAt, () =>
      session?.detach('lease-lost', `This host stopped the run: another host took run ${runId} over`),
    );
    const detach = () => session?.detach('host-stopped', 'This host is stopping; the run is kept and can be resumed');
    detachers.add(detach);
    try {
      if (start.fingerprint !== fingerprint) {
        throw new DurableRunError({
          message: `Run ${runId} was started under ${start.fingerprint} and this host runs ${fingerprint}: replaying its journal on another engine or version could give the program different results. Resume it on a host with the same runtime and versions.`,
        });
      }
      const [journal, pauses] = await fromStore(`reading the journal of run ${runId}`, resumeAdvice(runId), () =>
        Promise.all([store.readJournal(runId), store.listPauses(runId)]),
      );
      let stop: (reason: string) => void = () => {};
      session = new JournalSession(store, runId, journal, pauses, {
        replaySafe: (namespace, name) => safe.has(`${namespace}.${name}`),
        stop: (reason) => stop(reason),
        lease: () => held.lease,
        holdsLease: () => held.holds(),
        messageBytes,
        ...(runtime.limits === undefined ? {} : { resultBytes: runtime.limits.hostCallBytes }),
      });
      if (closing !== undefined || runOptions.detach?.aborted) detach();
      runOptions.detach?.addEventListener('abort', detach, { once: true });
      const values = new RunValues(start.conversation, snapshotOf(start.metadata));
      const current = session;
      const approve = (request: ApprovalRequest) =>
        current.approve(
          request,
          request.rule?.description ?? 'the policy asks for approval of this call',
          Date.now() + pauseTtlMs,
        );
      const permissions: DeriveBindingsOptions = {
        ...options.permissions,
        ...(pauseOnAsk ? { approve, approvalTimeoutMs: pauseTtlMs } : {}),
      };
      const bindings = session.wrap(
        { ...mapBindings(deriveBindings(tools, policy, permissions)), ...options.bindings },
        { sluice: values.bindings() },
      );
      if (record.status === 'paused') {
        try {
          await storeCall(() => store.setStatus(runId, 'running', undefined, held.lease));
        } catch (error) {
          if (!RunStoreLeaseLostError.isInstance(error))
            throw storeFailure(`marking run ${runId} running`, resumeAdvice(runId), error);
          current.detach('lease-lost', `This host stopped the run: another host took run ${runId} over`);
        }
      }
      const run = runtime.start({
        program: start.program,
        bindings,
        deterministic: { seed: start.seed, startTime: start.startTime },
        ...(runOptions.signal === undefined ? {} : { signal: runOptions.signal }),
        ...(runOptions.onEvent === undefined ? {} : { onEvent: runOptions.onEvent }),
      });
      // The runtime ends its cancel message with a full stop of its own.
      stop = (reason) => run.cancel(reason.replace(/[.\s]+$/, ''));
      if (session.detached !== undefined) stop('This host is stopping; the run is kept and can be resumed');
      const result = await run.result;
      return await settleRun(start, result, session, values, held.lease);
    } finally {
      detachers.delete(detach);
      runOptions.detach?.removeEventListener('abort', detach);
      await held.end(session?.detached !== 'lease-lost');
    }
  };

  const settleRun = async (
    start: StartRecord,
    result: CodeRunResult,
    session: JournalSession,
    values: RunValues,
    lease: RunLease,
  ): Promise<DurableOutcome> => {
    const runId = start.runId;
    const stopped = (): DurableOutcome | undefined => {
      const reason = session.detached;
      if (reason === undefined) return undefined;
      const message =
        reason === 'host-stopped'
          ? `This host stopped before run ${runId} ended. Nothing is lost: resume(${JSON.stringify(runId)}) continues it, on this host or another, from its journal.`
          : `This host let run ${runId} go: its lease lapsed (the host was stalled, or could not renew it) or another host took the run over, so it made no further call and recorded nothing more. The run goes on where it is held now, or with resume(${JSON.stringify(runId)}) on any host once the lease has lapsed.`;
      return { status: 'stopped', runId, result, reason, message, journal: session.cost };
    };
    const early = stopped();
    if (early !== undefined) return early;
    if (session.storeFailure !== undefined) {
      // Nothing is final: the journal is as far as the store took it, and the run can be resumed.
      throw new DurableRunError({ message: `${session.storeFailure} ${resumeAdvice(runId)}` });
    }
    // The journal is complete: a rerun answers every call from it and writes what failed here.
    const record = async (operation: () => Promise<void>): Promise<boolean> => {
      try {
        await storeCall(operation);
        return true;
      } catch (error) {
        if (!RunStoreLeaseLostError.isInstance(error))
          throw storeFailure(`recording the outcome of run ${runId}`, resumeAdvice(runId), error);
        session.detach('lease-lost', `This host stopped the run: another host took run ${runId} over`);
        return false;
      }
    };
    if (session.pause !== undefined) {
      if (!(await record(() => store.setStatus(runId, 'paused', undefined, lease)))) return stopped() as DurableOutcome;
      return { status: 'paused', runId, result, pause: publicPause(session.pause), journal: session.cost };
    }
    const journal = session.cost;
    const outcome: DurableOutcome =
      session.divergence === undefined
        ? { status: 'finished', runId, result, journal }
        : { status: 'diverged', runId, result, message: session.divergence, journal };
    const { conversation } = start;
    if (outcome.status === 'finished' && result.ok && conversation !== undefined) {
      const changes = values.changes;
      if (Object.keys(changes).length > 0 && !(await record(() => store.commitValues(conversation, changes, lease))))
        return stopped() as DurableOutcome;
    }
    if (!(await record(() => store.setStatus(runId, 'finished', outcome as unknown as JsonValue, lease))))
      return stopped() as DurableOutcome;
    return outcome;
  };

  /**
   * Takes the run for this host, or finds it finished. When another host holds it, `wait` waits for
   * that host to finish or let it go (a decision given on two hosts at once); otherwise that is an error.
   */
  const claim = async (
    runId: string,
    wait: boolean,
  ): Promise<{ record: RunRecord; lease?: RunLease; claimedAt: number }> => {
    for (;;) {
      refuseClosed();
      const record = await fromStore(`reading run ${runId}`, retryAdvice, () => store.getRun(runId));
      if (record === undefined)
        throw new DurableRunError({ message: `There is no durable run ${runId} in this store.` });
      if (record.status === 'finished') return { record, claimedAt: 0 };
      const claimedAt = performance.now();
      const lease = await fromStore(`taking run ${runId}`, retryAdvice, () => store.claimRun(runId, owner, leaseMs));
      if (lease !== undefined) return { record, lease, claimedAt };
      if (!wait) {
        throw new DurableRunError({
          message: `Run ${runId} is held by ${record.owner ?? 'another host'} until ${new Date(record.leaseExpiresAt ?? 0).toISOString()}; resume it after that, or from that host.`,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  /**
   * Claims the run and executes it, or resolves with its stored outcome when it finished. `decided`:
   * continuing after a decision, when another call may still wait for its own (the replay pauses
   * there again); otherwise a run that waits for a person is refused.
   */
  const continueRun = async (
    runId: string,
    decided: boolean,
    runOptions: DurableRunOptions,
  ): Promise<DurableOutcome> => {
    const { record, lease, claimedAt } = await claim(runId, decided);
    if (lease === undefined) return record.outcome as unknown as DurableOutcome;
    if (record.status === 'paused' && !decided) {
      const pauses = await fromStore(`reading the pauses of run ${runId}`, retryAdvice, () =>
        store.listPauses(runId),
      ).catch(async (error: unknown) => {
        await storeCall(() => store.releaseRun(lease)).catch(() => {});
        throw error;
      });
      const waiting = pauses.find((pause) => pause.decision === undefined);
      if (waiting !== undefined) {
        await storeCall(() => store.releaseRun(lease)).catch(() => {});
        throw new DurableRunError({
          message: `Run ${runId} waits for an approval of ${waiting.tool}: continue it with decide(token, decision), using the token its paused outcome gave.`,
        });
      }
    }
    return execute(record, lease, claimedAt, runOptions);
  };

  return {
    fingerprint,
    async start(input) {
      refuseClosed();
      if (typeof input?.program !== 'string' || input.program.trim() === '') {
        throw new DurableRunError({ message: 'start({ program }) needs the program as a non-empty string.' });
      }
      const runId = input.runId ?? `durable_${randomUUID()}`;
      const { conversation } = input;
      const snapshot =
        conversation === undefined
          ? {}
          : await fromStore(`reading the stored values of conversation ${conversation}`, startAdvice, () =>
              store.readValues(conversation),
            );
      const start: StartRecord = {
        runId,
        ...(conversation === undefined ? {} : { conversation }),
        program: input.program,
        language: runtime.language,
        seed: randomInt(0, 2 ** 32),
        startTime: Date.now(),
        fingerprint,
        metadata: { values: snapshot },
      };
      // The store opens on its first query (an embedded one boots and migrates: seconds on a loaded
      // machine). The lease is timed from when createRun is sent, so that must not include the opening.
      opened ??= fromStore('opening the run store', startAdvice, () => store.getRun(runId)).then(() => undefined);
      await opened.catch((error: unknown) => {
        opened = undefined;
        throw error;
      });
      const claimedAt = performance.now();
      let lease: RunLease;
      try {
        lease = await storeCall(() => store.createRun(start, owner, leaseMs));
      } catch (error) {
        if (RunStoreConflictError.isInstance(error)) {
          throw new DurableRunError({
            message: `There is already a run ${runId} in this store: resume it, or start with another runId.`,
            cause: error,
          });
        }
        throw storeFailure(`writing the start record of run ${runId}`, startAdvice, error);
      }
      const now = Date.now();
      const record: RunRecord = { start, status: 'running', owner, fence: lease.fence, createdAt: now, updatedAt: now };
      return once(runId, () => execute(record, lease, claimedAt, input));
    },
    async resume(runId, runOptions = {}) {
      refuseClosed();
      return once(runId, () => continueRun(runId, false, runOptions));
    },
    async decide(token, decision, runOptions = {}) {
      refuseClosed();
      if ((await fromStore('reading a pause', retryAdvice, () => store.getPause(token))) === undefined) {
        throw new DurableRunError({ message: 'There is no pause with this token: check the token, or the store.' });
      }
      const decided = await decidePause(store, token, decision);
      const outcome = await once(decided.runId, () => continueRun(decided.runId, true, runOptions));
      return { ...outcome, decision: { applied: decided.applied, decision: decided.decision ?? decision } };
    },
    close() {
      closing ??= (async () => {
        for (const detach of detachers) detach();
        await Promise.allSettled([...executions.values()]);
      })();
      return closing;
    },
  };
}

const maxTimerMs = 2_147_483_647;

function checkOptions(options: DurableRunsOptions): void {
  const store = options.store as Partial<RunStore> | undefined;
  if (typeof store?.createRun !== 'function' || typeof store.readJournal !== 'function') {
    throw new InvalidSettingsError({
      message: 'store must be a run store from @sluice/run-store, such as createPGliteRunStore().',
      setting: 'store',
    });
  }
  for (const [setting, value, minimum] of [
    ['leaseMs', options.leaseMs, 100],
    ['pauseTtlMs', options.pauseTtlMs, 1],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < minimum || value > maxTimerMs)) {
      throw new InvalidSettingsError({
        message: `${setting} must be an integer number of milliseconds from ${minimum} to ${maxTimerMs}, got ${String(value)}.`,
        setting,
      });
    }
  }
  if (options.owner !== undefined && (typeof options.owner !== 'string' || options.owner === '')) {
    throw new InvalidSettingsError({ message: 'owner must be a non-empty string naming this host.', setting: 'owner' });
  }
}

async function decidePause(
  store: RunStore,
  token: string,
  decision: PauseDecision,
): Promise<PauseRecord & { readonly applied: boolean }> {
  if (decision?.decision !== 'allow' && decision?.decision !== 'deny') {
    throw new DurableRunError({
      message: "decide(token, decision): decision must be { decision: 'allow' } or { decision: 'deny', reason? }.",
    });
  }
  try {
    return await storeCall(() => store.decidePause(token, decision));
  } catch (error) {
    if (RunStoreExpiredError.isInstance(error)) {
      throw new DurableRunError({
        message: `This pause token expired before a decision came: ${error.message}`,
        cause: error,
      });
    }
    throw storeFailure('recording a decision', retryAdvice, error);
  }
}

const startAdvice = 'Nothing ran: start the run again once the store is back.';
const retryAdvice = 'Nothing changed: try again once the store is back.';

function resumeAdvice(runId: string): string {
  return `Resume run ${runId} once the store is back.`;
}

function publicPause(pause: PendingPause): DurablePause {
  return {
    token: pause.token,
    tool: pause.tool,
    binding: pause.binding,
    input: pause.input,
    reason: pause.reason,
    expiresAt: pause.expiresAt,
  };
}

function snapshotOf(metadata: JsonValue | undefined): Record<string, JsonValue> {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return {};
  const values = metadata.values;
  return typeof values === 'object' && values !== null && !Array.isArray(values) ? values : {};
}

function bindingPath(name: { namespace: string; name: string }): string {
  return `${name.namespace}.${name.name}`;
}
