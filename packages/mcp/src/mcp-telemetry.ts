import {
  type Context,
  context,
  type MeterProvider,
  metrics,
  propagation,
  type TextMapGetter,
  type UpDownCounter,
} from '@opentelemetry/api';

/** The instrumentation scope of this package's metrics. */
const telemetryScope = '@sluice/mcp';

/** The `_meta` keys that carry W3C trace context on an MCP request (as the MCP spec reserves them). */
const traceKeys = ['traceparent', 'tracestate', 'baggage'] as const;

/** The most characters of one trace header read from `_meta` (a W3C `tracestate` is at most 512). */
const headerLength = 8192;

/** Reads a trace header from an untrusted `_meta`: a string, or nothing. Never throws. */
const metaGetter: TextMapGetter<unknown> = {
  keys: () => [...traceKeys],
  get(carrier, key) {
    if (!(traceKeys as readonly string[]).includes(key)) return undefined;
    try {
      const value: unknown = (carrier as Record<string, unknown>)[key];
      return typeof value === 'string' && value.length <= headerLength ? value : undefined;
    } catch {
      return undefined;
    }
  },
};

/**
 * The context a request with `meta` (its `params._meta`) runs in: the active one, with the caller's
 * span as remote parent when `meta` carries a W3C `traceparent` (and `tracestate`, `baggage`) and a
 * propagator is registered (an SDK registers one; without, this is the active context). Never throws.
 */
export function contextFromMeta(meta: unknown): Context {
  const active = context.active();
  if (typeof meta !== 'object' || meta === null) return active;
  try {
    return propagation.extract(active, meta, metaGetter);
  } catch {
    return active;
  }
}

/**
 * The active context's trace headers, as `_meta` entries to send with a request to an upstream
 * server, so its spans join this trace; `undefined` when there are none. Never throws.
 */
export function traceMeta(): Record<string, string> | undefined {
  try {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier, {
      set(target, key, value) {
        if ((traceKeys as readonly string[]).includes(key) && typeof value === 'string') target[key] = value;
      },
    });
    return Object.keys(carrier).length === 0 ? undefined : carrier;
  } catch {
    return undefined;
  }
}

let waiting: { provider: MeterProvider; counter: UpDownCounter } | undefined;

/**
 * Adds `delta` to `sluice.pause.waiting`: paused calls this process is asking a person about now.
 * Made again when another meter provider has been registered. Never throws.
 */
export function countPausesWaiting(delta: number): void {
  try {
    const provider = metrics.getMeterProvider();
    if (waiting?.provider !== provider) {
      const counter = provider.getMeter(telemetryScope).createUpDownCounter('sluice.pause.waiting', {
        description: 'Paused host calls waiting for a person’s decision that this process is asking about.',
        unit: '{pause}',
      });
      waiting = { provider, counter };
    }
    waiting.counter.add(delta);
  } catch {
    // Telemetry never stops a request.
  }
}
