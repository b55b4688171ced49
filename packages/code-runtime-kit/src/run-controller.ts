import { randomUUID } from 'node:crypto';
import {
  type BindingEntry,
  type CodeRun,
  type CodeRunEvent,
  type CodeRunFailure,
  type CodeRunResult,
  checkJsonValue,
  cutUtf8,
  describeJsonViolation,
  foreignErrorMessage,
  foreignText,
  type HostCallRecord,
  type JsonMeasure,
  type JsonValue,
  jsonDepthLimit,
  type LogLevel,
  measureJson,
  wellFormedText,
} from '@sluice/code-runtime';
import { notGrantedMessage } from './binding-suggestions.js';
import { FifoQueue } from './fifo-queue.js';
import { LogBuffer } from './log-buffer.js';
import type { RunLimits } from './run-limits.js';
import { type HostCallErrorType, type HostCallTelemetry, RunTelemetry } from './run-telemetry.js';

/** The most UTF-8 bytes of a cancel or abort reason kept in a failure. */
const reasonBytes = 1024;

/** What the program receives for one host call: the result, or the message of the error it raises. */
export type HostReply =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly error: string };

/** How the substrate says the program ended. A success's value is checked here (JSON, size) before it is accepted. */
export type RunOutcome =
  | { readonly ok: true; readonly value?: unknown }
  | { readonly ok: false; readonly failure: CodeRunFailure };

/** What only the substrate can measure. */
export interface SubstrateUsage {
  readonly cpuMs?: number;
  readonly peakMemoryBytes?: number;
}

/** Options for {@link RunController}. */
export interface RunControllerOptions {
  readonly bindings: ReadonlyMap<string, BindingEntry>;
  readonly limits: RunLimits;
  readonly signal?: AbortSignal | undefined;
  readonly onEvent?: ((event: CodeRunEvent) => void) | undefined;
  /** The runtime's id, named in the `unavailable` failure: `'worker-thread'`. */
  readonly runtimeId?: string;
  /** The runtime's language, an attribute of the run's span: `'javascript'`. */
  readonly language?: string;
}

interface PendingCall {
  readonly record: { callId: string; namespace: string; name: string; ok: boolean; ms: number; error?: string };
  readonly startedAt: number;
  readonly telemetry: HostCallTelemetry;
  done: boolean;
}

/**
 * The host side of one run, the same for every provider: it streams and caps logs, checks and
 * dispatches host calls, enforces the wall clock, and settles the result exactly once. A provider
 * calls {@link begin} when the program starts in a substrate, feeds it what the substrate says
 * (`log`, `call`, `finish`) and kills the substrate when {@link signal} aborts without the provider
 * having finished the run itself.
 *
 * A run is queued until {@link begin}: the wall clock has not started, and `limits.acquireTimeoutMs`
 * (when set) bounds the wait, after which the run ends as `unavailable`, its program never started.
 */
export class RunController {
  readonly id = `run_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  /** Aborted the moment the run ends, for any reason; also the `signal` every host call receives. */
  readonly signal: AbortSignal;
  readonly result: Promise<CodeRunResult>;
  /** The caller's handle on this run. */
  readonly run: CodeRun;

  readonly #abort = new AbortController();
  readonly #logs: LogBuffer;
  readonly #calls: PendingCall[] = [];
  readonly #waiting = new FifoQueue<() => void>();
  readonly #beforeFinish: Array<() => void> = [];
  readonly #createdAt = performance.now();
  /** When the program started ({@link begin}); `undefined` while the run is queued. */
  #startedAt: number | undefined;
  #wallTimer: ReturnType<typeof setTimeout> | undefined;
  #acquireTimer: ReturnType<typeof setTimeout> | undefined;
  #resolve!: (result: CodeRunResult) => void;
  #inFlight = 0;
  #callCount = 0;
  #removeRequestListener: (() => void) | undefined;
  #settled = false;
  /** The run's span and metrics; started here, in the context active when the run is created. */
  readonly #telemetry: RunTelemetry;

  constructor(private readonly options: RunControllerOptions) {
    this.signal = this.#abort.signal;
    this.#telemetry = new RunTelemetry({ runId: this.id, runtimeId: options.runtimeId, language: options.language });
    this.#logs = new LogBuffer(options.limits.logBytes);
    this.result = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    this.run = { id: this.id, result: this.result, cancel: (reason) => this.cancel(reason) };
    const { acquireTimeoutMs } = options.limits;
    if (acquireTimeoutMs !== undefined) {
      this.#acquireTimer = setTimeout(() => this.#unavailable(acquireTimeoutMs), acquireTimeoutMs);
    }
    const requestSignal = options.signal;
    if (requestSignal?.aborted) {
      this.cancel(abortReasonText(requestSignal.reason));
    } else if (requestSignal) {
      const onAbort = () => this.cancel(abortReasonText(requestSignal.reason));
      requestSignal.addEventListener('abort', onAbort, { once: true });
      this.#removeRequestListener = () => requestSignal.removeEventListener('abort', onAbort);
    }
  }

  /** Whether the run has ended. After that, logs, calls and outcomes are dropped. */
  get ended(): boolean {
    return this.#settled;
  }

  /** The granted host functions, keyed `namespace.name`: what the substrate should offer the program. */
  get bindings(): ReadonlyMap<string, BindingEntry> {
    return this.options.bindings;
  }

  /** Whether the program has started ({@link begin}); until then the run is queued. */
  get begun(): boolean {
    return this.#startedAt !== undefined;
  }

  /** Milliseconds since the program started; `0` while the run is queued. */
  get elapsedMs(): number {
    return this.#startedAt === undefined ? 0 : performance.now() - this.#startedAt;
  }

  /**
   * Says the program is starting in a substrate that is ready for it: the wait ends (it is
   * reported as `usage.queuedMs`) and the wall-clock budget starts. Call it once the run holds its
   * substrate, before the program's own work (compiling it included). Idempotent; ignored after the end.
   */
  begin(): void {
    if (this.ended || this.#startedAt !== undefined) return;
    this.#startedAt = performance.now();
    clearTimeout(this.#acquireTimer);
    const { wallTimeMs } = this.options.limits;
    this.#wallTimer = setTimeout(() => {
      this.finish({
        ok: false,
        failure: {
          kind: 'timeout',
          budget: 'wall-time',
          limitMs: wallTimeMs,
          message: `The program ran past its ${wallTimeMs} ms wall-clock budget (time spent waiting on host calls counts) and was stopped. Do less work per run, or fan host calls out concurrently.`,
        },
      });
    }, wallTimeMs);
  }

  #unavailable(limitMs: number): void {
    const runtime = this.options.runtimeId === undefined ? 'code runtime' : `${this.options.runtimeId} runtime`;
    this.finish({
      ok: false,
      failure: {
        kind: 'unavailable',
        limitMs,
        message: `The ${runtime} had no free substrate for this run within ${limitMs} ms: every one was busy with other runs or still starting. The program did not start, so nothing in it ran; run it again.`,
      },
    });
  }

  /** Records a line the program logged and streams it. Dropped after the end. */
  log(level: LogLevel, text: string): void {
    if (this.ended) return;
    // A program that prints has started, whether or not its provider said so.
    this.begin();
    for (const entry of this.#logs.add(level, text)) this.#emit({ type: 'log', runId: this.id, ...entry });
  }

  /**
   * Serves one host call from the program. `input` is what the substrate sent, untrusted: the
   * grant, the budgets and the JSON are checked here, on the host side, before the host function
   * is invoked. Resolves with the reply for the program, or `undefined` when the run ended first
   * (the reply must then be dropped, not delivered). `positional`, when the program called
   * positionally, is its arguments in order and `input` the keywords it also gave (Python) or
   * `null`: the host function then receives them as {@link HostCallContext.positional} says.
   */
  async call(namespace: string, name: string, input: unknown, positional?: unknown): Promise<HostReply | undefined> {
    if (this.ended) return undefined;
    this.begin();
    let args: JsonValue[] | undefined;
    if (positional !== undefined) {
      args = Array.isArray(positional) ? (positional as JsonValue[]) : [positional as JsonValue];
      if (!isPlainObject(input)) input = args.length === 1 ? args[0] : args;
    }
    this.#callCount += 1;
    const callId = `c${this.#callCount}`;
    const entry = this.options.bindings.get(`${namespace}.${name}`);
    const call: PendingCall = {
      record: { callId, namespace, name, ok: false, ms: 0 },
      startedAt: performance.now(),
      telemetry: this.#telemetry.hostCall(`${namespace}.${name}`, callId, entry !== undefined),
      done: false,
    };
    this.#calls.push(call);
    // Keywords given beside positional arguments: both count against the per-call bytes.
    const sent = args !== undefined && input !== args && input !== args[0] ? [args, input] : input;
    const measure = measureJson(sent, { depthLimit: jsonDepthLimit });
    const shownInput = measure.ok ? (input as JsonValue) : null;
    this.#emit({ type: 'host-call-start', runId: this.id, callId, namespace, name, input: shownInput });
    // A listener may have ended the run from that event: the call is already recorded as ended, and must not run.
    if (this.ended) return undefined;

    const refusal = this.#refusal(namespace, name, entry, measure);
    if (refusal !== undefined) return this.#end(call, { ok: false, error: refusal }, 'refused');
    if (!(await this.#acquireSlot())) return undefined;
    try {
      // Raced against the end, so a host function that ignores its signal cannot keep the provider waiting.
      // Invoked in the call's span, so what the host function does (an upstream MCP call) joins the trace.
      const value: unknown = await Promise.race([
        call.telemetry.invoke(() =>
          entry!.fn(
            input as JsonValue,
            args === undefined
              ? { runId: this.id, callId, signal: this.signal }
              : { runId: this.id, callId, signal: this.signal, positional: args },
          ),
        ),
        this.result,
      ]);
      if (this.ended) return undefined;
      const reply = this.#checkResult(namespace, name, value);
      return this.#end(call, reply, reply.ok ? undefined : 'invalid_result');
    } catch (error) {
      if (this.ended) return undefined;
      return this.#end(call, { ok: false, error: foreignText(error, this.options.limits.hostCallBytes) }, 'tool_error');
    } finally {
      this.#releaseSlot();
    }
  }

  /**
   * Registers `hook` to run once at the start of {@link finish}, while the run still accepts logs, so
   * a provider can drain what its substrate printed up to the end (a killed substrate's last lines).
   * Ignored after the end; a hook that throws is ignored.
   */
  beforeFinish(hook: () => void): void {
    if (!this.ended) this.#beforeFinish.push(hook);
  }

  /** Ends the run as cancelled. Idempotent; nothing happens after the end. */
  cancel(reason: string = 'cancelled by the caller'): void {
    // Read, not trusted: a caller in plain JavaScript may pass anything, of any size.
    const text = foreignText(reason, reasonBytes);
    this.finish({ ok: false, failure: { kind: 'abort', reason: text, message: `The run was cancelled: ${text}.` } });
  }

  /** Settles the run once; later calls are ignored. A success's value is checked for JSON and size first. */
  finish(outcome: RunOutcome, usage: SubstrateUsage = {}): void {
    if (this.ended) return;
    for (const hook of this.#beforeFinish.splice(0)) {
      try {
        hook();
      } catch {
        // A provider's drain must not stop the run from settling.
      }
    }
    if (this.ended) return;
    // Ended from here on, before any event goes out: a listener that cancels from the events below must not win.
    this.#settled = true;
    let valueBytes = 0;
    let settled: RunOutcome = outcome;
    if (outcome.ok && outcome.value !== undefined) {
      const checked = this.#checkValue(outcome.value);
      settled = checked.outcome;
      valueBytes = checked.bytes;
    }
    clearTimeout(this.#wallTimer);
    clearTimeout(this.#acquireTimer);
    this.#removeRequestListener?.();
    for (const call of this.#calls) {
      if (!call.done)
        this.#end(
          call,
          { ok: false, error: 'The run ended before this call finished; its result was dropped.' },
          'run_ended',
        );
    }
    const wallMs = this.elapsedMs;
    const queuedMs = (this.#startedAt ?? performance.now()) - this.#createdAt;
    // Abort before resolving: host functions and the provider learn of the end before the caller does.
    this.#abort.abort(settled.ok ? 'finished' : settled.failure.kind);
    for (const wake of this.#waiting.drain()) wake();
    const base = {
      runId: this.id,
      logs: this.#logs.entries,
      logsTruncated: this.#logs.truncated,
      calls: this.#calls.map((call) => ({ ...call.record }) as HostCallRecord),
      usage: {
        wallMs,
        queuedMs,
        ...usage,
        hostCalls: this.#callCount,
        outputBytes: this.#logs.keptBytes + valueBytes,
      },
    };
    const result: CodeRunResult = settled.ok
      ? { ...base, ok: true, ...(settled.value === undefined ? {} : { value: settled.value as JsonValue }) }
      : { ...base, ok: false, failure: wellFormedFailure(settled.failure) };
    this.#telemetry.end(result);
    this.#resolve(result);
  }

  /**
   * A program's value, as its provider sent it: already JSON, or a provider's stand-in for a value
   * it refused (the violation rebuilt on the host), which the boundary's table (`toJsonValue`) and
   * `measureJson` then name in the contract's words.
   */
  #checkValue(value: unknown): { outcome: RunOutcome; bytes: number } {
    const limitBytes = this.options.limits.valueBytes;
    const checked = checkJsonValue(value, { limitBytes, depthLimit: jsonDepthLimit });
    if (checked.ok) return { outcome: { ok: true, value: checked.value }, bytes: checked.bytes };
    if (checked.violation !== undefined) {
      const message = `The program returned a value that is not JSON: ${describeJsonViolation(checked.violation)}. Return plain objects, arrays, strings, finite numbers, booleans and null.`;
      return { outcome: { ok: false, failure: { kind: 'invalid-output', message } }, bytes: 0 };
    }
    const size = checked.exact ? `${checked.bytes} bytes` : `more than ${limitBytes} bytes`;
    const message = `The returned value is ${size} of JSON; the limit is ${limitBytes} bytes. Return less: filter, summarise or page the data.`;
    return { outcome: { ok: false, failure: { kind: 'output-limit', limitBytes, message } }, bytes: 0 };
  }

  #notGranted(namespace: string, name: string): string {
    return notGrantedMessage(namespace, name, [...this.options.bindings.keys()]);
  }

  #refusal(namespace: string, name: string, entry: BindingEntry | undefined, measure: JsonMeasure): string | undefined {
    if (this.#callCount > this.options.limits.hostCalls) {
      return `The host-call budget of ${this.options.limits.hostCalls} calls per run is used up; this call was refused. Make fewer calls, or batch them.`;
    }
    if (entry === undefined) return this.#notGranted(namespace, name);
    if (!measure.ok) return `The call's argument is not JSON: ${describeJsonViolation(measure.violation)}.`;
    const { bytes } = measure;
    if (bytes > this.options.limits.hostCallBytes) {
      return `The call's argument is ${bytes} bytes of JSON; the limit is ${this.options.limits.hostCallBytes} bytes per call.`;
    }
    return undefined;
  }

  /**
   * A host function's result as the program receives it: converted by the boundary's table
   * (`checkJsonValue`: a `Map` an object, a `Set` or generator an array, a `Date` its ISO string,
   * an `Error` `{ error }`), then checked for JSON and size. Never throws, whatever the value does.
   */
  #checkResult(namespace: string, name: string, value: unknown): HostReply {
    const limitBytes = this.options.limits.hostCallBytes;
    const checked = checkJsonValue(value === undefined ? null : value, { limitBytes, depthLimit: jsonDepthLimit });
    if (checked.ok) return { ok: true, value: checked.value };
    if (checked.violation !== undefined) {
      return {
        ok: false,
        error: `${namespace}.${name} returned a value that is not JSON: ${describeJsonViolation(checked.violation)}.`,
      };
    }
    const size = checked.exact ? `${checked.bytes} bytes` : `more than ${limitBytes} bytes`;
    return {
      ok: false,
      error: `${namespace}.${name} returned ${size} of JSON; the limit is ${limitBytes} bytes per call. Ask for less.`,
    };
  }

  async #acquireSlot(): Promise<boolean> {
    while (this.#inFlight >= this.options.limits.concurrentHostCalls) {
      await new Promise<void>((wake) => this.#waiting.push(wake));
      if (this.ended) return false;
    }
    this.#inFlight += 1;
    return true;
  }

  #releaseSlot(): void {
    this.#inFlight -= 1;
    this.#waiting.shift()?.();
  }

  #end(call: PendingCall, reply: HostReply, errorType?: HostCallErrorType): HostReply {
    const { record } = call;
    call.done = true;
    call.telemetry.end(errorType);
    record.ok = reply.ok;
    record.ms = performance.now() - call.startedAt;
    // The program gets the host's text as it was; what is recorded for the caller (and a model) is well-formed.
    const error = reply.ok ? undefined : wellFormedText(reply.error);
    if (error !== undefined) record.error = error;
    this.#emit({
      type: 'host-call-end',
      runId: this.id,
      callId: record.callId,
      namespace: record.namespace,
      name: record.name,
      ok: record.ok,
      ms: record.ms,
      ...(error === undefined ? {} : { error }),
    });
    return reply;
  }

  #emit(event: CodeRunEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A listener that throws must not break the run; the contract says it is ignored.
    }
  }
}

/**
 * A readable reason from whatever an `AbortSignal` was aborted with, at most 1 KiB of UTF-8. Never
 * throws: the reason is foreign, and is read through `foreignText`.
 */
export function abortReasonText(reason: unknown): string {
  if (typeof reason === 'string' && reason !== '') return cutUtf8(reason, reasonBytes);
  const message = foreignErrorMessage(reason);
  return message === undefined ? 'the request signal was aborted' : cutUtf8(message, reasonBytes);
}

/** `failure` with its message and stack as well-formed Unicode (a program's own error text can hold a lone surrogate). */
function wellFormedFailure(failure: CodeRunFailure): CodeRunFailure {
  const stack = (failure as { stack?: unknown }).stack;
  return {
    ...failure,
    message: wellFormedText(failure.message),
    ...(typeof stack === 'string' ? { stack: wellFormedText(stack) } : {}),
  } as CodeRunFailure;
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
