import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CompileResult } from './program-compile.js';

/** The compile thread's script, built by the kit as an entry of its own (`sluice.entries`). */
const compileThreadScript = fileURLToPath(new URL('../dist/compile-thread-main.js', import.meta.url));

// The parser's heap for a program at the 256 KiB source limit is tens of MiB; past this the
// thread (not the host) ends, and the compiles it held fail as substrate-exit.
const heapLimitMb = 512;

interface Pending {
  readonly resolve: (result: CompileResult) => void;
}

let thread: Worker | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();

/**
 * Prepares a program in the process's one compile thread, started on the first call and shared by
 * every runtime: the TypeScript parser loads once per process, off the host's main thread. The
 * thread keeps the process alive only while a compile is pending. Never rejects: a thread that
 * fails to start, runs out of memory or exits fails its pending compiles as `substrate-exit`, and
 * the next compile starts a new one.
 */
export function compileInThread(source: string): Promise<CompileResult> {
  const worker = thread ?? start();
  const id = nextId++;
  return new Promise<CompileResult>((resolve) => {
    pending.set(id, { resolve });
    if (pending.size === 1) worker.ref();
    worker.postMessage({ id, source });
  });
}

function start(): Worker {
  const worker = new Worker(compileThreadScript, {
    // Not the host's flags: `--input-type` (a host started with `node --input-type=module -e`) makes
    // a worker started from a file fail, and no flag the host was given is one the thread needs.
    // Its own: `vm.SourceTextModule`, with which the fast path finds a top-level `return` (a parse,
    // never run), and no notice of it on the host's stderr. Both hold for this thread alone.
    execArgv: ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'],
    resourceLimits: { maxOldGenerationSizeMb: heapLimitMb },
    stdout: false,
    stderr: false,
  });
  thread = worker;
  worker.unref();
  worker.on('message', (message: unknown) => {
    const { id, result } = (message ?? {}) as { id?: unknown; result?: unknown };
    const entry = typeof id === 'number' ? pending.get(id) : undefined;
    if (entry === undefined) return;
    pending.delete(id as number);
    if (pending.size === 0) worker.unref();
    entry.resolve(isCompileResult(result) ? result : stopped('it sent a malformed answer'));
  });
  const end = (why: string) => {
    if (thread !== worker) return;
    thread = undefined;
    const failed = [...pending.values()];
    pending.clear();
    for (const entry of failed) entry.resolve(stopped(why));
  };
  worker.on('error', (error: Error) => end(error.message));
  worker.on('exit', (code) => end(`it exited with code ${code}`));
  return worker;
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

/** @internal Ends the compile thread as a crash would (its pending compiles fail); for tests. */
export async function terminateCompileThread(): Promise<void> {
  await thread?.terminate();
}
