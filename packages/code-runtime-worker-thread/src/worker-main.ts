import type { Pump } from './prelude-main.js';

/** What the host sends a worker. */
export type HostToWorker =
  | {
      readonly type: 'run';
      readonly seq: number;
      readonly code: string;
      readonly bindings: string;
      /** Present for a deterministic run. */
      readonly deterministic?: RunDeterminism;
    }
  | {
      readonly type: 'reply';
      readonly seq: number;
      readonly callId: number;
      readonly ok: boolean;
      readonly text: string;
    };

/** What a worker sends the host. Everything in `entries` comes from the program's context and is untrusted. */
export type WorkerToHost =
  | { readonly type: 'ready' }
  | { readonly type: 'turn'; readonly seq: number; readonly entries: string; readonly logEnd: number }
  | { readonly type: 'external-memory'; readonly seq: number; readonly bytes: number }
  | { readonly type: 'broken'; readonly seq: number; readonly reason: string };

/** A deterministic run's seed and start time (the contract's `CodeRunDeterminism`). */
export interface RunDeterminism {
  readonly seed: number;
  readonly startTime: number;
}

/** The worker's start-up data. */
export interface WorkerBoot {
  /** Shared with the worker process's main thread: an Int32 header (the write position, the run's seq) and then UTF-16 log entries. */
  readonly logBuffer: SharedArrayBuffer;
  /** JSON for the prelude's `init`. */
  readonly preludeConfig: string;
  readonly preludeSource: string;
  /** Nice value this thread gives itself; Linux priorities are per thread, so only the program's thread runs lower. */
  readonly niceness: number;
  /** Bytes of external memory (beyond the worker's own baseline) at which a sample ends the run. */
  readonly memoryBytes: number;
}

/**
 * The worker thread's entry point. Serialised with `Function.prototype.toString` and evaluated as
 * the worker's source (strict), so it must stay self-contained: Node modules come through
 * `require`, and the realm hardening is passed in as a function.
 *
 * Every entry into a run's context is a "turn": one call into the prelude's pump (or the program's
 * first evaluation), then an empty script whose only job is to drain the context's own microtask
 * queue (`microtaskMode: 'afterEvaluate'`), then a flush of the outbox to the host. Values thrown
 * out of the context are never touched here: they go back into the context to be described.
 *
 * A deterministic run sets no real timers. After each of its turns, when the prelude says a step
 * is waiting (the next reply in call order has come, or no call is unanswered and a timer is set),
 * the step is taken in a turn of its own from `setImmediate`: by then the context's microtasks were
 * drained by the turn before, and Node has reported that turn's unhandled rejections, so nothing
 * else the program started can still happen first.
 */
export function workerMain(require: (id: string) => unknown, harden: () => void): void {
  const vm = require('node:vm') as typeof import('node:vm');
  const threads = require('node:worker_threads') as typeof import('node:worker_threads');
  const v8 = require('node:v8') as typeof import('node:v8');
  const port = threads.parentPort!;
  const boot = threads.workerData as WorkerBoot;
  const processObject = require('node:process') as NodeJS.Process;
  if (boot.niceness > 0) {
    try {
      // Pid 0 is the calling thread on Linux: the process's main thread (relay, meter, kills) keeps its priority.
      (require('node:os') as typeof import('node:os')).setPriority(0, boot.niceness);
    } catch {
      // Not permitted here: the program runs at the process's priority.
    }
  }
  harden();

  const header = new Int32Array(boot.logBuffer, 0, 4);
  const preludeScript = new vm.Script(boot.preludeSource, { filename: 'sluice-prelude.js' });
  const drain = new vm.Script('', { filename: 'sluice-turn.js' });
  const sampleEveryMs = 5;

  interface Prepared {
    readonly context: import('node:vm').Context;
    readonly pump: Pump;
  }
  interface Current extends Prepared {
    readonly seq: number;
    readonly timers: Map<number, ReturnType<typeof setTimeout>>;
    readonly deterministic: boolean;
    /** A deterministic run's next step, when one is scheduled. */
    step: ReturnType<typeof setImmediate> | undefined;
    lastLogEnd: number;
    done: boolean;
  }
  let prepared: Prepared | undefined;
  let current: Current | undefined;
  let broken = false;
  let lastSample = 0;

  function prepare(): Prepared {
    const context = vm.createContext(
      {},
      { codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' },
    );
    const pump = preludeScript.runInContext(context) as unknown;
    if (typeof pump !== 'function') throw new Error('The prelude did not return its pump.');
    (pump as Pump)('init', boot.logBuffer, boot.preludeConfig);
    return { context, pump: pump as Pump };
  }

  function send(message: WorkerToHost): void {
    port.postMessage(message);
  }

  function breakDown(run: Current, reason: string): void {
    broken = true;
    send({ type: 'broken', seq: run.seq, reason });
  }

  function turn(run: Current, enter: () => void): void {
    if (broken || run.done) return;
    try {
      enter();
      drain.runInContext(run.context);
    } catch {
      // Whatever was thrown belongs to the program's realm; it is not inspected here.
      breakDown(run, 'the context threw out of a turn');
      return;
    }
    flush(run);
  }

  function flush(run: Current): void {
    const operations = run.pump('timers');
    const entries = run.pump('take');
    const finished = run.pump('finished');
    if (typeof operations !== 'string' || typeof entries !== 'string' || typeof finished !== 'boolean') {
      breakDown(run, 'the prelude answered with something other than text');
      return;
    }
    if (operations !== '') scheduleTimers(run, operations);
    const logEnd = Atomics.load(header, 0);
    if (entries !== '' || logEnd !== run.lastLogEnd) {
      run.lastLogEnd = logEnd;
      send({ type: 'turn', seq: run.seq, entries, logEnd });
    }
    const now = performance.now();
    if (now - lastSample >= sampleEveryMs || finished) {
      lastSample = now;
      const external = v8.getHeapStatistics().external_memory - externalBaseline;
      if (external > boot.memoryBytes) send({ type: 'external-memory', seq: run.seq, bytes: external });
    }
    if (finished) end(run);
    else if (run.deterministic && run.step === undefined && run.pump('waiting') === true) {
      run.step = setImmediate(() => {
        run.step = undefined;
        turn(run, () => run.pump('step'));
      });
    }
  }

  function scheduleTimers(run: Current, operations: string): void {
    for (const operation of operations.split(';')) {
      if (operation === '') continue;
      if (operation[0] === 's') {
        const [id, ms] = operation.slice(1).split(':').map(Number) as [number, number];
        run.timers.set(
          id,
          setTimeout(() => {
            run.timers.delete(id);
            turn(run, () => run.pump('timer', id));
          }, ms),
        );
      } else {
        const id = Number(operation.slice(1));
        clearTimeout(run.timers.get(id));
        run.timers.delete(id);
      }
    }
  }

  function end(run: Current): void {
    run.done = true;
    clearImmediate(run.step);
    for (const timer of run.timers.values()) clearTimeout(timer);
    run.timers.clear();
    if (current === run) current = undefined;
    setImmediate(() => {
      if (!broken && prepared === undefined && current === undefined) prepared = prepare();
    });
  }

  function start(seq: number, code: string, bindings: string, deterministic: RunDeterminism | undefined): void {
    const ready = prepared ?? prepare();
    prepared = undefined;
    const run: Current = {
      ...ready,
      seq,
      timers: new Map(),
      deterministic: deterministic !== undefined,
      step: undefined,
      lastLogEnd: 0,
      done: false,
    };
    current = run;
    let script: import('node:vm').Script;
    try {
      script = new vm.Script(code, { filename: 'program.js' });
    } catch (error) {
      // A compile error is the worker's own object (the source is compiled outside the context).
      const problem = error as Error;
      const entry = JSON.stringify([
        'done',
        0,
        'error',
        { name: String(problem.name), message: String(problem.message), stack: String(problem.stack) },
      ]);
      send({ type: 'turn', seq, entries: `[${entry}]`, logEnd: 0 });
      end(run);
      return;
    }
    turn(run, () => {
      if (deterministic === undefined) run.pump('begin', bindings);
      else run.pump('begin', bindings, deterministic.seed, deterministic.startTime);
      let completion: unknown;
      try {
        completion = script.runInContext(run.context);
      } catch (thrown) {
        run.pump('fail', thrown);
        return;
      }
      run.pump('start', completion);
    });
  }

  processObject.on('unhandledRejection', (reason) => {
    const run = current;
    if (run !== undefined) turn(run, () => run.pump('unhandled', reason));
  });
  processObject.on('uncaughtException', () => {
    // Never inspect it: it may be the program's object. A worker in this state is done for.
    processObject.exit(70);
  });

  port.on('message', (message: HostToWorker) => {
    if (message.type === 'run') {
      if (current !== undefined || broken) return;
      // End first, then the run's seq: a reader that sees this seq sees this run's end.
      Atomics.store(header, 0, 0);
      Atomics.store(header, 1, message.seq);
      start(message.seq, message.code, message.bindings, message.deterministic);
    } else if (message.type === 'reply') {
      const run = current;
      if (run === undefined || run.seq !== message.seq) return;
      turn(run, () => run.pump('reply', message.callId, message.ok ? 1 : 0, message.text));
    }
  });
  prepared = prepare();
  // What the worker holds outside its heap before any program (the shared log buffer among it).
  const externalBaseline = v8.getHeapStatistics().external_memory;
  send({ type: 'ready' });
}
