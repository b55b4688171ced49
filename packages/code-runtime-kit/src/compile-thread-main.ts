// The compile thread: prepares programs (TypeScript parser, then esbuild) for every TypeScript code
// runtime of the process, so neither the parser's load nor a parse runs on the host's main thread.
// One message in, `{ id, source }`; one out, `{ id, result }`. esbuild's work is asked of the host's
// main thread (`{ ask, call, text }`, answered `{ answer, value }` or `{ answer, failed }`): this
// thread is terminated to stop a compile, and a terminated thread leaves the children it started
// unreaped.
import { parentPort } from 'node:worker_threads';
import { type Stripped, useEsbuildWork } from './program-esbuild.js';
import { prepareProgram } from './program-prepare.js';

const port = parentPort;
if (port === null) throw new Error('compile-thread-main runs only as a worker thread');

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
  prepareProgram(source).then(
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
