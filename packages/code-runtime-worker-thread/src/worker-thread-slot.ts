import { setPriority } from 'node:os';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { CodeRunFailure } from '@sluice/code-runtime';
import type { RunController } from '@sluice/code-runtime-kit';
import type { HostToWorker, WorkerBoot, WorkerToHost } from './worker-main.js';
import { preludeSource, workerSource } from './worker-source.js';
import { type CompiledProgram, describeException, mapProgramPositions } from './worker-thread-compile.js';
import { type PendingCall, parseCall, parseEnding } from './worker-thread-entries.js';
import { LogReader, logBufferBytes } from './worker-thread-log-reader.js';
import type { ResolvedWorkerThreadSettings } from './worker-thread-settings.js';

const mebibyte = 1024 * 1024;
const youngGenerationMb = 8;
const logPollMs = 25;

interface ActiveRun {
  readonly run: RunController;
  readonly program: CompiledProgram;
  readonly seq: number;
  readonly busyAtStart: EventLoopUtilization;
  readonly callIds: Set<number>;
  cpuTimer: ReturnType<typeof setTimeout> | undefined;
  logTimer: ReturnType<typeof setInterval> | undefined;
  /** The program finished on its own (value, throw): the worker may serve another run. */
  clean: boolean;
}

/**
 * One worker thread and the run it is serving, host side. It spawns the worker, feeds the run
 * controller what the worker reports (after checking it: everything from the context is hostile),
 * meters busy time from outside the worker, and terminates the worker the moment a run ends any way
 * other than the program finishing by itself. A terminated worker is never reused.
 */
export class WorkerSlot {
  readonly #worker: Worker;
  readonly #logs: LogReader;
  readonly #settings: ResolvedWorkerThreadSettings;
  readonly #onFree: (slot: WorkerSlot, reusable: boolean) => void;
  #state: 'starting' | 'idle' | 'busy' | 'gone' = 'starting';
  #active: ActiveRun | undefined;
  #seq = 0;
  #outOfMemory = false;
  #booted = false;
  #thread: number | undefined;
  /** Resolves once the worker thread has exited. */
  readonly exited: Promise<void>;

  constructor(settings: ResolvedWorkerThreadSettings, onFree: (slot: WorkerSlot, reusable: boolean) => void) {
    this.#settings = settings;
    this.#onFree = onFree;
    const logBuffer = new SharedArrayBuffer(logBufferBytes(settings.logBytes, settings.hostCalls));
    this.#logs = new LogReader(logBuffer);
    const boot: WorkerBoot = {
      logBuffer,
      preludeSource,
      memoryBytes: settings.memoryBytes,
      niceness: 5,
      preludeConfig: JSON.stringify({
        logBytes: settings.logBytes,
        valueBytes: settings.valueBytes,
        hostCalls: settings.hostCalls,
        timers: settings.timers,
        maxDelayMs: settings.wallTimeMs,
        memoryBytes: settings.memoryBytes,
      }),
    };
    this.#worker = new Worker(workerSource, {
      eval: true,
      workerData: boot,
      env: {},
      argv: [],
      execArgv: [],
      stdin: false,
      name: 'sluice-code-runtime',
      resourceLimits: {
        maxOldGenerationSizeMb: Math.max(8, Math.floor(settings.memoryBytes / mebibyte) - youngGenerationMb),
        maxYoungGenerationSizeMb: youngGenerationMb,
        stackSizeMb: 4,
      },
    });
    this.exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()));
    this.#worker.on('message', (message: WorkerToHost) => this.#onMessage(message));
    this.#worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') this.#outOfMemory = true;
    });
    this.#worker.once('exit', () => this.#onExit());
  }

  /** `starting` until the worker booted, `idle` between runs, `busy` during one, `gone` once retired. */
  get state(): 'starting' | 'idle' | 'busy' | 'gone' {
    return this.#state;
  }

  /** Whether the worker ever finished booting. */
  get booted(): boolean {
    return this.#booted;
  }

  /** Runs `program` for `run`. Only on an `idle` slot. */
  execute(run: RunController, program: CompiledProgram): void {
    this.#state = 'busy';
    this.#seq += 1;
    const active: ActiveRun = {
      run,
      program,
      seq: this.#seq,
      busyAtStart: this.#worker.performance.eventLoopUtilization(),
      callIds: new Set(),
      cpuTimer: undefined,
      logTimer: undefined,
      clean: false,
    };
    this.#active = active;
    this.#logs.reset();
    run.beforeFinish(() => this.#drainLogs(active, undefined, true));
    // Lines printed during a long synchronous stretch are streamed by polling the shared buffer.
    active.logTimer = setInterval(() => this.#drainLogs(active), logPollMs);
    active.logTimer.unref();
    run.signal.addEventListener('abort', () => this.#ended(active), { once: true });
    this.#armCpu(active, this.#settings.cpuTimeMs);
    const bindings = [...run.bindings.keys()].join(',');
    this.#post({ type: 'run', seq: active.seq, code: program.code, bindings });
  }

  /** Terminates the worker. Idempotent. */
  retire(): Promise<void> {
    if (this.#state !== 'gone') {
      this.#state = 'gone';
      // The worker runs below the host's priority; its teardown should not wait behind other
      // work. Raising it back needs privilege (CAP_SYS_NICE), so this may quietly do nothing.
      // The thread is still alive here (no exit seen yet), so its id cannot have been reused.
      if (this.#thread !== undefined) {
        try {
          setPriority(this.#thread, 0);
        } catch {}
      }
      void this.#worker.terminate();
    }
    return this.exited;
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
        if (active.run.ended) return;
        const used = this.#busyMs(active);
        const limitMs = this.#settings.cpuTimeMs;
        if (used < limitMs) {
          this.#armCpu(active, limitMs - used);
          return;
        }
        this.#fail(active, {
          kind: 'timeout',
          budget: 'cpu-time',
          limitMs,
          message: `The program kept its worker busy past its ${limitMs} ms CPU budget and was stopped. Do less computation per run, or move heavy work into host functions.`,
        });
      },
      Math.max(1, Math.ceil(remainingMs)),
    );
  }

  #fail(active: ActiveRun, failure: CodeRunFailure): void {
    active.run.finish({ ok: false, failure }, { cpuMs: this.#busyMs(active) });
  }

  #protocol(active: ActiveRun, detail: string): void {
    this.#fail(active, {
      kind: 'protocol',
      message: `The worker running the program sent something the host refuses (${detail}); the worker was stopped.`,
    });
  }

  #drainLogs(active: ActiveRun, end?: number, everything = false): boolean {
    if (this.#active !== active || active.run.ended) return true;
    return this.#logs.read(
      (level, text) => {
        const mapped = mapProgramPositions(active.program, text);
        if (mapped !== undefined) active.run.log(level, mapped);
      },
      end,
      (callId) => everything || active.callIds.has(callId),
    );
  }

  #ended(active: ActiveRun): void {
    clearTimeout(active.cpuTimer);
    clearInterval(active.logTimer);
    if (this.#active !== active) return;
    this.#active = undefined;
    if (active.clean && this.#state === 'busy') {
      this.#state = 'idle';
      this.#onFree(this, true);
      return;
    }
    void this.retire();
    this.#onFree(this, false);
  }

  #onExit(): void {
    const active = this.#active;
    const retired = this.#state === 'gone';
    this.#state = 'gone';
    if (active !== undefined && !active.run.ended) {
      if (this.#outOfMemory) {
        const limitBytes = this.#settings.memoryBytes;
        this.#fail(active, {
          kind: 'memory',
          limitBytes,
          message: `The program ran out of its ${limitBytes}-byte memory budget (the worker's heap filled up) and was stopped. Keep less data in memory at once.`,
        });
      } else {
        this.#fail(active, {
          kind: 'substrate-exit',
          message: 'The worker thread running the program exited unexpectedly.',
        });
      }
    } else if (active === undefined && !retired) {
      this.#onFree(this, false);
    }
  }

  #onMessage(message: WorkerToHost): void {
    if (typeof message !== 'object' || message === null) return;
    if (message.type === 'ready') {
      if (this.#state === 'starting') {
        this.#state = 'idle';
        this.#booted = true;
        if (Number.isSafeInteger(message.thread) && (message.thread as number) > 0) this.#thread = message.thread;
        this.#onFree(this, true);
      }
      return;
    }
    const active = this.#active;
    if (active === undefined || message.seq !== active.seq || active.run.ended) return;
    if (message.type === 'turn') this.#onTurn(active, message.entries, message.logEnd);
    else if (message.type === 'external-memory') this.#outOfExternalMemory(active, message.bytes);
    else if (message.type === 'broken') this.#protocol(active, message.reason);
  }

  #outOfExternalMemory(active: ActiveRun, bytes: number): void {
    const limitBytes = this.#settings.memoryBytes;
    this.#fail(active, {
      kind: 'memory',
      limitBytes,
      message: `The program allocated memory outside the JavaScript heap (ArrayBuffers, typed arrays or engine objects: ${bytes} bytes) past its ${limitBytes}-byte budget and was stopped.`,
    });
  }

  #onTurn(active: ActiveRun, entriesText: unknown, logEnd: unknown): void {
    if (typeof entriesText !== 'string' || typeof logEnd !== 'number') {
      this.#protocol(active, 'a malformed turn');
      return;
    }
    let entries: unknown = [];
    if (entriesText !== '') {
      if (entriesText.length > 4 * this.#settings.memoryBytes) {
        this.#protocol(active, 'an oversized turn');
        return;
      }
      try {
        entries = JSON.parse(entriesText);
      } catch {
        this.#protocol(active, 'a turn that is not JSON');
        return;
      }
    }
    if (!Array.isArray(entries)) {
      this.#protocol(active, 'a turn that is not a list');
      return;
    }
    for (const entry of entries) {
      if (active.run.ended) return;
      if (!Array.isArray(entry) || typeof entry[1] !== 'number') {
        this.#protocol(active, 'a malformed entry');
        return;
      }
      // A call's id is registered first, so the drain passes its marker in the log stream.
      const call = entry[0] === 'call' ? this.#registerCall(active, entry) : undefined;
      if (active.run.ended) return;
      if (!this.#drainLogs(active, entry[1])) {
        this.#protocol(active, 'malformed log lines');
        return;
      }
      if (call !== undefined) this.#dispatch(active, call);
      else if (entry[0] === 'done') this.#done(active, entry);
      else if (entry[0] === 'memory') this.#outOfExternalMemory(active, Number(entry[2]));
      else {
        this.#protocol(active, 'an unknown entry');
        return;
      }
    }
    if (!active.run.ended && !this.#drainLogs(active, logEnd)) this.#protocol(active, 'malformed log lines');
  }

  #registerCall(active: ActiveRun, entry: unknown[]): PendingCall | undefined {
    const call = parseCall(entry);
    if (typeof call === 'string' || active.callIds.has(call.callId)) {
      this.#protocol(active, typeof call === 'string' ? call : 'a duplicate host-call id');
      return undefined;
    }
    active.callIds.add(call.callId);
    return call;
  }

  #dispatch(active: ActiveRun, { callId, namespace, name, input }: PendingCall): void {
    void active.run.call(namespace, name, input).then((reply) => {
      if (reply === undefined || active.run.ended || this.#active !== active) return;
      this.#post({
        type: 'reply',
        seq: active.seq,
        callId,
        ok: reply.ok,
        text: reply.ok ? JSON.stringify(reply.value) : reply.error,
      });
    });
  }

  #done(active: ActiveRun, entry: unknown[]): void {
    const ending = parseEnding(entry);
    if (typeof ending === 'string') {
      this.#protocol(active, ending);
      return;
    }
    const usage = { cpuMs: this.#busyMs(active) };
    active.clean = true;
    if (ending.kind === 'none') active.run.finish({ ok: true }, usage);
    else if (ending.kind === 'value') active.run.finish({ ok: true, value: ending.value }, usage);
    else if (ending.kind === 'error') {
      active.run.finish({ ok: false, failure: describeException(active.program, ending.thrown) }, usage);
    } else {
      const limitBytes = this.#settings.valueBytes;
      const message = `The returned value is more than ${limitBytes} bytes of JSON; the limit is ${limitBytes} bytes. Return less: filter, summarise or page the data.`;
      active.run.finish({ ok: false, failure: { kind: 'output-limit', limitBytes, message } }, usage);
    }
  }
}
