import { anchorProblem, anchorRequire } from './bench-anchors.js';
import {
  type BenchSuite,
  checkOutput,
  percentile,
  residentMb,
  sequentialLatency,
  throughputs,
} from './bench-harness.js';

// Anchor: @pydantic/monty, a Python-subset interpreter written in Rust, loaded as a native addon and
// run on the host thread: a new `Monty` (parse) and a run per program, the host call an async external
// function, a duration limit for the deadline. No process, no kernel containment: the interpreter is
// the boundary. The low-latency anchor for the Python provider.
interface MontyModule {
  Monty: new (code: string) => { run(options?: object): unknown };
  runMontyAsync(monty: object, options: object): Promise<unknown>;
}

/** The bench program as Monty runs it: no `await` of an async external (0.0.18 raises), no `tools.` namespace, a final expression. */
export const montyBenchProgram = 'r = echo({"x": 1})\nprint(r["x"])\nr["x"] + 1';

/**
 * What a model's program may use that CPython runs and Monty 0.0.18 does not, each tried in this run;
 * the row's note lists the ones that failed. The Python provider runs every one of them.
 */
export const montyGaps: ReadonlyArray<readonly [string, string]> = [
  ['await of a host call', 'r = await echo(1)\nr'],
  ['tools.name namespaces', 'tools.echo(1)'],
  [
    'asyncio.gather of host calls',
    'import asyncio\nasync def main():\n    return await asyncio.gather(echo(1), echo(2))\nawait main()',
  ],
  ['class', 'class A:\n    pass\n1'],
  ['generator (yield)', 'def g():\n    yield 1\nlist(g())'],
  ...['collections', 'itertools', 'functools', 'statistics', 'dataclasses', 'decimal', 'uuid', 'contextlib'].map(
    (name) => [`import ${name}`, `import ${name}\n1`] as const,
  ),
];

const echo = async (value: unknown) => value;

export const suite: BenchSuite = {
  name: 'monty',
  async measure(scale) {
    const problem = anchorProblem('@pydantic/monty');
    if (problem !== undefined) return [{ substrate: 'anchor: @pydantic/monty', note: `skipped: ${problem}` }];
    const { Monty, runMontyAsync } = (await import(anchorRequire.resolve('@pydantic/monty'))) as MontyModule;
    const once = async () => {
      const logs: string[] = [];
      const value = await runMontyAsync(new Monty(montyBenchProgram), {
        externalFunctions: { echo },
        printCallback: (_stream: string, text: string) => {
          if (text.trim() !== '') logs.push(text.trim());
        },
        limits: { maxDurationSecs: 30 },
      });
      checkOutput(value, logs);
    };
    const latency = await sequentialLatency(once, 200, Math.max(200, Math.round(5000 * scale)));
    const runsPerSecond = await throughputs(once, Math.max(400, Math.round(20000 * scale)));
    const kills: number[] = [];
    const deadlineMs = 50;
    for (let trial = 0; trial < Math.max(8, Math.round(40 * scale)); trial += 1) {
      const start = performance.now();
      try {
        new Monty('while True:\n    pass').run({ limits: { maxDurationSecs: deadlineMs / 1000 } });
        throw new Error('bench: Monty did not stop the loop');
      } catch (error) {
        if (!String(error).includes('time limit')) throw error;
      }
      kills.push(performance.now() - (start + deadlineMs));
    }
    const before = residentMb();
    const held: Array<Promise<unknown>> = [];
    const release: Array<() => void> = [];
    for (let index = 0; index < 16; index += 1) {
      held.push(
        runMontyAsync(new Monty('echo(1)'), {
          externalFunctions: { echo: () => new Promise((resolve) => release.push(() => resolve(1))) },
        }),
      );
    }
    const perLive = (residentMb() - before) / 16;
    for (const done of release) done();
    await Promise.all(held);
    const failed: string[] = [];
    for (const [label, program] of montyGaps) {
      try {
        await runMontyAsync(new Monty(program), { externalFunctions: { echo } });
      } catch {
        failed.push(label);
      }
    }
    return [
      {
        substrate: 'anchor: @pydantic/monty 0.0.18',
        ...latency,
        runsPerSecond,
        killP50Ms: percentile(kills, 50),
        killP95Ms: percentile(kills, 95),
        rssPerLiveRunMb: perLive,
        note: `Python-subset interpreter (Rust, native addon) on the host thread, no process or kernel containment; the program without \`await\`/\`tools.\`. Cannot run (tried here; CPython and the provider can): ${failed.length === 0 ? 'none of the probes' : failed.join(', ')}`,
      },
    ];
  },
};
