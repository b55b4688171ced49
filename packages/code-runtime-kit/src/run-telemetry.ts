import {
  type Attributes,
  type Context,
  type Counter,
  context,
  type Histogram,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type UpDownCounter,
} from '@opentelemetry/api';
import { type CodeRunResult, cutUtf8 } from '@sluice/code-runtime';

/** The instrumentation scope of every span and metric a run makes: this package. */
export const telemetryScope = '@sluice/code-runtime-kit';

/** The most UTF-8 bytes of a tool or runtime name put in an attribute or a span name. */
const nameBytes = 128;

/** What a host call that failed records as `error.type`: a short, fixed set, safe as a metric attribute. */
export type HostCallErrorType = 'refused' | 'tool_error' | 'invalid_result' | 'run_ended';

interface Instruments {
  readonly provider: MeterProvider;
  readonly runs: Counter;
  readonly duration: Histogram;
  readonly queue: Histogram;
  readonly active: UpDownCounter;
  readonly hostCalls: Counter;
}

let cached: Instruments | undefined;

/** Bucket bounds of the duration histograms, in seconds: a few milliseconds up to the longest wall-clock budgets. */
const secondsBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/**
 * The run metrics, made from the meter provider registered now. Made again when another provider
 * has been registered since (the API hands out no proxy for meters), so an SDK registered after
 * this package was loaded is used from its next run on.
 */
function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (cached?.provider === provider) return cached;
  const meter = provider.getMeter(telemetryScope);
  cached = {
    provider,
    runs: meter.createCounter('sluice.run.count', { description: 'Runs that ended, by outcome.', unit: '{run}' }),
    duration: meter.createHistogram('sluice.run.duration', {
      description: 'Wall-clock time of a run from the start of its program to its end.',
      unit: 's',
      advice: { explicitBucketBoundaries: secondsBuckets },
    }),
    queue: meter.createHistogram('sluice.run.queue.duration', {
      description: 'Time a run waited for a free substrate before its program started.',
      unit: 's',
      advice: { explicitBucketBoundaries: secondsBuckets },
    }),
    active: meter.createUpDownCounter('sluice.run.active', {
      description: 'Runs started and not yet ended (queued ones included).',
      unit: '{run}',
    }),
    hostCalls: meter.createCounter('sluice.host_call.count', {
      description: 'Host calls (tool calls) a program made, by tool and outcome.',
      unit: '{call}',
    }),
  };
  return cached;
}

/** Runs `work`, swallowing what it throws: telemetry must never break a run. */
function quietly(work: () => void): void {
  try {
    work();
  } catch {
    // An SDK, exporter or attribute value that throws is the telemetry's problem, not the run's.
  }
}

/** Who a run belongs to, for its span and metrics. */
export interface RunTelemetryOptions {
  readonly runId: string;
  readonly runtimeId: string | undefined;
  readonly language: string | undefined;
}

/**
 * The OpenTelemetry side of one run: a `sluice.run` span started in the context active when the
 * run was created, a child `execute_tool <name>` span per host call (GenAI semantic conventions for
 * tool execution), and the run metrics. Only `@opentelemetry/api` is used, so without a registered
 * SDK all of it is a no-op. No method throws.
 */
export class RunTelemetry {
  #span: Span | undefined;
  /** The context host functions are called in: the caller's, with the run span active. */
  #context: Context | undefined;
  readonly #metricAttributes: Attributes = {};
  /** The instruments the run was counted in as active: it leaves the same ones, even if the SDK changed meanwhile. */
  #started: Instruments | undefined;
  #ended = false;

  constructor(options: RunTelemetryOptions) {
    quietly(() => {
      const runtime = cutUtf8(String(options.runtimeId ?? 'unknown'), nameBytes);
      const language = cutUtf8(String(options.language ?? 'unknown'), nameBytes);
      Object.assign(this.#metricAttributes, { 'sluice.runtime.id': runtime });
      const parent = context.active();
      const span = trace.getTracer(telemetryScope).startSpan(
        'sluice.run',
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            'sluice.run.id': options.runId,
            'sluice.runtime.id': runtime,
            'sluice.runtime.language': language,
          },
        },
        parent,
      );
      this.#span = span;
      this.#context = trace.setSpan(parent, span);
      this.#started = instruments();
      this.#started.active.add(1, this.#metricAttributes);
    });
  }

  /** Starts the span of one host call, `tool` being `namespace.name`; `granted` says whether it names a granted function. */
  hostCall(tool: string, callId: string, granted: boolean): HostCallTelemetry {
    return new HostCallTelemetry(this.#context, tool, callId, granted, this.#metricAttributes);
  }

  /** Ends the run span with the result's outcome and usage, and records the run metrics. Once; never throws. */
  end(result: CodeRunResult): void {
    if (this.#ended) return;
    this.#ended = true;
    let outcome = 'unknown';
    quietly(() => {
      outcome = result.ok ? 'ok' : cutUtf8(String(result.failure.kind), nameBytes);
    });
    quietly(() => this.#endSpan(result, outcome));
    quietly(() => {
      this.#started?.active.add(-1, this.#metricAttributes);
      const recorded = instruments();
      const withOutcome = { ...this.#metricAttributes, 'sluice.run.outcome': outcome };
      recorded.runs.add(1, withOutcome);
      recorded.duration.record(finite(result.usage.wallMs) / 1000, withOutcome);
      recorded.queue.record(finite(result.usage.queuedMs) / 1000, this.#metricAttributes);
    });
  }

  #endSpan(result: CodeRunResult, outcome: string): void {
    const span = this.#span;
    if (span === undefined) return;
    // Without an SDK (or sampled out) the span records nothing: its attributes are not even built.
    if (span.isRecording()) {
      const { usage } = result;
      const attributes: Attributes = {
        'sluice.run.outcome': outcome,
        'sluice.run.usage.wall_ms': finite(usage.wallMs),
        'sluice.run.usage.queued_ms': finite(usage.queuedMs),
        'sluice.run.usage.host_calls': finite(usage.hostCalls),
        'sluice.run.usage.output_bytes': finite(usage.outputBytes),
      };
      if (usage.cpuMs !== undefined) attributes['sluice.run.usage.cpu_ms'] = finite(usage.cpuMs);
      if (usage.peakMemoryBytes !== undefined) {
        attributes['sluice.run.usage.peak_memory_bytes'] = finite(usage.peakMemoryBytes);
      }
      if (!result.ok) {
        attributes['error.type'] = outcome;
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
      }
      span.setAttributes(attributes);
    }
    span.end();
  }
}

/** The span and metric of one host call: see {@link RunTelemetry.hostCall}. No method throws. */
export class HostCallTelemetry {
  #span: Span | undefined;
  #context: Context | undefined;
  #tool = '_OTHER';
  readonly #runAttributes: Attributes;
  #ended = false;

  constructor(parent: Context | undefined, tool: string, callId: string, granted: boolean, runAttributes: Attributes) {
    this.#runAttributes = runAttributes;
    quietly(() => {
      // A name the program made up is not granted and could be anything: only granted names go into metrics.
      if (granted) this.#tool = cutUtf8(tool, nameBytes);
      if (parent === undefined) return;
      const name = cutUtf8(tool, nameBytes);
      const span = trace.getTracer(telemetryScope).startSpan(
        `execute_tool ${name}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': name,
            'gen_ai.tool.call.id': callId,
            'gen_ai.tool.type': 'function',
          },
        },
        parent,
      );
      this.#span = span;
      this.#context = trace.setSpan(parent, span);
    });
  }

  /**
   * Calls `work` (the host function) with this call's span active, so what it does (an upstream MCP
   * call, an HTTP request) joins the trace under it. What `work` throws is thrown on.
   */
  invoke<T>(work: () => T): T {
    const active = this.#context;
    return active === undefined ? work() : context.with(active, work);
  }

  /** Ends the span and counts the call: `errorType` when it failed. Once; never throws. */
  end(errorType?: HostCallErrorType): void {
    if (this.#ended) return;
    this.#ended = true;
    quietly(() => {
      const span = this.#span;
      if (span !== undefined) {
        if (errorType !== undefined) {
          span.setAttribute('error.type', errorType);
          span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
        }
        span.end();
      }
      instruments().hostCalls.add(1, {
        ...this.#runAttributes,
        'gen_ai.tool.name': this.#tool,
        'sluice.host_call.outcome': errorType === undefined ? 'ok' : 'error',
        ...(errorType === undefined ? {} : { 'error.type': errorType }),
      });
    });
  }
}

function finite(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
