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

// Anchor: quickjs-emscripten's synchronous WASM module, shared; a new runtime and context per
// run, the host call returning a QuickJS promise resolved from the host, an interrupt handler for
// the deadline. Runs on the host thread.
interface QuickJs {
  getQuickJS(): Promise<Module>;
}
interface Module {
  newRuntime(): Runtime;
}
interface Runtime {
  setMemoryLimit(bytes: number): void;
  setInterruptHandler(handler: () => boolean): void;
  newContext(): Vm;
  executePendingJobs(): { error?: Handle; dispose?: () => void };
  dispose(): void;
}
interface Handle {
  dispose(): void;
}
interface Deferred {
  handle: Handle;
  resolve(value: Handle): void;
  settled: Promise<void>;
  dispose(): void;
}
interface Vm {
  global: Handle;
  newObject(): Handle;
  newFunction(name: string, fn: (...args: Handle[]) => Handle | undefined): Handle;
  newPromise(): Deferred;
  setProp(target: Handle, key: string, value: Handle): void;
  getString(handle: Handle): string;
  dump(handle: Handle): unknown;
  evalCode(code: string): { value?: Handle; error?: Handle };
  unwrapResult(result: { value?: Handle; error?: Handle }): Handle;
  resolvePromise(handle: Handle): Promise<{ value?: Handle; error?: Handle }>;
  dispose(): void;
}

async function runOnce(module: Module, program: string, deadlineAfterCallMs?: number) {
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(64 * 1024 * 1024);
  let deadline = Number.POSITIVE_INFINITY;
  let interruptedAt = 0;
  runtime.setInterruptHandler(() => {
    if (performance.now() < deadline) return false;
    interruptedAt ||= performance.now();
    return true;
  });
  const vm = runtime.newContext();
  const logs: string[] = [];
  const log = vm.newFunction('log', (...args) => {
    logs.push(args.map((arg) => String(vm.dump(arg))).join(' '));
    return undefined;
  });
  const echo = vm.newFunction('echo', (arg) => {
    const text = JSON.stringify(vm.dump(arg));
    const deferred = vm.newPromise();
    setImmediate(() => {
      if (deadlineAfterCallMs !== undefined) deadline = performance.now() + deadlineAfterCallMs;
      const reply = vm.unwrapResult(vm.evalCode(`(${text})`));
      deferred.resolve(reply);
      reply.dispose();
      runtime.executePendingJobs();
    });
    return deferred.handle;
  });
  const consoleObject = vm.newObject();
  const tools = vm.newObject();
  vm.setProp(consoleObject, 'log', log);
  vm.setProp(tools, 'echo', echo);
  vm.setProp(vm.global, 'console', consoleObject);
  vm.setProp(vm.global, 'tools', tools);
  for (const handle of [log, echo, consoleObject, tools]) handle.dispose();
  const promise = vm.unwrapResult(vm.evalCode(`(async () => {\n${program}\n})()`));
  const settled = vm.resolvePromise(promise);
  promise.dispose();
  runtime.executePendingJobs();
  const outcome = await settled;
  const value = outcome.value === undefined ? undefined : vm.dump(outcome.value);
  outcome.value?.dispose();
  outcome.error?.dispose();
  vm.dispose();
  runtime.dispose();
  return { value, logs, killMs: interruptedAt ? interruptedAt - deadline : undefined };
}

export const suite: BenchSuite = {
  name: 'quickjs-emscripten',
  async measure(scale) {
    const problem = anchorProblem('quickjs-emscripten');
    if (problem !== undefined) return [{ substrate: 'anchor: quickjs-emscripten', note: `skipped: ${problem}` }];
    const module = await (anchorRequire('quickjs-emscripten') as QuickJs).getQuickJS();
    const once = async () => {
      const { value, logs } = await runOnce(module, benchProgram);
      checkOutput(value, logs);
    };
    const latency = await sequentialLatency(once, 50, Math.max(20, Math.round(1000 * scale)));
    const runsPerSecond = await throughputs(once, Math.max(40, Math.round(2000 * scale)));
    const kills: number[] = [];
    for (let trial = 0; trial < Math.max(8, Math.round(40 * scale)); trial += 1) {
      const { killMs } = await runOnce(module, 'await tools.echo(1);\nwhile (true) {}', 20);
      kills.push(killMs ?? Number.NaN);
    }
    await pause(200);
    const before = residentMb();
    const live = 200;
    const held: Array<{ runtime: Runtime; vm: Vm }> = [];
    for (let index = 0; index < live; index += 1) {
      const runtime = module.newRuntime();
      const vm = runtime.newContext();
      vm.unwrapResult(vm.evalCode('globalThis.pending = new Promise(() => {})')).dispose();
      held.push({ runtime, vm });
    }
    const rssPerLiveRunMb = (residentMb() - before) / live;
    for (const { runtime, vm } of held) {
      vm.dispose();
      runtime.dispose();
    }
    return [
      {
        substrate: 'anchor: quickjs-emscripten 0.32.0',
        ...latency,
        runsPerSecond,
        killP50Ms: percentile(kills, 50),
        killP95Ms: percentile(kills, 95),
        rssPerLiveRunMb,
        note: 'WASM interpreter on the host thread (no JIT); interrupt handler at the deadline',
      },
    ];
  },
};
