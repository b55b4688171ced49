import {
  type Bindings,
  checkJsonValue,
  describeJsonViolation,
  foreignText,
  type HostCallContext,
  type HostFunction,
  type JsonValue,
  jsonDepthLimit,
} from '@sluice/code-runtime';
import type { ApprovalAnswer, ApprovalRequest } from '@sluice/permissions';
import {
  type JournalEntry,
  type JournalIntent,
  type JournalOutcome,
  type PauseRecord,
  type RunLease,
  type RunStore,
  RunStoreLeaseLostError,
} from '@sluice/run-store';

/** What a journaled run needs from its runner. */
export interface JournalHooks {
  /** Whether `namespace.name` may run again when it was in flight at a crash (`replay: 'safe'`). */
  readonly replaySafe: (namespace: string, name: string) => boolean;
  /** Ends the run now; `reason` becomes its `abort` failure's message. */
  readonly stop: (reason: string) => void;
  /** The lease this execution holds: every write carries it, so a host that lost the run writes nothing. */
  readonly lease: () => RunLease;
  /**
   * Whether the lease surely still holds by this host's clock (renewed less than `leaseMs` ago):
   * checked before every tool runs, so a host that stalled past its lease makes no further call.
   */
  readonly holdsLease: () => boolean;
  /** Bytes of an error message kept, as the runtime's host-call budget. */
  readonly messageBytes: number;
  /** Bytes of JSON a host function's result may have: the runtime's `limits.hostCallBytes`, when it publishes it. */
  readonly resultBytes?: number;
}

/**
 * What journaling cost one execution of a run. `calls`: host calls the program made (journaled
 * `sluice.store`/`sluice.load` excluded); `replayed`: of them, those answered from the journal;
 * `writes`: intents, outcomes and pauses committed to the store; `writeMs`: the time spent waiting
 * for those commits, in milliseconds.
 */
export interface JournalCost {
  readonly calls: number;
  readonly replayed: number;
  readonly writes: number;
  readonly writeMs: number;
}

/** How a run that asked for approval stopped: the pause it wrote. */
export type PendingPause = Omit<PauseRecord, 'decision' | 'startedAt'> & { readonly binding: string };

/** Why an execution let its run go without ending it: this host stopped, or another host took the run. */
export type DetachReason = 'host-stopped' | 'lease-lost';

/**
 * One execution of a durable run: numbers its host calls in the order the program makes them,
 * answers those the journal already holds from it, commits the intent of each new call before its
 * host function runs and the outcome after, and stops the run when the program takes another path
 * than the journal records (a divergence) or a call must wait for an approval (a pause).
 *
 * Only a deterministic program (same seed, start time and results) can be replayed this way: it
 * makes its calls in the same order, so call `seq` of a rerun is call `seq` of the first run.
 */
export class JournalSession {
  readonly #store: RunStore;
  readonly #runId: string;
  readonly #journal: ReadonlyMap<number, JournalEntry>;
  readonly #pauses: ReadonlyMap<number, PauseRecord>;
  readonly #hooks: JournalHooks;
  readonly #seqByCall = new Map<string, number>();
  readonly #running = new Set<number>();
  /** Calls waiting for an approval: their answer is the pause, never journaled as an outcome. */
  readonly #held = new Set<number>();
  #calls = 0;
  #writes = 0;
  #writeMs = 0;
  #divergence: string | undefined;
  /** Pauses written by this execution, by call: the lowest is the one reported. */
  readonly #pausesMade = new Map<number, PendingPause>();
  #pausing = false;
  #stopped = false;
  #failure: string | undefined;
  #detached: DetachReason | undefined;

  constructor(
    store: RunStore,
    runId: string,
    journal: readonly JournalEntry[],
    pauses: readonly PauseRecord[],
    hooks: JournalHooks,
  ) {
    this.#store = store;
    this.#runId = runId;
    // By sequence number, never by position: a journal with a gap (an intent whose write failed
    // among calls made at once) still answers each call with its own entry.
    this.#journal = new Map(journal.map((entry) => [entry.seq, entry]));
    this.#pauses = new Map(pauses.map((pause) => [pause.seq, pause]));
    this.#hooks = hooks;
  }

  /** The divergence that stopped the run, in words naming both calls. */
  get divergence(): string | undefined {
    return this.#divergence;
  }

  /** The pause that stopped the run: of the calls that asked, the first the program made. */
  get pause(): PendingPause | undefined {
    const first = Math.min(...this.#pausesMade.keys());
    return this.#pausesMade.get(first);
  }

  /** A failure of the store itself (the journal could not be written), which stopped the run. */
  get storeFailure(): string | undefined {
    return this.#failure;
  }

  /**
   * Why this execution let its run go unfinished, if it did: it then wrote nothing more, and the
   * run stays resumable as after a crash.
   */
  get detached(): DetachReason | undefined {
    return this.#detached;
  }

  /**
   * Lets the run go without finishing it, as a crash would: from now on nothing is written (calls in
   * flight keep no outcome, so a resume reruns them if replay-safe and gives `interrupted` otherwise),
   * new calls are held, and the run is stopped with `message`.
   */
  detach(reason: DetachReason, message: string): void {
    this.#detached ??= reason;
    this.#stop(message);
  }

  /** Host calls made so far, replayed ones included. */
  get calls(): number {
    return this.#calls;
  }

  /** What journaling cost this execution: calls answered from the journal, writes to the store and their time. */
  get cost(): JournalCost {
    return {
      calls: this.#calls,
      replayed: Math.min(this.#calls, this.#journal.size),
      writes: this.#writes,
      writeMs: Math.round(this.#writeMs * 1000) / 1000,
    };
  }

  async #timed<T>(write: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await write();
    } finally {
      this.#writes += 1;
      this.#writeMs += performance.now() - started;
    }
  }

  /**
   * `bindings` with every function journaled, except those in `local`: deterministic functions of
   * the start record (the stored values) that run again on every replay and are not journaled.
   */
  wrap(bindings: Bindings, local: Bindings = {}): Bindings {
    const wrapped: Record<string, Record<string, HostFunction>> = {};
    for (const [namespace, functions] of Object.entries(bindings)) {
      wrapped[namespace] = {};
      for (const [name, fn] of Object.entries(functions)) {
        wrapped[namespace][name] = (input, context) => this.#call(namespace, name, fn, input, context);
      }
    }
    for (const [namespace, functions] of Object.entries(local)) {
      wrapped[namespace] = { ...wrapped[namespace], ...functions };
    }
    return wrapped;
  }

  /**
   * The approval hook for `deriveBindings`: a call whose pause has a decision gets it; any other
   * `ask` pauses the run. Resolves only once the run has stopped (the answer is then not used).
   */
  approve = async (request: ApprovalRequest, reason: string, expiresAt: number): Promise<ApprovalAnswer> => {
    const seq = this.#seqByCall.get(request.callId);
    if (seq === undefined) return { decision: 'deny', reason: 'The call was not journaled.' };
    const existing = this.#pauses.get(seq);
    if (existing?.decision?.decision === 'deny') return existing.decision;
    if (existing?.decision !== undefined) {
      // Approved: mark the call started, under this execution's lease, before it runs, so no other
      // execution (a stalled host that wakes, a second resume) can run it too.
      const started = await this.#write(() => this.#store.startPausedCall(existing.token, this.#hooks.lease()));
      if (started?.value === true) return existing.decision;
      // Another execution started it since this one read the pauses: only a second claim of the
      // run, which has fenced this one out, can do that.
      if (started !== undefined)
        this.detach(
          'lease-lost',
          `This host stopped the run: another execution of run ${this.#runId} started its approved call`,
        );
      return new Promise(() => {});
    }
    if (this.#detached !== undefined) return new Promise(() => {});
    // Every call that asks gets its pause (a rerun finds it again and keeps its token); the first
    // is the one reported, and the others are decided one after another as the reruns reach them.
    this.#held.add(seq);
    this.#pausing = true;
    const pause: PendingPause = existing
      ? { ...withoutDecision(existing), binding: request.binding }
      : {
          token: pauseToken(),
          runId: this.#runId,
          seq,
          tool: request.tool,
          binding: request.binding,
          input: request.arguments,
          reason,
          createdAt: Date.now(),
          expiresAt,
        };
    if (existing === undefined) {
      const { binding: _binding, ...record } = pause;
      if (!(await this.#write(() => this.#store.createPause(record, this.#hooks.lease())))) {
        return { decision: 'deny', reason: 'The run could not pause.' };
      }
    }
    this.#pausesMade.set(seq, pause);
    this.#stopWhenQuiet();
    return new Promise((resolve) => {
      const settle = () => resolve({ decision: 'deny', reason: 'The run paused for an approval.' });
      if (request.signal.aborted) settle();
      else request.signal.addEventListener('abort', settle, { once: true });
    });
  };

  async #call(
    namespace: string,
    name: string,
    fn: HostFunction,
    input: JsonValue,
    context: HostCallContext,
  ): Promise<JsonValue> {
    this.#calls += 1;
    const seq = this.#calls;
    this.#seqByCall.set(context.callId, seq);
    const intent: JournalIntent = {
      namespace,
      name,
      input,
      ...(context.positional === undefined ? {} : { positional: context.positional }),
    };
    const recorded = this.#journal.get(seq);
    if (recorded !== undefined) {
      if (!sameIntent(recorded.intent, intent)) {
        this.#diverge(seq, recorded.intent, intent);
        return new Promise(() => {});
      }
      if (recorded.outcome !== undefined) return settle(recorded.outcome);
      // In flight when the last execution stopped: at a crash, or at a pause (decided or not: the
      // approval is asked again, and answered by the decision or paused again with the same token),
      // unless an execution already started the approved call.
      const pause = this.#pauses.get(seq);
      const started = pause?.startedAt !== undefined;
      if ((pause !== undefined && !started) || this.#hooks.replaySafe(namespace, name)) {
        return this.#live(seq, `${namespace}.${name}`, fn, input, context);
      }
      if (this.#stopped) return new Promise(() => {});
      const outcome: JournalOutcome = { ok: false, message: interruptedMessage(namespace, name) };
      if (!(await this.#record(seq, outcome))) return new Promise(() => {});
      return settle(outcome);
    }
    // Once the run is pausing or stopped, a new call is held: it is made again, live, on resume.
    if (this.#pausing || this.#stopped) return new Promise(() => {});
    // Running from its intent on: a pause waits for it rather than stopping between its intent and its outcome.
    this.#running.add(seq);
    const stored = await this.#write(() => this.#store.recordIntent(this.#runId, seq, intent, this.#hooks.lease()));
    if (stored === undefined) {
      this.#running.delete(seq);
      return new Promise(() => {});
    }
    if (!sameIntent(stored.value.intent, intent)) {
      this.#diverge(seq, stored.value.intent, intent);
      return new Promise(() => {});
    }
    return this.#live(seq, `${namespace}.${name}`, fn, input, context);
  }

  async #live(
    seq: number,
    binding: string,
    fn: HostFunction,
    input: JsonValue,
    context: HostCallContext,
  ): Promise<JsonValue> {
    // The run ended while the intent was being committed (a call the program did not wait for): its
    // result would be dropped, so the tool does not run at all.
    if (context.signal.aborted || this.#stopped) {
      this.#running.delete(seq);
      return new Promise(() => {});
    }
    // A host that stalled (a pause of the process, a long garbage collection, a blocked event loop)
    // may have lost the run to another host without having heard of it yet: it calls nothing more.
    if (!this.#hooks.holdsLease()) {
      this.#running.delete(seq);
      this.detach(
        'lease-lost',
        `This host stopped the run: its lease on run ${this.#runId} lapsed before call ${seq} (${binding}), so another host may hold the run now`,
      );
      return new Promise(() => {});
    }
    this.#running.add(seq);
    let outcome: JournalOutcome;
    try {
      const idempotencyKey = `${this.#runId}/${seq}`;
      outcome = journalOutcome(await fn(input, { ...context, idempotencyKey }), binding, this.#hooks);
    } catch (error) {
      outcome = { ok: false, message: foreignText(error, this.#hooks.messageBytes) };
    } finally {
      this.#running.delete(seq);
    }
    // A paused call's own answer is the pause's denial: the decision on resume replaces it.
    if (this.#held.has(seq)) return new Promise(() => {});
    if (!(await this.#record(seq, outcome))) return new Promise(() => {});
    this.#stopWhenQuiet();
    return settle(outcome);
  }

  async #record(seq: number, outcome: JournalOutcome): Promise<boolean> {
    return (
      (await this.#write(() => this.#store.recordOutcome(this.#runId, seq, outcome, this.#hooks.lease()))) !== undefined
    );
  }

  /**
   * One write to the store, timed: resolves with what it resolved with, or `undefined` when it was
   * not made (the execution let the run go) or failed, which stops the run: a lost lease detaches
   * it, any other failure is a store failure.
   */
  async #write<T>(write: () => Promise<T>): Promise<{ readonly value: T } | undefined> {
    if (this.#detached !== undefined) return undefined;
    try {
      return { value: await this.#timed(write) };
    } catch (error) {
      if (RunStoreLeaseLostError.isInstance(error)) {
        this.detach('lease-lost', `This host stopped the run: another host took run ${this.#runId} over`);
      } else {
        this.#fail(error);
      }
      return undefined;
    }
  }

  /**
   * Stops a pausing run once no other call is running (their outcomes are then journaled) and every
   * call that asked has its pause written.
   */
  #stopWhenQuiet(): void {
    if (!this.#pausing || this.#pausesMade.size < this.#held.size) return;
    if ([...this.#running].some((seq) => !this.#held.has(seq))) return;
    const pause = this.pause;
    if (pause !== undefined) this.#stop(`The run paused: ${pause.binding} waits for an approval (${pause.reason}).`);
  }

  #diverge(seq: number, recorded: JournalIntent, asked: JournalIntent): void {
    this.#divergence ??=
      `The program took another path than its journal: call ${seq} was ${describeIntent(recorded)} when the run ` +
      `started, and is ${describeIntent(asked)} now. A durable program must make the same calls with the same ` +
      'arguments on every run; the journal was left as it was.';
    this.#stop(this.#divergence);
  }

  #fail(error: unknown): void {
    this.#failure ??= `The run store failed, so the run stopped: ${foreignText(error, this.#hooks.messageBytes)}`;
    this.#stop(this.#failure);
  }

  #stop(reason: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#hooks.stop(reason);
  }
}

/** The message a program gets for a call that was running when its host died and may not run twice. */
export function interruptedMessage(namespace: string, name: string): string {
  return (
    `interrupted: ${namespace}.${name} was running when its host stopped, and it may or may not have taken effect. ` +
    'It is not run again because the tool does not declare replay: "safe". Check its effect before calling it again.'
  );
}

/**
 * The outcome to journal for a host function's value: the value, or the error the runtime gives the
 * program for it (checked the same way: not lossless JSON, nested deeper than `jsonDepthLimit`, or
 * over the host-call budget), so a replay gives the program what the first run gave it and the
 * store never holds what the program did not get. `undefined` is `null`, as for any host call.
 */
function journalOutcome(value: unknown, binding: string, hooks: JournalHooks): JournalOutcome {
  // Converted by the boundary's table first (a Map an object, a generator an array, …), as the run controller does.
  const checked = checkJsonValue(value === undefined ? null : value, {
    depthLimit: jsonDepthLimit,
    ...(hooks.resultBytes === undefined ? {} : { limitBytes: hooks.resultBytes }),
  });
  if (checked.ok) return { ok: true, value: JSON.parse(JSON.stringify(checked.value)) as JsonValue };
  const message =
    checked.violation !== undefined
      ? `${binding} returned a value that is not JSON: ${describeJsonViolation(checked.violation)}.`
      : `${binding} returned ${checked.exact ? checked.bytes : `more than ${hooks.resultBytes}`} bytes of JSON; the limit is ${hooks.resultBytes} bytes per call. Ask for less.`;
  return { ok: false, message: foreignText(message, hooks.messageBytes) };
}

function settle(outcome: JournalOutcome): Promise<JsonValue> {
  return outcome.ok ? Promise.resolve(outcome.value) : Promise.reject(new Error(outcome.message));
}

function sameIntent(left: JournalIntent, right: JournalIntent): boolean {
  return (
    left.namespace === right.namespace &&
    left.name === right.name &&
    JSON.stringify(left.input) === JSON.stringify(right.input) &&
    JSON.stringify(left.positional ?? null) === JSON.stringify(right.positional ?? null)
  );
}

function describeIntent(intent: JournalIntent): string {
  const text = JSON.stringify(intent.positional ?? intent.input) ?? 'null';
  const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return `${intent.namespace}.${intent.name}(${shown})`;
}

function withoutDecision(pause: PauseRecord): Omit<PauseRecord, 'decision'> {
  const { decision: _decision, ...rest } = pause;
  return rest;
}

function pauseToken(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return `pause_${Buffer.from(bytes).toString('base64url')}`;
}
