// The compile thread: prepares programs (TypeScript parser, then esbuild) for every TypeScript code
// runtime of the process, so neither the parser's load nor a parse runs on the host's main thread.
// One message in, `{ id, source }`; one out, `{ id, result }`.
import { parentPort } from 'node:worker_threads';
import { prepareProgram } from './program-prepare.js';

const port = parentPort;
if (port === null) throw new Error('compile-thread-main runs only as a worker thread');

port.on('message', (message: { id: number; source: string }) => {
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
