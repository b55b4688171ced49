import type {
  CodeRunEvent,
  CodeRunFailure,
  CodeRunResult,
  CodeRuntime,
  CodeRuntimeLanguage,
  FailureKind,
  HostCallContext,
  HostFunction,
  JsonValue,
} from '@sluice/code-runtime';
import { afterAll, beforeAll, expect } from 'vitest';
import { type ConformanceBudgets, caseTimeoutMs } from './conformance-options.js';
import type { ConformancePrograms } from './programs.js';

/** What every group of cases gets: the provider under test and its language's programs. */
export interface ConformanceSuite {
  readonly language: CodeRuntimeLanguage;
  readonly programs: ConformancePrograms;
  readonly create: (budgets: ConformanceBudgets) => CodeRuntime | Promise<CodeRuntime>;
}

/**
 * Creates a runtime for the enclosing `describe` before its cases and disposes it after them.
 * Returns a getter, since the runtime exists only once `beforeAll` has run.
 */
export function useRuntime(suite: ConformanceSuite, budgets: ConformanceBudgets): () => CodeRuntime {
  let runtime: CodeRuntime | undefined;
  beforeAll(async () => {
    runtime = await suite.create(budgets);
    // Started before the cases, as a server starts it: a case that gives a program a moment to
    // print must not spend it on the substrate starting. The cold-start cases use their own runtime.
    await runtime.ready?.();
  }, caseTimeoutMs);
  afterAll(async () => {
    await runtime?.dispose();
  }, caseTimeoutMs);
  return () => {
    if (runtime === undefined) throw new Error('The conformance runtime was not created; see the beforeAll error.');
    return runtime;
  };
}

/** One call a host function received. */
export interface HostInvocation {
  readonly input: JsonValue;
  readonly context: HostCallContext;
  /** Whether the call's signal was already aborted when the function was invoked. */
  readonly abortedAtCall: boolean;
}

/** A host function that records every call it receives. */
export interface RecordingHostFunction extends HostFunction {
  readonly invocations: HostInvocation[];
}

/** Wraps `implementation` so each call is recorded before it runs. */
export function recording(
  implementation: (input: JsonValue, context: HostCallContext) => Promise<JsonValue> | JsonValue,
): RecordingHostFunction {
  const invocations: HostInvocation[] = [];
  const host = (input: JsonValue, context: HostCallContext) => {
    invocations.push({ input, context, abortedAtCall: context.signal.aborted });
    return implementation(input, context);
  };
  return Object.assign(host, { invocations });
}

/** A host function that resolves with `{ echoed: input }`; `invoked` resolves at its first call. */
export function echo(): RecordingHostFunction & { readonly invoked: Promise<void> } {
  const invoked = deferred();
  const host = recording((input) => {
    invoked.resolve();
    return { echoed: input };
  });
  return Object.assign(host, { invoked: invoked.promise });
}

/**
 * A host function that never settles on its own: it waits for its call's signal and then rejects.
 * `invoked` resolves at its first call.
 */
export function waitForever(): RecordingHostFunction & { readonly invoked: Promise<void> } {
  const invoked = deferred();
  const host = recording((_input, { signal }) => {
    invoked.resolve();
    return new Promise((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(new Error('the run ended')), { once: true });
    });
  });
  return Object.assign(host, { invoked: invoked.promise });
}

/** A promise with its resolver, for waiting on something a callback will see. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** An `onEvent` listener that keeps every event, and can wait for a log line. */
export function eventRecorder(): {
  readonly events: CodeRunEvent[];
  readonly onEvent: (event: CodeRunEvent) => void;
  waitForLog(text: string): Promise<void>;
} {
  const events: CodeRunEvent[] = [];
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  return {
    events,
    onEvent(event) {
      events.push(event);
      if (event.type !== 'log') return;
      for (const waiter of waiters) if (waiter.text === event.text) waiter.resolve();
    },
    waitForLog(text) {
      if (events.some((event) => event.type === 'log' && event.text === text)) return Promise.resolve();
      const { promise, resolve } = deferred();
      waiters.push({ text, resolve });
      return promise;
    },
  };
}

/** Asserts that `result` failed with `kind` and returns its failure, narrowed. */
export function failureOf<Kind extends FailureKind>(
  result: CodeRunResult,
  kind: Kind,
): Extract<CodeRunFailure, { kind: Kind }> {
  expect(result).toMatchObject({ ok: false, failure: { kind } });
  if (result.ok) throw new Error('unreachable: the assertion above failed');
  expect(typeof result.failure.message).toBe('string');
  expect(result.failure.message.length).toBeGreaterThan(0);
  return result.failure as Extract<CodeRunFailure, { kind: Kind }>;
}

/** Asserts that `result` succeeded and returns it, narrowed. */
export function successOf(result: CodeRunResult): Extract<CodeRunResult, { ok: true }> {
  expect(result).toMatchObject({ ok: true });
  if (!result.ok) throw new Error('unreachable: the assertion above failed');
  return result;
}

/** The text of each log entry, in order. */
export function logTexts(result: CodeRunResult): string[] {
  return result.logs.map((entry) => entry.text);
}

/** What `action` threw, or `undefined` when it returned. */
export function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Resolves after `ms` milliseconds. Used only to give a misbehaving provider time to show itself, never to time anything. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
