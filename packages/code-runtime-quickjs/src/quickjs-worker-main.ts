// A QuickJS worker thread: instantiates the shared QuickJS-ng WebAssembly module once, in a linear
// memory of its own capped near the memory budget, and runs one program at a time, each in a fresh
// QuickJS runtime and context that is freed when the run ends. The next run's runtime and context
// are made while the thread waits, so a run starts with its globals in place. Guest code runs only
// inside the interpreter; the host's objects never enter it, only strings and numbers built through
// the API.
import { parentPort, workerData } from 'node:worker_threads';
import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { type HostToQuickJs, type QuickJsToHost, type QuickJsWorkerBoot, wasmApi } from './quickjs-frames.js';
import { GuestRun } from './quickjs-guest.js';

const port = parentPort;
if (port === null) throw new Error('quickjs-worker-main runs only as a worker thread');

// The guest's local time is UTC on every host, as in the worker-thread provider's process (and so a
// deterministic run reads the same hours everywhere): the engine asks the module's JavaScript glue
// for local time, which reads it through this thread's own Date.
const utc = Date.prototype;
for (const name of ['FullYear', 'Month', 'Date', 'Day', 'Hours', 'Minutes', 'Seconds'] as const) {
  Object.defineProperty(utc, `get${name}`, { value: utc[`getUTC${name}`], configurable: true, writable: true });
}
Object.defineProperty(utc, 'getTimezoneOffset', { value: () => 0, configurable: true, writable: true });
const boot = workerData as QuickJsWorkerBoot;
const control = new Int32Array(boot.control);
const pageBytes = 64 * 1024;
// Room beyond the budget for the interpreter's own data, its stack and allocator slack.
const headroomBytes = 24 * 1024 * 1024;
const maximumPages = Math.min(65_536, Math.ceil((boot.config.memoryBytes + headroomBytes) / pageBytes));
// The module declares 256 pages (16 MiB) as its least memory.
const memory = new wasmApi.Memory({ initial: 256, maximum: maximumPages });

function send(message: QuickJsToHost): void {
  port!.postMessage(message);
}

let current: GuestRun | undefined;
/** Runtimes and contexts made ahead, with the globals every run has, for the next runs. */
const spares: GuestRun[] = [];
/** How many spares the thread keeps: two, so a run right after one that ended (a kill) finds one ready. */
const spareCount = 2;
/** Ended runs whose runtimes are still to be freed. */
const ended: GuestRun[] = [];
/** Why the engine is not to be trusted (it could not make a context, or free one): the thread runs nothing more. */
let broken: string | undefined;
let idleWork: ReturnType<typeof setTimeout> | undefined;

function stopListening(): void {
  port!.removeAllListeners('message');
  clearTimeout(idleWork);
}

/** A fresh runtime and context with the globals every run has, or `undefined` once the engine failed. */
function prepare(module: QuickJSWASMModule): GuestRun | undefined {
  if (broken !== undefined) return undefined;
  try {
    const run: GuestRun = new GuestRun(module, memory, control, boot.config, send, (retire) => {
      if (current === run) current = undefined;
      // The engine is not trusted after a trap or a runtime that would not free: the host
      // terminates this thread, and nothing more runs here meanwhile.
      if (retire) stopListening();
      else {
        ended.push(run);
        scheduleIdleWork(module);
      }
    });
    return run;
  } catch (error) {
    broken = error instanceof Error ? error.message : String(error);
    return undefined;
  }
}

/**
 * Compiles `console`'s inspector in one spare that lacks it (about 1.5 ms, which a run that prints
 * an object then does not pay). Only idle work does this: runs back to back leave no idle time, and
 * compile it when they first print an object. Returns whether there was a spare to warm.
 */
function warmConsole(): boolean {
  const cold = spares.findIndex((spare) => spare.consoleCold);
  if (cold === -1) return false;
  try {
    spares[cold]!.warmConsole();
  } catch (error) {
    // The engine failed in a context no run has: it is dropped, and the thread runs nothing more.
    broken = error instanceof Error ? error.message : String(error);
    ended.push(...spares.splice(cold, 1));
  }
  return true;
}

function freeEnded(): void {
  if (ended.shift()?.dispose() === false) broken = 'a runtime that would not free';
}

/** How long the thread must have had no run before it compiles `console`'s inspector in a spare. */
const quietMs = 5;

/**
 * Frees ended runs and makes spares, one piece a timer tick and only while no run is in progress,
 * so a run that arrives meanwhile is started first (its message is handled between two pieces).
 * Then, once no run has come for {@link quietMs} (never between runs sent back to back), it warms
 * the spares' `console`.
 */
function scheduleIdleWork(module: QuickJSWASMModule, delayMs = 0): void {
  idleWork ??= setTimeout(() => {
    idleWork = undefined;
    if (current !== undefined || broken !== undefined) return;
    if (ended.length > 0) freeEnded();
    else if (spares.length < spareCount) {
      const spare = prepare(module);
      if (spare !== undefined) spares.push(spare);
    } else if (delayMs === 0) {
      if (spares.some((spare) => spare.consoleCold)) scheduleIdleWork(module, quietMs);
      return;
    } else if (!warmConsole()) return;
    scheduleIdleWork(module, delayMs);
  }, delayMs);
}

function start(module: QuickJSWASMModule): void {
  port!.on('message', (message: HostToQuickJs) => {
    if (message.type === 'run') {
      if (current !== undefined) return;
      clearTimeout(idleWork);
      idleWork = undefined;
      // Runs back to back leave no idle time: what ended before is freed now, not left to pile up.
      while (ended.length > 1) freeEnded();
      // A spare made before the engine failed (a runtime that would not free) is not used either.
      const run = broken === undefined ? (spares.shift() ?? prepare(module)) : undefined;
      if (run === undefined) {
        // The run has not started: the host gives it to another thread and ends this one.
        send({ type: 'refused', seq: message.seq, reason: broken ?? 'the engine failed' });
        stopListening();
        return;
      }
      current = run;
      run.start(message.seq, message.code, message.bindings, message.deterministic);
    } else if (message.type === 'reply') {
      if (current?.seq === message.seq) current.reply(message.callId, message.ok, message.text);
    } else if (message.type === 'stop') {
      if (current?.seq === message.seq) current.stop();
    }
  });
  scheduleIdleWork(module);
  send({ type: 'ready' });
}

newQuickJSWASMModuleFromVariant(
  newVariant(variant as unknown as QuickJSSyncVariant, {
    wasmModule: boot.wasmModule as never,
    wasmMemory: memory as never,
  }),
).then(start, (error: unknown) => {
  // The host fails the runs waiting for a thread with this, rather than starting threads that fail alike.
  send({ type: 'failed', reason: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
