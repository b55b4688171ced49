// The compile thread: prepares programs (TypeScript parser, then esbuild) for every TypeScript code
// runtime of the process, so neither the parser's load nor a parse runs on the host's main thread.
// One message in, `{ id, source }`; one out, `{ id, result }`. esbuild's work is asked of the host's
// main thread (`{ ask, call, text }`, answered `{ answer, value }` or `{ answer, failed }`): this
// thread is terminated to stop a compile, and a terminated thread leaves the children it started
// unreaped.
//
// A compile that needs the parser loads it first (the same fixed cost for every program, and V8
// cannot stop a thread while it compiles the parser's 9 MB), then claims the compile in the shared
// cell (`workerData.claim`, see compile-thread.ts) before the program's own work: a compile the host
// has given up by then is not parsed, and the thread, its parser loaded, is kept.
import { parentPort, workerData } from 'node:worker_threads';
import type { CompileResult } from './program-compile.js';
import { type Stripped, useEsbuildWork } from './program-esbuild.js';
import { prepareJavaScript } from './program-fast-path.js';
import { loadParser, prepareWithParser } from './program-prepare.js';

const port = parentPort;
if (port === null) throw new Error('compile-thread-main runs only as a worker thread');
const claim = new Int32Array((workerData as { claim: SharedArrayBuffer }).claim);

let nextAsk = 0;
const asked = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

function ask(call: 'strip' | 'bundle', text?: string): Promise<unknown> {
  const id = nextAsk++;
  return new Promise((resolve, reject) => {
    asked.set(id, { resolve, reject });
    port!.postMessage({ ask: id, call, text });
  });
}

useEsbuildWork({
  strip: (text) => ask('strip', text) as Promise<Stripped>,
  bundleBlanker: () => ask('bundle') as Promise<string>,
});

port.on('message', (message: { id: number; source: string } | { answer: number; value?: unknown; failed?: string }) => {
  if ('answer' in message) {
    const waiting = asked.get(message.answer);
    asked.delete(message.answer);
    if (message.failed === undefined) waiting?.resolve(message.value);
    else waiting?.reject(new Error(message.failed));
    return;
  }
  const { id, source } = message;
  prepare(source).then(
    (result) => port.postMessage({ id, result }),
    (error: unknown) =>
      port.postMessage({
        id,
        result: {
          ok: false,
          failure: {
            kind: 'substrate-exit',
            message: `The program could not be prepared (${error instanceof Error ? error.message : String(error)}); nothing ran. Run it again.`,
          },
        },
      }),
  );
});

/** The compile, or `undefined` when the host gave it up before the program's own work began. */
function prepare(source: string): Promise<CompileResult | undefined> {
  const fast = prepareJavaScript(source);
  if (fast !== undefined) return Promise.resolve(fast);
  loadParser();
  // 0 → 1: the host has not given this compile up, and from now on ends it by terminating the thread.
  if (Atomics.compareExchange(claim, 0, 0, 1) !== 0) return Promise.resolve(undefined);
  return prepareWithParser(source);
}
