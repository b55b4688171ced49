import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CompileResult } from './program-compile.js';
import { bundleBlankerHere, stripHere } from './program-esbuild.js';

/** The compile thread's script, built by the kit as an entry of its own (`sluice.entries`). */
const compileThreadScript = fileURLToPath(new URL('../dist/compile-thread-main.js', import.meta.url));

// The parser's heap for a program at the 256 KiB source limit is tens of MiB; past this the
// thread (not the host) ends, and the compile it held fails as substrate-exit.
const heapLimitMb = 512;

interface Job {
  readonly id: number;
  readonly source: string;
  readonly resolve: (result: CompileResult) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

let thread: Worker | undefined;
/**
 * The thread's claim cell for the compile it was sent last: 0 while neither side has claimed it, 1
 * once the thread began the program's own work (then only terminating the thread stops it), 2 once
 * the host gave the compile up before that (the thread then drops it, and is kept).
 */
let claim: Int32Array | undefined;
let nextId = 0;
/** Compiles not yet sent to the thread, oldest first. */
const waiting = new Map<number, Job>();
/** The one compile the thread is working on. */
let current: Job | undefined;
/**
 * The id of a compile given up before the program's own work began: the thread is finishing the
 * fixed part (loading the parser) and will drop it; the next compile waits for its answer.
 */
let finishing: number | undefined;
/** Threads terminated and not yet exited; see {@link compileThreadActivity}. */
let ending = 0;

/**
 * Prepares a program in the process's one compile thread, started on the first call and shared by
 * every runtime: the TypeScript parser loads once per process, off the host's main thread (what
 * esbuild strips is sent to the host's esbuild service, from the main thread). The
 * thread works on one compile at a time, in the order they were asked for, and keeps the process
 * alive only while a compile is pending.
 *
 * When `signal` aborts (a run's `signal`, aborted the moment the run ends), the compile is
 * abandoned and resolves at once as an `abort` failure: one still waiting is dropped; the one the
 * thread is working on ends with the thread, which is terminated, once the program's own work has
 * begun (the compiles waiting behind it go to a new thread), and before that (the thread is loading
 * the parser, which V8 cannot interrupt) is dropped by the thread, which is kept. Never rejects: a thread that fails to start, runs out of memory or exits
 * fails the compile it was working on as `substrate-exit`, and the next compile starts a new one.
 */
export function compileInThread(source: string, signal?: AbortSignal): Promise<CompileResult> {
  return new Promise<CompileResult>((resolve) => {
    if (signal?.aborted) {
      resolve(abandoned());
      return;
    }
    const id = nextId++;
    const job: Job = { id, source, resolve, signal, onAbort: () => abandon(job) };
    signal?.addEventListener('abort', job.onAbort, { once: true });
    waiting.set(id, job);
    next();
  });
}

/** Sends the oldest waiting compile to the thread, when the thread is free. */
function next(): void {
  if (current !== undefined) return;
  if (finishing !== undefined) {
    // Whatever it finishes is no run's work: it does not keep the process alive.
    if (waiting.size === 0) thread?.unref();
    return;
  }
  const job = waiting.values().next().value;
  if (job === undefined) {
    thread?.unref();
    return;
  }
  waiting.delete(job.id);
  current = job;
  const worker = thread ?? start();
  worker.ref();
  Atomics.store(claim!, 0, 0);
  worker.postMessage({ id: job.id, source: job.source });
}

function settle(job: Job, result: CompileResult): void {
  job.signal?.removeEventListener('abort', job.onAbort);
  job.resolve(result);
}

function abandon(job: Job): void {
  if (waiting.delete(job.id)) {
    settle(job, abandoned());
    return;
  }
  if (job !== current) return;
  current = undefined;
  settle(job, abandoned());
  if (claim !== undefined && Atomics.compareExchange(claim, 0, 0, 2) === 0) {
    // The thread has not begun the program's own work: it drops the compile once the parser has
    // loaded (V8 could not stop it in the middle of that anyway) and stays, with the parser.
    finishing = job.id;
    next();
    return;
  }
  // The parse cannot be interrupted, so the thread ends with it; the compiles waiting behind it
  // never reached this thread and go to the next one.
  const worker = thread;
  thread = undefined;
  if (worker !== undefined) stop(worker);
  next();
}

function stop(worker: Worker): void {
  ending += 1;
  worker.terminate().then(
    () => {
      ending -= 1;
    },
    () => {
      ending -= 1;
    },
  );
}

function start(): Worker {
  const cell = new SharedArrayBuffer(4);
  const worker = new Worker(compileThreadScript, {
    workerData: { claim: cell },
    // Not the host's flags: `--input-type` (a host started with `node --input-type=module -e`) makes
    // a worker started from a file fail, and no flag the host was given is one the thread needs.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: heapLimitMb },
    stdout: false,
    stderr: false,
  });
  thread = worker;
  claim = new Int32Array(cell);
  worker.unref();
  worker.on('message', (message: unknown) => {
    if (thread !== worker) return;
    const { id, result, ask, call, text } = (message ?? {}) as Record<string, unknown>;
    if (typeof ask === 'number') {
      answer(worker, ask, call === 'strip' ? stripHere(String(text)) : blankerBundle());
      return;
    }
    if (finishing !== undefined && id === finishing) {
      finishing = undefined;
      next();
      return;
    }
    const job = current;
    if (job === undefined || id !== job.id) return;
    current = undefined;
    settle(job, isCompileResult(result) ? result : stopped('it sent a malformed answer'));
    next();
  });
  const end = (why: string) => {
    if (thread !== worker) return;
    thread = undefined;
    finishing = undefined;
    const job = current;
    current = undefined;
    if (job !== undefined) settle(job, stopped(why));
    next();
  };
  worker.on('error', (error: Error) => end(error.message));
  worker.on('exit', (code) => end(`it exited with code ${code}`));
  return worker;
}

let bundle: Promise<string> | undefined;

/** ts-blank-space's bundle, made once per process; a failed attempt is not kept. */
function blankerBundle(): Promise<string> {
  bundle ??= bundleBlankerHere().catch((error: unknown) => {
    bundle = undefined;
    throw error;
  });
  return bundle;
}

// The thread's esbuild work runs here, in the host's main thread, whose esbuild service outlives a
// terminated thread (see compile-thread-main.ts); an answer for a thread that has ended is dropped.
function answer(worker: Worker, ask: number, work: Promise<unknown>): void {
  work.then(
    (value) => {
      if (thread === worker) worker.postMessage({ answer: ask, value });
    },
    (error: unknown) => {
      if (thread === worker) worker.postMessage({ answer: ask, failed: String(error) });
    },
  );
}

function abandoned(): CompileResult {
  const reason = 'the run ended while its program was being prepared';
  return {
    ok: false,
    failure: { kind: 'abort', reason, message: `The program was not prepared: ${reason}; nothing ran.` },
  };
}

function stopped(why: string): CompileResult {
  return {
    ok: false,
    failure: {
      kind: 'substrate-exit',
      message: `The thread that prepares TypeScript programs stopped (${why}), so the program could not be prepared; nothing ran. Run it again.`,
    },
  };
}

function isCompileResult(value: unknown): value is CompileResult {
  if (typeof value !== 'object' || value === null) return false;
  const { ok, program, failure } = value as Record<string, unknown>;
  return ok === true ? typeof program === 'object' && program !== null : ok === false && typeof failure === 'object';
}

/**
 * @internal What the compile thread is doing, for tests: whether one is running, whether it is working on a compile,
 * whether it is finishing the fixed part of one given up (loading the parser), how many wait, and
 * how many terminated threads have not exited yet.
 */
export interface CompileThreadActivity {
  readonly running: boolean;
  readonly compiling: boolean;
  readonly finishing: boolean;
  readonly waiting: number;
  readonly ending: number;
}

/** @internal What the compile thread is doing now; for tests. */
export function compileThreadActivity(): CompileThreadActivity {
  return {
    running: thread !== undefined,
    compiling: current !== undefined,
    finishing: finishing !== undefined,
    waiting: waiting.size,
    ending,
  };
}

/** @internal Ends the compile thread as a crash would (the compile it was working on fails); for tests. */
export async function terminateCompileThread(): Promise<void> {
  await thread?.terminate();
}
