import type { EventLoopUtilization } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { HostToWorker, RunDeterminism, WorkerBoot, WorkerToHost } from './worker-main.js';
import type { ProcessToHost, StopCause, WorkerProcessBoot } from './worker-process-frames.js';
import { preludeSource, workerSource } from './worker-source.js';
import { LogReader, logBufferBytes } from './worker-thread-log-reader.js';

const mebibyte = 1024 * 1024;
const youngGenerationMb = 8;
const logPollMs = 5;

interface ActiveRun {
  readonly seq: number;
  readonly busyAtStart: EventLoopUtilization;
  readonly callIds: Set<number>;
  cpuTimer: ReturnType<typeof setTimeout> | undefined;
  logTimer: ReturnType<typeof setInterval> | undefined;
  ended: boolean;
}

/**
 * One worker thread and the run it serves, inside the worker process. It spawns the worker, checks
 * what the worker reports (everything from the program's context is hostile), relays logs, host
 * calls and the ending to the host as frames, meters busy time from outside the worker, and
 * terminates the worker the moment a run ends any way other than the program finishing by itself.
 * A terminated worker is never reused; `onGone` tells the process to start another.
 */
export class WorkerSlot {
  readonly #worker: Worker;
  readonly #logs: LogReader;
  readonly #boot: WorkerProcessBoot;
  readonly #send: (frame: ProcessToHost) => void;
  readonly #onGone: () => void;
  #state: 'starting' | 'idle' | 'busy' | 'gone' = 'starting';
  #active: ActiveRun | undefined;
  /** The run whose worker is being terminated: named in `retired` once it exited. */
  #retiredSeq = 0;
  #outOfMemory = false;
  #booted = false;

  constructor(boot: WorkerProcessBoot, send: (frame: ProcessToHost) => void, onGone: () => void) {
    this.#boot = boot;
    this.#send = send;
    this.#onGone = onGone;
    const logBuffer = new SharedArrayBuffer(logBufferBytes(boot.logBytes, boot.hostCalls));
    this.#logs = new LogReader(logBuffer);
    const workerBoot: WorkerBoot = {
      logBuffer,
      preludeSource,
      memoryBytes: boot.memoryBytes,
      niceness: boot.niceness,
      preludeConfig: JSON.stringify({
        logBytes: boot.logBytes,
        valueBytes: boot.valueBytes,
        hostCallBytes: boot.hostCallBytes,
        hostCalls: boot.hostCalls,
        timers: boot.timers,
        maxDelayMs: boot.wallTimeMs,
        memoryBytes: boot.memoryBytes,
        depthLimit: boot.depthLimit,
      }),
    };
    this.#worker = new Worker(workerSource, {
      eval: true,
      workerData: workerBoot,
      env: {},
      argv: [],
      execArgv: [],
      stdin: false,
      name: 'sluice-code-runtime',
      resourceLimits: {
        maxOldGenerationSizeMb: Math.max(8, Math.floor(boot.memoryBytes / mebibyte) - youngGenerationMb),
        maxYoungGenerationSizeMb: youngGenerationMb,
        stackSizeMb: 4,
      },
    });
    this.#worker.on('message', (message: WorkerToHost) => this.#onMessage(message));
    this.#worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') this.#outOfMemory = true;
    });
    this.#worker.once('exit', () => this.#onExit());
  }

  /** `starting` until the worker booted, `idle` between runs, `busy` during one, `gone` once terminated. */
  get state(): 'starting' | 'idle' | 'busy' | 'gone' {
    return this.#state;
  }

  /** Whether the worker ever finished booting. */
  get booted(): boolean {
    return this.#booted;
  }

  /** Runs `code` as run `seq`, deterministically when `deterministic` is given. Only on an `idle` slot. */
  execute(seq: number, code: string, bindings: string, deterministic?: RunDeterminism): void {
    this.#state = 'busy';
    const active: ActiveRun = {
      seq,
      busyAtStart: this.#worker.performance.eventLoopUtilization(),
      callIds: new Set(),
      cpuTimer: undefined,
      logTimer: undefined,
      ended: false,
    };
    this.#active = active;
    this.#logs.reset(seq);
    // Lines printed during a long synchronous stretch are relayed by polling the shared buffer, so
    // the host has them even if it kills the run a moment later.
    active.logTimer = setInterval(() => this.#drainLogs(active), logPollMs);
    this.#armCpu(active, this.#boot.cpuTimeMs);
    this.#post({ type: 'run', seq, code, bindings, ...(deterministic === undefined ? {} : { deterministic }) });
  }

  /** Relays the host's reply to a call of run `seq`; ignored for any other run or an unknown call. */
  reply(seq: number, callId: number, ok: boolean, text: string): void {
    const active = this.#active;
    if (active === undefined || active.seq !== seq || active.ended || !active.callIds.has(callId)) return;
    this.#post({ type: 'reply', seq, callId, ok, text });
  }

  /** The host ended run `seq`: the worker is terminated (after relaying the lines it printed). */
  stop(seq: number): void {
    const active = this.#active;
    if (active === undefined || active.seq !== seq) return;
    this.#drainLogs(active, undefined, true);
    this.#end(active, false);
  }

  /** Terminates the worker. Idempotent. */
  retire(): void {
    if (this.#state === 'gone') return;
    this.#state = 'gone';
    this.#worker.terminate().catch(() => {
      // The exit event still comes; nothing else to do.
    });
  }

  #post(message: HostToWorker): void {
    try {
      this.#worker.postMessage(message);
    } catch {
      // The worker is already gone; its exit handler ends the run.
    }
  }

  #busyMs(active: ActiveRun): number {
    return this.#worker.performance.eventLoopUtilization(active.busyAtStart).active;
  }

  #armCpu(active: ActiveRun, remainingMs: number): void {
    active.cpuTimer = setTimeout(
      () => {
        if (active.ended) return;
        const used = this.#busyMs(active);
        if (used < this.#boot.cpuTimeMs) {
          this.#armCpu(active, this.#boot.cpuTimeMs - used);
          return;
        }
        this.#stopRun(active, 'cpu-time', used);
      },
      Math.max(1, Math.ceil(remainingMs)),
    );
  }

  /** Ends `active` from here: its last lines, then the cause, then the worker is terminated. */
  #stopRun(active: ActiveRun, cause: StopCause, detail: string | number): void {
    if (active.ended) return;
    this.#drainLogs(active, undefined, true);
    this.#send({ type: 'stopped', seq: active.seq, cause, detail, cpuMs: this.#busyMs(active) });
    this.#end(active, false);
  }

  /** Relays the lines printed up to `end` (by default all published) as one frame. */
  #drainLogs(active: ActiveRun, end?: number, everything = false): boolean {
    if (this.#active !== active || active.ended) return true;
    const lines: Array<[string, string]> = [];
    const wellFormed = this.#logs.read(
      (level, text) => lines.push([level, text]),
      end,
      (callId) => everything || active.callIds.has(callId),
    );
    if (lines.length > 0) this.#send({ type: 'logs', seq: active.seq, lines });
    return wellFormed;
  }

  #end(active: ActiveRun, clean: boolean): void {
    active.ended = true;
    clearTimeout(active.cpuTimer);
    clearInterval(active.logTimer);
    if (this.#active !== active) return;
    this.#active = undefined;
    if (clean && this.#state === 'busy') {
      this.#state = 'idle';
      return;
    }
    this.#retiredSeq = active.seq;
    this.retire();
  }

  #onExit(): void {
    const active = this.#active;
    this.#state = 'gone';
    if (active !== undefined && !active.ended) {
      this.#retiredSeq = active.seq;
      this.#stopRun(
        active,
        this.#outOfMemory ? 'heap' : 'worker-exit',
        this.#outOfMemory ? this.#boot.memoryBytes : '',
      );
    }
    if (this.#retiredSeq !== 0) this.#send({ type: 'retired', seq: this.#retiredSeq });
    this.#onGone();
  }

  #onMessage(message: WorkerToHost): void {
    if (typeof message !== 'object' || message === null) return;
    if (message.type === 'ready') {
      if (this.#state === 'starting') {
        this.#state = 'idle';
        this.#booted = true;
        this.#send({ type: 'ready' });
      }
      return;
    }
    const active = this.#active;
    if (active === undefined || message.seq !== active.seq || active.ended) return;
    if (message.type === 'turn') this.#onTurn(active, message.entries, message.logEnd);
    else if (message.type === 'external-memory') this.#stopRun(active, 'external-memory', Number(message.bytes));
    else if (message.type === 'broken') this.#stopRun(active, 'protocol', String(message.reason));
  }

  #onTurn(active: ActiveRun, entriesText: unknown, logEnd: unknown): void {
    if (typeof entriesText !== 'string' || typeof logEnd !== 'number') {
      this.#stopRun(active, 'protocol', 'a malformed turn');
      return;
    }
    let entries: unknown = [];
    if (entriesText !== '') {
      if (entriesText.length > 4 * this.#boot.memoryBytes) {
        this.#stopRun(active, 'protocol', 'an oversized turn');
        return;
      }
      try {
        entries = JSON.parse(entriesText);
      } catch {
        this.#stopRun(active, 'protocol', 'a turn that is not JSON');
        return;
      }
    }
    if (!Array.isArray(entries)) {
      this.#stopRun(active, 'protocol', 'a turn that is not a list');
      return;
    }
    for (const entry of entries) {
      if (active.ended) return;
      if (!Array.isArray(entry) || typeof entry[1] !== 'number') {
        this.#stopRun(active, 'protocol', 'a malformed entry');
        return;
      }
      const [kind, logAt, ...rest] = entry as [unknown, number, ...unknown[]];
      // A call's id is registered first, so the drain passes its marker in the log stream.
      if (kind === 'call' && !this.#registerCall(active, rest[0])) return;
      if (!this.#drainLogs(active, logAt)) {
        this.#stopRun(active, 'protocol', 'malformed log lines');
        return;
      }
      if (kind === 'call') {
        const [callId, namespace, name, input, positional] = rest;
        if (
          typeof namespace !== 'string' ||
          typeof name !== 'string' ||
          typeof input !== 'string' ||
          (positional !== 0 && positional !== 1)
        ) {
          this.#stopRun(active, 'protocol', 'a malformed host call');
          return;
        }
        this.#send({
          type: 'call',
          seq: active.seq,
          callId: callId as number,
          namespace,
          name,
          input,
          positional: positional === 1,
        });
      } else if (kind === 'done') {
        this.#drainLogs(active, undefined, true);
        this.#send({ type: 'done', seq: active.seq, kind: rest[0], payload: rest[1], cpuMs: this.#busyMs(active) });
        this.#end(active, true);
      } else if (kind === 'memory') this.#stopRun(active, 'external-memory', Number(rest[0]));
      else {
        this.#stopRun(active, 'protocol', 'an unknown entry');
        return;
      }
    }
    if (!active.ended && !this.#drainLogs(active, logEnd)) this.#stopRun(active, 'protocol', 'malformed log lines');
  }

  #registerCall(active: ActiveRun, callId: unknown): boolean {
    if (!Number.isSafeInteger(callId) || active.callIds.has(callId as number)) {
      this.#stopRun(
        active,
        'protocol',
        Number.isSafeInteger(callId) ? 'a duplicate host-call id' : 'a malformed host call',
      );
      return false;
    }
    active.callIds.add(callId as number);
    return true;
  }
}
