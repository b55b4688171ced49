// The OpenTelemetry SDK with in-memory exporters, registered globally for a test and removed after it.
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { type CollectionResult, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** A reader that collects only when asked: the test's. */
class TestMetricReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** One data point of a collected metric: its attributes and value (a sum's number, a histogram's count and sum). */
export interface TestPoint {
  readonly attributes: Record<string, unknown>;
  readonly value: number | { readonly count: number; readonly sum: number | undefined };
}

export interface TestTelemetry {
  readonly tracerProvider: TracerProvider;
  /** The spans ended so far. */
  spans(): ReadableSpan[];
  /** The data points of the metric `name` collected now. */
  points(name: string): Promise<TestPoint[]>;
  /** Unregisters everything and shuts the providers down. */
  uninstall(): Promise<void>;
}

/** Registers a tracer provider, a meter provider, the AsyncLocalStorage context manager and the W3C propagator. */
export function installTestTelemetry(): TestTelemetry {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new TestMetricReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    tracerProvider,
    spans: () => exporter.getFinishedSpans(),
    async points(name) {
      const collected: CollectionResult = await reader.collect();
      const points: TestPoint[] = [];
      for (const scope of collected.resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name !== name) continue;
          for (const point of metric.dataPoints) {
            const value = point.value as number | { count: number; sum?: number };
            points.push({
              attributes: { ...point.attributes },
              value: typeof value === 'number' ? value : { count: value.count, sum: value.sum },
            });
          }
        }
      }
      return points;
    },
    async uninstall() {
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
