import type { ChildProcess } from 'node:child_process';
import { type CodeRunDeterminism, foreignText, type LogLevel } from '@sluice/code-runtime';
import { JsonLineReader, type RunController } from '@sluice/code-runtime-kit';
import { cpuUsage, exitFailure, exitHow, stopFailure } from './worker-process-failures.js';
import type { HostToProcess, StopCause } from './worker-process-frames.js';
import { removeDirectory, spawnWorkerProcess, type WorkerProcessContainment } from './worker-process-spawn.js';
import { type CompiledProgram, describeException, mapProgramPositions } from './worker-thread-compile.js';
import { parseCall, parseEnding } from './worker-thread-entries.js';
import type { ResolvedWorkerThreadSettings } from './worker-thread-settings.js';

const mebibyte = 1024 * 1024;
const stderrTailBytes = 16 * 1024;
/** How long a worker process may take to confirm that a stopped run's worker exited before the whole process is killed. */
const stopGraceMs = 1_000;
/** How long a new worker process may take to say it is ready (measured: ~0.1 s; far longer on a machine under load). */
const bootTimeoutMs = 30_000;
const levels = new Set<string>(['log', 'info', 'debug', 'warn', 'error']);

interface ActiveRun {
  readonly run: RunController;
  readonly program: CompiledProgram;
  readonly seq: number;
  /** The program finished on its own (value, throw): the process's worker serves the next run. */
  clean: boolean;
}

/**
 * One supervised worker process, host side: it starts the child with the OS layers this machine
 * allows, sends it programs, checks every frame it sends back (the child runs model code, so its
 * frames are as hostile as the program), and turns them into the run's logs, host calls and
 * outcome. One run at a time. A run that ends abnormally has its worker replaced inside the
 * process; when the process itself dies (a fatal engine error, a refused frame, a kill), the run it
 * held ends as a result and the pool starts another process.
 */
export class WorkerProcess {
  readonly #settings: ResolvedWorkerThreadSettings;
  readonly #onFree: (slot: WorkerProcess, reusable: boolean) => void;
  readonly #frames: JsonLineReader;
  #child: ChildProcess | undefined;
  #directory: string | undefined;
  #state: 'starting' | 'idle' | 'busy' | 'recycling' | 'gone' = 'starting';
  #active: ActiveRun | undefined;
  #seq = 0;
  #booted = false;
  #stderr = '';
  #problem: string | undefined;
  #stopTimer: ReturnType<typeof setTimeout> | undefined;
  #bootTimer: ReturnType<typeof setTimeout> | undefined;
  #stopping: { readonly seq: number; readonly done: Promise<void>; readonly resolve: () => void } | undefined;
  #resolveExited!: () => void;
  #retiredByPool = false;
  #killed = false;
  /** Resolves once the process has exited (or could not be started). */
  readonly exited: Promise<void>;

  constructor(
    settings: ResolvedWorkerThreadSettings,
    onFree: (slot: WorkerProcess, reusable: boolean) => void,
    containment: WorkerProcessContainment,
    /** The child's entry; tests give a hostile one. */
    script?: string,
  ) {
    this.#settings = settings;
    this.#onFree = onFree;
    this.exited = new Promise((resolve) => {
      this.#resolveExited = resolve;
    });
    const maxLineBytes = 8 * Math.max(settings.valueBytes, settings.hostCallBytes, settings.logBytes) + mebibyte;
    this.#frames = new JsonLineReader(
      maxLineBytes,
      (frame) => this.#onFrame(frame),
      (problem) => this.#refuse(problem),
    );
    try {
      const { child, directory } = spawnWorkerProcess(settings, containment, script);
      this.#child = child;
      this.#directory = directory;
    } catch (error) {
      this.#problem = `The worker process could not be started: ${foreignText(error, 1_000)}.`;
      this.#state = 'gone';
      this.#resolveExited();
      // Told after the constructor returns, so the pool never hears of a slot it has not added yet.
      queueMicrotask(() => this.#onFree(this, false));
      return;
    }
    const child = this.#child;
    child.stdout?.on('data', (chunk: Buffer) => this.#frames.push(chunk));
    this.#bootTimer = setTimeout(() => {
      this.#problem ??= `The worker process did not become ready within ${bootTimeoutMs / 1000} s and was killed.`;
      this.#kill();
    }, bootTimeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-stderrTailBytes);
    });
    // A write to a process that just died fails with EPIPE; its exit handler ends the run.
    child.stdin?.on('error', () => {});
    child.stdout?.on('error', () => {});
    child.stderr?.on('error', () => {});
    child.once('error', (error) => {
      this.#problem ??= `The worker process could not be started: ${foreignText(error, 1_000)}.`;
      this.#onExit(null, null);
    });
    // 'close', not 'exit': it comes once stdout and stderr are read to their end, so the last frames
    // and V8's last words on stderr (which tell an out-of-memory abort apart) are in.
    child.once('close', (code, signal) => this.#onExit(code, signal));
  }

  /** `starting` until booted, `idle` between runs, `busy` during one, `recycling` while a worker is replaced, `gone` once dead. */
  get state(): 'starting' | 'idle' | 'busy' | 'recycling' | 'gone' {
    return this.#state;
  }

  /** Whether the process ever became ready. */
  get booted(): boolean {
    return this.#booted;
  }

  /** Why the process could not start or died while idle, if it did. */
  get problem(): string | undefined {
    return this.#problem;
  }

  /** Resolves once the worker of the last stopped run has really exited (or the process has). */
  settled(): Promise<void> {
    return this.#stopping?.done ?? Promise.resolve();
  }

  /** Runs `program` for `run`, deterministically when `deterministic` is given. Only on an `idle` process. */
  execute(run: RunController, program: CompiledProgram, deterministic?: CodeRunDeterminism): void {
    this.#state = 'busy';
    this.#seq += 1;
    const active: ActiveRun = { run, program, seq: this.#seq, clean: false };
    this.#active = active;
    run.signal.addEventListener('abort', () => this.#ended(active), { once: true });
    const bindings = [...run.bindings.keys()].join(',');
    const { seed, startTime } = deterministic ?? {};
    this.#send({
      type: 'run',
      seq: active.seq,
      code: program.code,
      bindings,
      // Only the two numbers, and only for a deterministic run: a plain run's frame is as it was.
      ...(seed === undefined || startTime === undefined ? {} : { deterministic: { seed, startTime } }),
    });
  }

  /** Kills the process for the pool, which then needs no word of its exit. Idempotent. */
  retire(): Promise<void> {
    this.#retiredByPool = true;
    this.#kill();
    return this.exited;
  }

  /** Kills the process; its exit handler ends the run it held and tells the pool. */
  #kill(): void {
    if (this.#killed) return;
    this.#killed = true;
    this.#child?.kill('SIGKILL');
  }

  #send(frame: HostToProcess): void {
    try {
      this.#child?.stdin?.write(`${JSON.stringify(frame)}\n`);
    } catch {
      // The process is gone; its exit handler ends the run.
    }
  }

  #ended(active: ActiveRun): void {
    if (this.#active !== active) return;
    this.#active = undefined;
    if (this.#state !== 'busy') return;
    if (active.clean) {
      this.#state = 'idle';
      this.#onFree(this, true);
      return;
    }
    // The host ended the run (wall clock, cancellation) or the child did (budget): either way the
    // worker is terminated and replaced in the process, which says `ready` once it is.
    this.#state = 'recycling';
    let resolve!: () => void;
    const done = new Promise<void>((settle) => {
      resolve = settle;
    });
    this.#stopping = { seq: active.seq, done, resolve };
    this.#send({ type: 'stop', seq: active.seq });
    this.#stopTimer = setTimeout(() => {
      this.#problem ??= 'The worker process did not stop a run in time and was killed.';
      this.#kill();
    }, stopGraceMs);
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#child === undefined || this.#resolveExitedOnce()) return;
    clearTimeout(this.#stopTimer);
    clearTimeout(this.#bootTimer);
    this.#stopping?.resolve();
    this.#frames.stop();
    if (this.#directory !== undefined) removeDirectory(this.#directory);
    this.#state = 'gone';
    const active = this.#active;
    this.#active = undefined;
    if (active !== undefined && !active.run.ended) {
      active.run.finish({ ok: false, failure: exitFailure(this.#settings, this.#stderr, code, signal, this.#problem) });
    } else if (this.#problem === undefined && !this.#booted) {
      const how = exitHow(code, signal);
      const said = this.#stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500);
      this.#problem = `The worker process ${how} before it was ready${said ? ` (${said})` : ''}.`;
    }
    if (!this.#retiredByPool) this.#onFree(this, false);
  }

  #exitSeen = false;
  #resolveExitedOnce(): boolean {
    if (this.#exitSeen) return true;
    this.#exitSeen = true;
    this.#resolveExited();
    return false;
  }

  /** A frame the host refuses: the run ends as `protocol` and the process is killed. */
  #refuse(detail: string): void {
    const active = this.#active;
    this.#problem ??= `The worker process sent ${detail}.`;
    if (active !== undefined) {
      active.run.finish({
        ok: false,
        failure: {
          kind: 'protocol',
          message: `The worker running the program sent something the host refuses (${detail}); the worker was stopped.`,
        },
      });
    }
    this.#kill();
  }

  #onFrame(frame: unknown): void {
    try {
      this.#handleFrame(frame);
    } catch (error) {
      // A bug of ours must not throw out of a stream handler and take the host down: the run ends instead.
      this.#refuse(`a frame the host failed on (${foreignText(error, 300)})`);
    }
  }

  #handleFrame(frame: unknown): void {
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
      this.#refuse('a frame that is not an object');
      return;
    }
    const fields = frame as Record<string, unknown>;
    const type = fields.type;
    if (type === 'ready') {
      this.#onReady();
      return;
    }
    if (type === 'retired') {
      if (this.#stopping !== undefined && fields.seq === this.#stopping.seq) {
        clearTimeout(this.#stopTimer);
        this.#stopping.resolve();
      }
      return;
    }
    const active = this.#active;
    // Frames of a run that already ended (its last lines, a late call) are dropped.
    if (active === undefined || fields.seq !== active.seq || active.run.ended) return;
    if (type === 'logs') this.#onLogs(active, fields.lines);
    else if (type === 'call') this.#onCall(active, fields);
    else if (type === 'done') this.#onDone(active, fields);
    else if (type === 'stopped') this.#onStopped(active, fields.cause, fields.detail, fields.cpuMs);
    else this.#refuse('a frame of an unknown type');
  }

  #onReady(): void {
    clearTimeout(this.#bootTimer);
    if (this.#state === 'starting') this.#booted = true;
    else if (this.#state !== 'recycling') return;
    this.#state = 'idle';
    this.#onFree(this, true);
  }

  #onLogs(active: ActiveRun, lines: unknown): void {
    if (!Array.isArray(lines)) {
      this.#refuse('a malformed log frame');
      return;
    }
    for (const line of lines) {
      const [level, text] = Array.isArray(line) ? (line as unknown[]) : [];
      if (typeof level !== 'string' || !levels.has(level) || typeof text !== 'string') {
        this.#refuse('a malformed log line');
        return;
      }
      const mapped = mapProgramPositions(active.program, text);
      if (mapped !== undefined) active.run.log(level as LogLevel, mapped);
    }
  }

  #onCall(active: ActiveRun, fields: Record<string, unknown>): void {
    const call = parseCall(fields.callId, fields.namespace, fields.name, fields.input, fields.positional);
    if (typeof call === 'string') {
      this.#refuse(call);
      return;
    }
    const { run, seq } = active;
    (call.positional
      ? run.call(call.namespace, call.name, null, call.input)
      : run.call(call.namespace, call.name, call.input)
    ).then(
      (reply) => {
        if (reply === undefined || run.ended || this.#active !== active) return;
        let text: string;
        try {
          text = reply.ok ? JSON.stringify(reply.value) : reply.error;
        } catch {
          text = 'The host could not encode this call’s result.';
          this.#send({ type: 'reply', seq, callId: call.callId, ok: false, text });
          return;
        }
        this.#send({ type: 'reply', seq, callId: call.callId, ok: reply.ok, text });
      },
      () => {
        run.finish({
          ok: false,
          failure: {
            kind: 'substrate-exit',
            message: 'The host failed while serving a host call; the run was stopped.',
          },
        });
      },
    );
  }

  #onDone(active: ActiveRun, fields: Record<string, unknown>): void {
    const ending = parseEnding(fields.kind, fields.payload);
    if (typeof ending === 'string') {
      this.#refuse(ending);
      return;
    }
    const usage = cpuUsage(fields.cpuMs);
    const { run } = active;
    active.clean = true;
    if (ending.kind === 'none') run.finish({ ok: true }, usage);
    else if (ending.kind === 'value') run.finish({ ok: true, value: ending.value }, usage);
    else if (ending.kind === 'error') {
      run.finish({ ok: false, failure: describeException(active.program, ending.thrown) }, usage);
    } else {
      const limitBytes = this.#settings.valueBytes;
      const message = `The returned value is more than ${limitBytes} bytes of JSON; the limit is ${limitBytes} bytes. Return less: filter, summarise or page the data.`;
      run.finish({ ok: false, failure: { kind: 'output-limit', limitBytes, message } }, usage);
    }
  }

  #onStopped(active: ActiveRun, cause: unknown, detail: unknown, cpuMs: unknown): void {
    const failure = stopFailure(this.#settings, cause as StopCause, detail);
    if (failure === undefined) {
      this.#refuse('a malformed stop');
      return;
    }
    active.run.finish({ ok: false, failure }, cpuUsage(cpuMs));
  }
}
