import { Worker } from 'node:worker_threads';
import {
  type BenchSuite,
  benchProgram,
  checkOutput,
  pause,
  percentile,
  residentMb,
  sequentialLatency,
  throughputs,
} from './bench-harness.js';

// Anchor: a new worker thread per run, a vm context inside it, tools and console bridged by
// messages, terminated after the run. What a provider without a pool of long-lived workers costs.
const workerSource = `
const vm = require('node:vm');
const { parentPort } = require('node:worker_threads');
parentPort.once('message', ({ program }) => {
  const context = vm.createContext({}, { codeGeneration: { strings: false, wasm: false } });
  const pending = new Map();
  let next = 0;
  const send = (kind, a, b) => parentPort.postMessage({ kind, a, b });
  parentPort.on('message', ({ id, text }) => pending.get(id)(text));
  const bridge = vm.runInContext(\`(send, wait) => {
    globalThis.console = { log: (...args) => send('log', args.map(String).join(' ')) };
    globalThis.tools = { echo: (input) => new Promise((resolve) => wait(JSON.stringify(input), (text) => resolve(JSON.parse(text)))) };
  }\`, context);
  bridge(send, (text, done) => { const id = next++; pending.set(id, done); send('call', id, text); });
  vm.runInContext('(async () => {\\n' + program + '\\n})()', context).then(
    (value) => send('done', JSON.stringify(value)),
    (error) => send('error', String(error)),
  );
});
`;

function runOnce(program: string, deadlineMs?: number): Promise<{ value: unknown; logs: string[]; killMs?: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerSource, {
      eval: true,
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
    });
    const logs: string[] = [];
    let deadline: ReturnType<typeof setTimeout> | undefined;
    worker.on('message', (message: { kind: string; a: unknown; b: unknown }) => {
      if (message.kind === 'log') logs.push(String(message.a));
      else if (message.kind === 'call') {
        worker.postMessage({ id: message.a, text: message.b });
        if (deadlineMs !== undefined) {
          const due = performance.now() + deadlineMs;
          deadline = setTimeout(() => {
            void worker.terminate().then(() => resolve({ value: undefined, logs, killMs: performance.now() - due }));
          }, deadlineMs);
        }
      } else if (message.kind === 'done') {
        clearTimeout(deadline);
        void worker.terminate().then(() => resolve({ value: JSON.parse(String(message.a)), logs }));
      } else reject(new Error(String(message.a)));
    });
    worker.postMessage({ program });
  });
}

export const suite: BenchSuite = {
  name: 'fresh worker per run',
  async measure(scale) {
    const once = async () => {
      const { value, logs } = await runOnce(benchProgram);
      checkOutput(value, logs);
    };
    const latency = await sequentialLatency(once, 10, Math.max(10, Math.round(150 * scale)));
    const runsPerSecond = await throughputs(once, Math.max(16, Math.round(200 * scale)));
    const kills: number[] = [];
    for (let trial = 0; trial < Math.max(8, Math.round(40 * scale)); trial += 1) {
      const { killMs } = await runOnce('await tools.echo(1);\nwhile (true) {}', 20);
      kills.push(killMs ?? Number.NaN);
    }
    await pause(200);
    const before = residentMb();
    const live = 16;
    const workers = Array.from(
      { length: live },
      () => new Worker(`${workerSource};setInterval(() => {}, 1000);`, { eval: true, env: {} }),
    );
    for (const worker of workers) worker.postMessage({ program: 'await new Promise(() => {});' });
    await pause(1500);
    const rssPerLiveRunMb = (residentMb() - before) / live;
    await Promise.all(workers.map((worker) => worker.terminate()));
    return [
      {
        substrate: 'anchor: fresh worker per run',
        ...latency,
        runsPerSecond,
        killP50Ms: percentile(kills, 50),
        killP95Ms: percentile(kills, 95),
        rssPerLiveRunMb,
        note: 'new Worker + vm context per run, terminate() after',
      },
    ];
  },
};
