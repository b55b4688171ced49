import { anchorProblem, anchorRequire } from './bench-anchors.js';
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

// Anchor: isolated-vm, a new Isolate and context per run, the host call as an async Reference,
// logs through a synchronous Callback; disposed after the run. Needs `--no-node-snapshot` on Node 20.
interface Ivm {
  Isolate: new (options: { memoryLimit: number }) => Isolate;
  Reference: new (value: unknown) => unknown;
  Callback: new (fn: (...args: unknown[]) => unknown) => unknown;
}
interface Isolate {
  createContextSync(): Context;
  dispose(): void;
}
interface Context {
  global: { setSync(name: string, value: unknown): void };
  evalSync(code: string): unknown;
  eval(code: string, options: { promise: boolean; copy: boolean; timeout?: number }): Promise<unknown>;
}

const boot = `
globalThis.console = { log: (...args) => $log(args.map(String).join(' ')) };
globalThis.tools = {
  echo: (input) => $echo.apply(undefined, [JSON.stringify(input)], { result: { promise: true, copy: true } }).then(JSON.parse),
};
`;

function runOnce(ivm: Ivm, program: string, onCall?: (isolate: Isolate) => void) {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = isolate.createContextSync();
  const logs: string[] = [];
  context.global.setSync('$log', new ivm.Callback((text: unknown) => void logs.push(String(text))));
  context.global.setSync(
    '$echo',
    new ivm.Reference(async (text: string) => {
      onCall?.(isolate);
      return text;
    }),
  );
  context.evalSync(boot);
  return context
    .eval(`(async () => {\n${program}\n})()`, { promise: true, copy: true })
    .then(
      (value) => ({ value, logs }),
      (error: unknown) => ({ value: error, logs }),
    )
    .finally(() => {
      try {
        isolate.dispose();
      } catch {}
    });
}

export const suite: BenchSuite = {
  name: 'isolated-vm',
  async measure(scale) {
    const problem = anchorProblem('isolated-vm');
    if (problem !== undefined) return [{ substrate: 'anchor: isolated-vm', note: `skipped: ${problem}` }];
    const ivm = anchorRequire('isolated-vm') as Ivm;
    const once = async () => {
      const { value, logs } = await runOnce(ivm, benchProgram);
      checkOutput(value, logs);
    };
    const latency = await sequentialLatency(once, 50, Math.max(20, Math.round(500 * scale)));
    const runsPerSecond = await throughputs(once, Math.max(40, Math.round(1000 * scale)));
    const kills: number[] = [];
    for (let trial = 0; trial < Math.max(8, Math.round(40 * scale)); trial += 1) {
      let due = 0;
      const done = await runOnce(ivm, 'await tools.echo(1);\nwhile (true) {}', (isolate) => {
        due = performance.now() + 20;
        setTimeout(() => isolate.dispose(), 20);
      });
      void done;
      kills.push(performance.now() - due);
    }
    await pause(200);
    const before = residentMb();
    const live = 32;
    const held: Isolate[] = [];
    for (let index = 0; index < live; index += 1) {
      const isolate = new ivm.Isolate({ memoryLimit: 64 });
      const context = isolate.createContextSync();
      context.global.setSync('$wait', new ivm.Reference(() => new Promise(() => {})));
      void context.eval('$wait.apply(undefined, [], { result: { promise: true } })', { promise: true, copy: true });
      held.push(isolate);
    }
    await pause(1000);
    const rssPerLiveRunMb = (residentMb() - before) / live;
    for (const isolate of held) isolate.dispose();
    return [
      {
        substrate: 'anchor: isolated-vm 5.0.4',
        ...latency,
        runsPerSecond,
        killP50Ms: percentile(kills, 50),
        killP95Ms: percentile(kills, 95),
        rssPerLiveRunMb,
        note: 'Isolate + context per run on the host thread; dispose() at the deadline',
      },
    ];
  },
};
