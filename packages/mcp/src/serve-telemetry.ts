import { context, metrics, propagation, trace } from '@opentelemetry/api';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import type { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import { foreignText } from '@sluice/code-runtime';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ServeSettings } from './mcp-serve-config.js';

/** How long a collection waits for the store's count of pending pauses before it leaves the gauge out, in ms. */
const pendingPausesWaitMs = 2000;

/**
 * `sluice.pause.pending`: the calls waiting for a person across the run store, read from the store
 * at each collection (a scrape of `/metrics`, an OTLP export). Every replica sharing the store
 * reports the same number: aggregate it with max, not sum. A store that fails or takes longer than
 * {@link pendingPausesWaitMs} leaves the point out of that collection.
 */
function observePendingPauses(pendingPauses: () => Promise<number>): void {
  const gauge = metrics.getMeter('@sluice/mcp').createObservableGauge('sluice.pause.pending', {
    description: 'Calls waiting for a person’s decision across the run store (the same on every replica sharing it).',
    unit: '{pause}',
  });
  gauge.addCallback(async (result) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, pendingPausesWaitMs, undefined);
    });
    try {
      const count = await Promise.race([pendingPauses().catch(() => undefined), late]);
      if (count !== undefined) result.observe(count);
    } finally {
      clearTimeout(timer);
    }
  });
}

/**
 * The standard variables that ask for the OpenTelemetry SDK: any of them set (and
 * `OTEL_SDK_DISABLED` not `true`) makes `sluice serve` start it; none set, it is not even loaded.
 */
export const sdkVariables = [
  'OTEL_TRACES_EXPORTER',
  'OTEL_METRICS_EXPORTER',
  'OTEL_LOGS_EXPORTER',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
] as const;

/** Whether `environment` asks for the OpenTelemetry SDK: see {@link sdkVariables}. */
export function sdkRequested(environment: Readonly<Record<string, string | undefined>>): boolean {
  if (environment.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return sdkVariables.some((name) => (environment[name]?.trim() ?? '') !== '');
}

/** The OpenTelemetry SDK as `sluice serve` runs it: see {@link createServeTelemetry}. */
export interface ServeTelemetry {
  /** Mounts `sluice.serve.metrics.path` on `app`, behind `authenticate` when `metrics.auth` says so. */
  mount(app: { get(path: string, ...handlers: RequestHandler[]): unknown }, authenticate: RequestHandler): void;
  /** Starts the SDK when asked for (loading it only then). Never rejects: a failure is logged. */
  start(): Promise<void>;
  /** Flushes what is buffered, shuts the SDK down and unregisters it. Idempotent; never rejects. */
  shutdown(): Promise<void>;
}

/**
 * The SDK for `sluice serve`, wired only when asked for: by the standard `OTEL_*` variables of
 * `environment` (the SDK's own env handling, `@opentelemetry/sdk-node`, then chooses exporters,
 * endpoints, sampler and resource), or by `sluice.serve.metrics` (a Prometheus text endpoint on
 * the server's own listener). With neither, nothing is loaded and the libraries' telemetry stays a no-op.
 */
export function createServeTelemetry(
  settings: Pick<ServeSettings, 'metrics'>,
  environment: Readonly<Record<string, string | undefined>>,
  log: (line: string) => void,
  pendingPauses?: () => Promise<number>,
): ServeTelemetry {
  const endpoint = settings.metrics;
  let prometheus: PrometheusExporter | undefined;
  let sdk: NodeSDK | undefined;
  let meterProvider: MeterProvider | undefined;
  let stopping: Promise<void> | undefined;

  const scrape = (request: Request, response: Response) => {
    if (prometheus === undefined) {
      response.status(503).set('Retry-After', '5').type('text/plain').send('Metrics are not ready yet.\n');
      return;
    }
    prometheus.getMetricsRequestHandler(request, response);
  };

  return {
    mount(app, authenticate) {
      if (endpoint === undefined) return;
      const open = (_request: Request, _response: Response, next: NextFunction) => next();
      app.get(endpoint.path, endpoint.auth ? authenticate : open, scrape);
    },
    async start() {
      const wanted = sdkRequested(environment);
      if (!wanted && endpoint === undefined) return;
      try {
        if (endpoint !== undefined) {
          const { PrometheusExporter } = await import('@opentelemetry/exporter-prometheus');
          prometheus = new PrometheusExporter({ preventServerStart: true });
        }
        if (wanted) {
          const { NodeSDK } = await import('@opentelemetry/sdk-node');
          // With a /metrics endpoint, metrics are read there; otherwise OTEL_METRICS_EXPORTER decides.
          sdk = new NodeSDK(prometheus === undefined ? {} : { metricReaders: [prometheus] });
          sdk.start();
          log(`OpenTelemetry SDK started from the OTEL_* environment variables`);
        } else if (prometheus !== undefined) {
          const { MeterProvider } = await import('@opentelemetry/sdk-metrics');
          meterProvider = new MeterProvider({ readers: [prometheus] });
          metrics.setGlobalMeterProvider(meterProvider);
        }
        if (pendingPauses !== undefined) observePendingPauses(pendingPauses);
      } catch (error) {
        log(`OpenTelemetry could not start, so nothing is exported: ${foreignText(error, 1024)}`);
      }
    },
    shutdown() {
      stopping ??= (async () => {
        try {
          await sdk?.shutdown();
          await meterProvider?.shutdown();
        } catch (error) {
          log(`OpenTelemetry did not shut down cleanly: ${foreignText(error, 1024)}`);
        }
        if (sdk !== undefined) {
          trace.disable();
          propagation.disable();
          context.disable();
        }
        if (sdk !== undefined || meterProvider !== undefined) metrics.disable();
      })();
      return stopping;
    },
  };
}
