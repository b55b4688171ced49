import { rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { type CodeRunDeterminism, foreignText } from '@sluice/code-runtime';
import type { RunController } from '@sluice/code-runtime-kit';
import { JsonLineReader } from '@sluice/code-runtime-kit';
import { ChildLogs } from './python-child-logs.js';
import { appliedMemoryBytes, failureOfExit, outcomeOfDone, protocolMessage } from './python-outcome.js';
import { type PythonRuntimeConfig, valueDepthLimit } from './python-settings.js';
import type { Zygote } from './python-zygote.js';
import {
  type CallFrame,
  type ChildFrame,
  type ChildStream,
  type DoneFrame,
  parseChildFrame,
  type StartedFrame,
  wireProtocolVersion,
  type ZygoteReport,
} from './wire-frames.js';

type ExitReport = Extract<ZygoteReport, { type: 'exit' }>;

/** What every child of one runtime shares. */
export interface ChildContext {
  readonly config: PythonRuntimeConfig;
  /** The layers each child must report in `started`: exactly what the zygote's probe found. */
  readonly expectedLayers: readonly string[];
}

const streams: readonly ChildStream[] = ['control', 'stdout', 'stderr'];
const exitGraceMs = 2_000;

/**
 * One forked child as the host sees it: its three connections, its `started` frame, then one run.
 * It settles {@link ready} once the child is contained and waiting (or with why it never will be),
 * serves exactly one run, and ends when the run has its result and the child's channels are closed
 * (or the zygote says it exited). The child is never reused.
 */
export class PythonChild {
  /** `undefined` once the child waits for its program; otherwise why it cannot run one. */
  readonly ready: Promise<string | undefined>;
  /** Resolves once the child is gone and its working directory removed. */
  readonly gone: Promise<void>;
  readonly #sockets = new Map<ChildStream, Socket>();
  readonly #ended = new Set<ChildStream>();
  readonly #reader: JsonLineReader;
  #settleReady!: (failure: string | undefined) => void;
  #settleGone!: () => void;
  #state: 'starting' | 'ready' | 'failed' = 'starting';
  #pid: number | undefined;
  /** The address-space limit the child reported in `started`, before any program code ran in it. */
  #memoryBytes: number | undefined;
  #run: RunController | undefined;
  #done: DoneFrame | undefined;
  #exit: ExitReport | undefined;
  #exitTimer: ReturnType<typeof setTimeout> | undefined;
  #lastCallId = 0;
  #released = false;
  #awaitingDrain = false;
  readonly #logs: ChildLogs;

  constructor(
    readonly runNumber: number,
    readonly directory: string,
    private readonly context: ChildContext,
    private readonly zygote: Zygote,
    private readonly unexpect: () => void,
  ) {
    this.ready = new Promise((resolve) => {
      this.#settleReady = resolve;
    });
    this.gone = new Promise((resolve) => {
      this.#settleGone = resolve;
    });
    const { config } = context;
    this.#reader = new JsonLineReader(
      config.lineBytes,
      (value) => this.#frame(value),
      (problem) => this.#violation(problem),
    );
    this.#logs = new ChildLogs(config.limits.logBytes, () => {
      // The budget is spent: what the child writes to fd 1 and 2 from now on is refused at the source.
      for (const stream of ['stdout', 'stderr'] as const) this.#sockets.get(stream)?.destroy();
    });
  }

  /** One of the child's connections arrived, with whatever followed its hello line. */
  attach(stream: ChildStream, socket: Socket, rest: Buffer): void {
    if (this.#released) {
      socket.destroy();
      return;
    }
    this.#sockets.set(stream, socket);
    socket.on('error', () => {});
    socket.on('end', () => this.#streamEnded(stream));
    socket.on('close', () => this.#streamEnded(stream));
    const onData =
      stream === 'control'
        ? (chunk: Buffer) => this.#reader.push(chunk)
        : (chunk: Buffer) => this.#logs.raw(stream, chunk);
    socket.on('data', onData);
    if (rest.length > 0) onData(rest);
    socket.resume();
  }

  /** The zygote's `exit` report: the child and everything it started are gone. */
  exited(report: ExitReport): void {
    if (this.#exit !== undefined) return;
    this.#exit = report;
    if (this.#state === 'starting') this.#fail(this.#startFailure(report));
    if (this.#released) {
      this.#cleanUp();
    } else if (this.#run === undefined) {
      this.#release();
    } else {
      // The channels normally close with the process; an escaped descendant holding one gets a grace period.
      this.#exitTimer = setTimeout(() => this.#settle(true), exitGraceMs);
      this.#settle(false);
    }
  }

  /** Whether the child waits, contained, for a program. */
  get usable(): boolean {
    return this.#state === 'ready' && this.#run === undefined && !this.#released && this.#exit === undefined;
  }

  /** The zygote died: the kernel kills its children with it, and no exit report will come. */
  orphaned(message: string): void {
    this.exited({ v: 1, type: 'exit', run: this.runNumber, error: message });
  }

  /** Hands the waiting child its one program, to run deterministically when `deterministic` is given. */
  assign(
    run: RunController,
    program: string,
    bindings: ReadonlyMap<string, readonly string[]>,
    deterministic?: CodeRunDeterminism,
  ): void {
    this.#run = run;
    this.#logs.attach(run);
    run.signal.addEventListener('abort', () => this.#release(), { once: true });
    if (run.ended) return;
    const { limits } = this.context.config;
    this.#write({
      v: wireProtocolVersion,
      type: 'run',
      program,
      bindings: Object.fromEntries(bindings),
      limits: {
        valueBytes: limits.valueBytes,
        hostCallBytes: limits.hostCallBytes,
        logBytes: limits.logBytes,
        depth: valueDepthLimit,
      },
      ...(deterministic === undefined
        ? {}
        : { deterministic: { seed: deterministic.seed, startTime: deterministic.startTime } }),
    });
  }

  /** Kills a child that will not be used (a spare at shutdown). */
  discard(): void {
    this.#fail('the child was discarded');
    this.#release();
  }

  #frame(value: unknown): void {
    const parsed = parseChildFrame(value);
    if (!('frame' in parsed)) {
      this.#violation(parsed.problem);
      return;
    }
    const frame: ChildFrame = parsed.frame;
    if (this.#state !== 'ready') {
      if (frame.type === 'started' && this.#state === 'starting') this.#started(frame);
      else this.#violation(`a ${frame.type} frame before started`);
      return;
    }
    const run = this.#run;
    if (run === undefined || frame.type === 'started') {
      this.#violation(`a ${frame.type} frame before its program was sent`);
      return;
    }
    if (this.#done !== undefined) {
      this.#violation(`a ${frame.type} frame after done`);
      return;
    }
    if (frame.type === 'log') {
      this.#logs.frame(frame.stream, frame.text);
    } else if (frame.type === 'call') {
      this.#call(run, frame);
    } else {
      this.#done = frame;
      this.#settle(false);
    }
  }

  #started(frame: StartedFrame): void {
    this.zygote.answered(this.runNumber);
    if (frame.error !== undefined) {
      this.#fail(frame.error);
      this.#release();
      return;
    }
    const expected = ['session', 'environment', 'directory', 'descriptors', ...this.context.expectedLayers];
    const missing = expected.filter((layer) => !frame.layers.includes(layer));
    if (missing.length > 0 || frame.layers.length !== expected.length) {
      this.#fail(`the Python child applied containment layers [${frame.layers}], not [${expected}]`);
      this.#release();
      return;
    }
    this.#pid = frame.pid;
    this.#memoryBytes = appliedMemoryBytes(this.context.config, frame.addressSpaceBytes);
    this.#state = 'ready';
    this.#settleReady(undefined);
  }

  #call(run: RunController, frame: CallFrame): void {
    if (frame.id <= this.#lastCallId) {
      this.#violation(`call id ${frame.id} after call id ${this.#lastCallId}`);
      return;
    }
    this.#lastCallId = frame.id;
    const positional = frame.arguments;
    if (positional !== undefined && (positional.length !== 2 || !Array.isArray(positional[0]))) {
      this.#violation('a positional call whose arguments are not [list, keywords]');
      return;
    }
    const replied =
      positional === undefined
        ? run.call(frame.namespace, frame.name, frame.input)
        : run.call(frame.namespace, frame.name, positional[1], positional[0]);
    replied
      .then((reply) => {
        if (reply === undefined || run.ended) return;
        this.#write(
          reply.ok
            ? { v: wireProtocolVersion, type: 'reply', id: frame.id, ok: true, value: reply.value }
            : { v: wireProtocolVersion, type: 'reply', id: frame.id, ok: false, error: reply.error },
        );
      })
      .catch((error: unknown) => {
        // The run controller replies rather than rejects, and a reply is JSON it has measured; should either
        // ever fail, the run still ends as a result.
        run.finish({
          ok: false,
          failure: {
            kind: 'substrate-exit',
            message: `The host could not serve call ${frame.id}: ${foreignText(error, 1024)}`,
          },
        });
      });
  }

  #write(frame: object): void {
    const control = this.#sockets.get('control');
    if (control === undefined || control.destroyed) return;
    // Backpressure: while the child is not taking replies, stop reading its calls.
    // One drain listener however many writes find the buffer full (one each would pass Node's listener limit).
    if (!control.write(`${JSON.stringify(frame)}\n`) && !this.#awaitingDrain) {
      this.#awaitingDrain = true;
      control.pause();
      control.once('drain', () => {
        this.#awaitingDrain = false;
        control.resume();
      });
    }
  }

  #streamEnded(stream: ChildStream): void {
    if (this.#ended.has(stream)) return;
    this.#ended.add(stream);
    if (stream !== 'control') this.#logs.rawEnded(stream);
    this.#settle(false);
  }

  #settle(graceOver: boolean): void {
    const run = this.#run;
    if (run === undefined || run.ended) return;
    // Every channel must be at its end, so nothing the child sent (a frame after done) is left unread.
    // Only a child whose descendants still hold a channel open gets cut off, after a grace period.
    const allEnded = streams.every((stream) => this.#ended.has(stream));
    if (!allEnded && !(graceOver && this.#exit !== undefined)) return;
    if (this.#done === undefined && this.#exit === undefined) return;
    this.#logs.flush();
    const { config } = this.context;
    const memoryBytes = this.#memoryBytes ?? config.memoryBytes;
    run.finish(
      ...(this.#done !== undefined
        ? outcomeOfDone(this.#done, config, memoryBytes)
        : failureOfExit(this.#exit!, config, memoryBytes)),
    );
  }

  #violation(problem: string): void {
    this.#reader.stop();
    if (this.#run === undefined) {
      this.#fail(`the Python child sent ${problem} while starting`);
      this.#release();
      return;
    }
    this.#run.finish({ ok: false, failure: { kind: 'protocol', message: protocolMessage(problem) } });
  }

  #fail(failure: string): void {
    if (this.#state !== 'starting') return;
    this.#state = 'failed';
    this.#settleReady(failure);
  }

  #startFailure(report: ExitReport): string {
    const detail = this.#logs.lastLineBeforeRun;
    const [outcome] = failureOfExit(report, this.context.config);
    const message = outcome.ok ? 'the child ended' : outcome.failure.message;
    return detail ? `${message} (${detail})` : message;
  }

  /** Kills the child (unless the zygote already reported it gone) and closes its channels. Idempotent. */
  #release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#reader.stop();
    this.unexpect();
    if (this.#exit === undefined) {
      if (this.#pid !== undefined) {
        // The zygote reports an exit as soon as it has reaped the child; until then the pid and its group
        // are still this child's (a stranger would need the whole pid space to wrap in between).
        try {
          process.kill(-this.#pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      } else {
        this.zygote.kill(this.runNumber);
      }
    }
    for (const socket of this.#sockets.values()) socket.destroy();
    if (this.#exit !== undefined) this.#cleanUp();
  }

  #cleanUp(): void {
    clearTimeout(this.#exitTimer);
    // The zygote removes the directory before it reports an exit; a child orphaned by a dead zygote has no report.
    if (this.#exit?.error === undefined) {
      this.#settleGone();
      return;
    }
    const settle = () => this.#settleGone();
    rm(this.directory, { recursive: true, force: true }).then(settle, settle);
  }
}
