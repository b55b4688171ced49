// A QuickJS worker thread: instantiates the shared QuickJS-ng WebAssembly module once, in a linear
// memory of its own capped near the memory budget, and runs one program at a time, each in a fresh
// QuickJS runtime and context that is freed when the run ends. Guest code runs only inside the
// interpreter; the host's objects never enter it, only strings and numbers built through the API.
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
const boot = workerData as QuickJsWorkerBoot;
const control = new Int32Array(boot.control);
const pageBytes = 64 * 1024;
// Room beyond the budget for the interpreter's own data, its stack and allocator slack.
const headroomBytes = 24 * 1024 * 1024;
const maximumPages = Math.min(65_536, Math.ceil((boot.config.memoryBytes + headroomBytes) / pageBytes));
const memory = new wasmApi.Memory({ initial: 256, maximum: maximumPages });

function send(message: QuickJsToHost): void {
  port!.postMessage(message);
}

let current: GuestRun | undefined;

function start(module: QuickJSWASMModule): void {
  port!.on('message', (message: HostToQuickJs) => {
    if (message.type === 'run') {
      if (current !== undefined) return;
      let run: GuestRun;
      try {
        const config =
          message.deterministic === undefined ? boot.config : { ...boot.config, deterministic: message.deterministic };
        run = new GuestRun(module, memory, control, config, message.seq, send, (retire) => {
          if (current === run) current = undefined;
          // The engine is not trusted after a trap or a runtime that would not free: the host
          // terminates this thread, and nothing more runs here meanwhile.
          if (retire) port!.removeAllListeners('message');
        });
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        send({
          type: 'done',
          seq: message.seq,
          ending: { kind: 'stopped', cause: 'trap', detail },
          cpuMs: 0,
          peakMemoryBytes: memory.buffer.byteLength,
          retire: true,
        });
        port!.removeAllListeners('message');
        return;
      }
      current = run;
      run.start(message.code, message.bindings);
    } else if (message.type === 'reply') {
      if (current?.seq === message.seq) current.reply(message.callId, message.ok, message.text);
    } else if (message.type === 'stop') {
      if (current?.seq === message.seq) current.stop();
    }
  });
  send({ type: 'ready' });
}

newQuickJSWASMModuleFromVariant(
  newVariant(variant as unknown as QuickJSSyncVariant, {
    wasmModule: boot.wasmModule as never,
    wasmMemory: memory as never,
  }),
).then(start, () => process.exit(1));
