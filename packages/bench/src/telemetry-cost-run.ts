// What OpenTelemetry costs a run, three ways side by side in one process, interleaved in rounds so
// machine load hits each alike: telemetry off (no SDK: the API's no-op), the SDK registered with
// every trace sampled out (spans made and dropped; metrics recorded), and the SDK exporting (every
// span batched to an OTLP/HTTP exporter posting to a sink this script starts; metrics recorded
// into a Prometheus reader). The bench's one-call program on the worker-thread provider, its
// compiled program cached, so the run itself is as cheap as it gets and the overhead shows most.
// Also the host side alone (a RunController begun, one host call, finished: no substrate), where
// the telemetry's own CPU cost per run is not hidden by the run's. Prints runs/s and the ratio to off. `pnpm --filter @sluice/bench telemetry-cost`.
import { createServer } from 'node:http';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { AlwaysOffSampler, BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { normalizeBindings } from '@sluice/code-runtime';
import { defaultRunLimits, RunController } from '@sluice/code-runtime-kit';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { benchProgram, commandOptions, echoBindings, runChecked, throughput } from './bench-harness.js';

const options = commandOptions(process.argv.slice(2));
const rounds = Number(options.rounds ?? 5);
const runsPerRound = Number(options.runs ?? 400);

// The OTLP sink: counts the spans' bytes it is sent, and answers as a collector does.
let receivedBytes = 0;
let exports = 0;
const sink = createServer((request, response) => {
  request.on('data', (chunk: Buffer) => {
    receivedBytes += chunk.length;
  });
  request.on('end', () => {
    exports += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const { port } = sink.address() as { port: number };

interface Mode {
  readonly name: string;
  install(): void;
}

const contextManager = new AsyncLocalStorageContextManager();
const sampledOut = {
  tracer: new TracerProvider({ sampler: new AlwaysOffSampler() }),
  meter: new MeterProvider({ readers: [new PrometheusExporter({ preventServerStart: true })] }),
};
const exporting = {
  tracer: new TracerProvider({
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` }) }),
    ],
  }),
  meter: new MeterProvider({ readers: [new PrometheusExporter({ preventServerStart: true })] }),
};

function uninstall(): void {
  trace.disable();
  metrics.disable();
  context.disable();
}

function sdk(providers: { tracer: TracerProvider; meter: MeterProvider }): () => void {
  return () => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(providers.tracer);
    metrics.setGlobalMeterProvider(providers.meter);
  };
}

const modes: Mode[] = [
  { name: 'off (API only, no SDK)', install: () => {} },
  { name: 'SDK, traces sampled out', install: sdk(sampledOut) },
  { name: 'SDK exporting (OTLP/HTTP)', install: sdk(exporting) },
];

const runtime = createWorkerThreadCodeRuntime();
const once = () => runChecked(runtime, benchProgram);
for (let warm = 0; warm < 50; warm += 1) await once();

const bindings = normalizeBindings(echoBindings);
/** The host side of one run: what the kit does for every provider, with no substrate. */
const hostSide = async () => {
  const run = new RunController({ bindings, limits: defaultRunLimits, runtimeId: 'bench', language: 'typescript' });
  run.begin();
  await run.call('tools', 'echo', { x: 1 });
  run.finish({ ok: true, value: 2 });
  await run.result;
};
const hostRuns = runsPerRound * 50;

const samples = new Map(
  modes.map((mode) => [mode.name, { c1: [] as number[], c8: [] as number[], host: [] as number[] }]),
);
for (let round = 0; round < rounds; round += 1) {
  for (const mode of modes) {
    mode.install();
    const figures = samples.get(mode.name)!;
    figures.c1.push(await throughput(once, 1, Math.ceil(runsPerRound / 2)));
    figures.c8.push(await throughput(once, 8, runsPerRound));
    figures.host.push(await throughput(hostSide, 1, hostRuns));
    uninstall();
  }
}
await exporting.tracer.forceFlush();
await runtime.dispose();
await Promise.all([sampledOut.tracer, sampledOut.meter, exporting.tracer, exporting.meter].map((p) => p.shutdown()));
sink.close();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const off = samples.get(modes[0]!.name)!;
console.log(
  `telemetry cost: worker-thread, the bench's one-call program (cached), ${rounds} rounds of ${runsPerRound} runs per mode, median runs/s`,
);
const cell = (value: number, base: number) =>
  `${value.toFixed(0).padStart(10)} ${(value / base).toFixed(2).padStart(6)}`;
console.log(
  `${'mode'.padEnd(28)} ${'1 caller'.padStart(10)} ${'ratio'.padStart(6)} ${'8 callers'.padStart(10)} ${'ratio'.padStart(6)} ${'host side'.padStart(10)} ${'ratio'.padStart(6)}`,
);
for (const mode of modes) {
  const figures = samples.get(mode.name)!;
  const host = median(figures.host);
  const perRunUs = (1 / host - 1 / median(off.host)) * 1e6;
  console.log(
    `${mode.name.padEnd(28)} ${cell(median(figures.c1), median(off.c1))} ${cell(median(figures.c8), median(off.c8))} ${cell(host, median(off.host))}${mode === modes[0] ? '' : `  (+${perRunUs.toFixed(1)} µs per run)`}`,
  );
}
console.log(`OTLP sink: ${exports} export requests, ${(receivedBytes / 1024).toFixed(0)} KiB received`);
