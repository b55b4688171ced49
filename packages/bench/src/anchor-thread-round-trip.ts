import { Worker } from 'node:worker_threads';
import { type BenchSuite, sequentialLatency, spacedGapMs, spacedLatency } from './bench-harness.js';

// Anchor: one message to a worker thread that answers at once, and its answer. A pooled provider
// pays at least two of these per run with a host call (the run and its result, the call and its
// reply), so this is the floor under its latency on this machine, back to back and after idling.
const echoSource = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (message) => parentPort.postMessage(message));
`;

export const suite: BenchSuite = {
  name: 'anchor-thread-round-trip',
  async measure(scale) {
    const worker = new Worker(echoSource, { eval: true, env: {}, stdout: false, stderr: false });
    const once = () =>
      new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.postMessage(1);
      });
    const count = Math.max(20, Math.round(500 * scale));
    const busy = await sequentialLatency(once, 200, count);
    const idle = await spacedLatency(once, Math.max(20, Math.round(200 * scale)));
    await worker.terminate();
    return [
      {
        substrate: 'anchor: thread round trip, back to back',
        ...busy,
        note: 'postMessage to a worker thread that answers at once, and the answer; the next sent as soon as it arrives',
      },
      {
        substrate: `anchor: thread round trip, ${spacedGapMs} ms apart`,
        ...idle,
        note: 'the same after both threads went idle: what each hop of a run costs an agent that runs one program per turn',
      },
    ];
  },
};
