import type { JsonValue } from '@sluice/code-runtime';
import { valueDepthLimit } from './python-settings.js';
import { type WireSchema, wire, wireProblem } from './wire-schema.js';

/** The version every frame carries in its `v` field. Documented in docs/architecture/python-wire-protocol.md. */
export const wireProtocolVersion = 1;

/** Frames a run child sends the host on fd 3. Pinned by a test. */
export const childFrameTypes = ['started', 'log', 'call', 'done'] as const;
/** Frames the host sends a run child on fd 3. Pinned by a test. */
export const hostFrameTypes = ['run', 'reply'] as const;
/** The first line on each of a child's three connections, written by the zygote before it forks. */
export const helloFrameType = 'hello';
/** Commands the host writes to the zygote's stdin. Pinned by a test. */
export const zygoteCommandTypes = ['fork', 'kill'] as const;
/** Reports the zygote writes to its stdout. Pinned by a test. */
export const zygoteReportTypes = ['ready', 'boot-error', 'exit'] as const;

/** The three connections of one child, by the `stream` of their hello. */
export type ChildStream = 'control' | 'stdout' | 'stderr';

export interface HelloFrame {
  readonly v: 1;
  readonly type: 'hello';
  readonly token: string;
  readonly stream: ChildStream;
}

export interface StartedFrame {
  readonly v: 1;
  readonly type: 'started';
  /** Sent before any program code runs, so the host may trust it for the kill. */
  readonly pid: number;
  readonly layers: readonly string[];
  readonly addressSpaceBytes: number | null;
  readonly cpuSeconds: number | null;
  readonly error?: string;
}

export interface LogFrame {
  readonly v: 1;
  readonly type: 'log';
  readonly stream: 'stdout' | 'stderr';
  readonly text: string;
}

/** A host call: `input` is its one JSON argument, or `arguments` its positional arguments and keywords (or `null`). */
export type CallFrame = {
  readonly v: 1;
  readonly type: 'call';
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
} & (
  | { readonly input: JsonValue; readonly arguments?: undefined }
  | { readonly input?: undefined; readonly arguments: readonly JsonValue[] }
);

/** What a child can say about a failed program. The host maps it to a failure; it cannot claim a timeout or a kill. */
export interface DoneError {
  readonly kind: 'exception' | 'memory' | 'invalid-output' | 'output-limit';
  readonly name?: string;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
  readonly stack?: string;
}

export interface DoneUsage {
  readonly cpuMs: number;
  readonly peakMemoryBytes: number;
}

export type DoneFrame =
  | { readonly v: 1; readonly type: 'done'; readonly ok: true; readonly value?: JsonValue; readonly usage?: DoneUsage }
  | { readonly v: 1; readonly type: 'done'; readonly ok: false; readonly error: DoneError; readonly usage?: DoneUsage };

export type ChildFrame = StartedFrame | LogFrame | CallFrame | DoneFrame;

export interface ReadyReport {
  readonly v: 1;
  readonly type: 'ready';
  readonly pid: number;
  readonly executable: string;
  readonly version: string;
  readonly euid: number;
  readonly layers: readonly string[];
  readonly problems: Readonly<Record<string, string>>;
  readonly landlockAbi: number;
  readonly addressSpaceBytes: number | null;
  readonly cpuSeconds: number | null;
}

export type ZygoteReport =
  | ReadyReport
  | { readonly v: 1; readonly type: 'boot-error'; readonly message: string }
  | {
      readonly v: 1;
      readonly type: 'exit';
      readonly run: number;
      readonly code?: number | null;
      readonly signal?: number | null;
      readonly cpuMs?: number;
      readonly maxRssBytes?: number;
      readonly error?: string;
    };

const version = wire.literal(wireProtocolVersion);
const identifier = wire.string(64, /^[A-Za-z_][A-Za-z0-9_]*$/);

const callFields = {
  v: version,
  type: wire.literal('call'),
  id: wire.integer(1),
  namespace: identifier,
  name: identifier,
};
const count = wire.integer(0);
const text = wire.string();
const nullableCount = wire.union(count, wire.null);
const layerName = wire.string(32, /^[a-z-]+$/);

const helloSchema = wire.object({
  v: version,
  type: wire.literal('hello'),
  token: wire.string(64, /^[0-9a-f]{32}$/),
  stream: wire.literal('control', 'stdout', 'stderr'),
});

const usageSchema = wire.object({ cpuMs: wire.number(), peakMemoryBytes: wire.number() });

const childSchemas: Readonly<Record<ChildFrame['type'], WireSchema>> = {
  started: wire.object({
    v: version,
    type: wire.literal('started'),
    pid: wire.integer(1),
    layers: wire.array(layerName, 32),
    addressSpaceBytes: nullableCount,
    cpuSeconds: nullableCount,
    error: wire.optional(text),
  }),
  log: wire.object({ v: version, type: wire.literal('log'), stream: wire.literal('stdout', 'stderr'), text }),
  // A positional call carries `arguments`, [its arguments, its keywords or null], instead of `input`.
  call: wire.union(
    wire.object({ ...callFields, input: wire.json }),
    wire.object({ ...callFields, arguments: wire.array(wire.json, 2) }),
  ),
  done: wire.union(
    wire.object({
      v: version,
      type: wire.literal('done'),
      ok: wire.literal(true),
      value: wire.optional(wire.json),
      usage: wire.optional(usageSchema),
    }),
    wire.object({
      v: version,
      type: wire.literal('done'),
      ok: wire.literal(false),
      error: wire.object({
        kind: wire.literal('exception', 'memory', 'invalid-output', 'output-limit'),
        name: wire.optional(wire.string(256)),
        message: text,
        line: wire.optional(wire.integer(1)),
        column: wire.optional(wire.integer(0)),
        stack: wire.optional(text),
      }),
      usage: wire.optional(usageSchema),
    }),
  ),
};

const zygoteSchemas: Readonly<Record<ZygoteReport['type'], WireSchema>> = {
  ready: wire.object({
    v: version,
    type: wire.literal('ready'),
    pid: wire.integer(1),
    executable: text,
    version: text,
    euid: count,
    layers: wire.array(layerName, 32),
    problems: wire.json,
    landlockAbi: count,
    addressSpaceBytes: nullableCount,
    cpuSeconds: nullableCount,
  }),
  'boot-error': wire.object({ v: version, type: wire.literal('boot-error'), message: text }),
  exit: wire.object({
    v: version,
    type: wire.literal('exit'),
    run: count,
    code: wire.optional(nullableCount),
    signal: wire.optional(nullableCount),
    cpuMs: wire.optional(wire.number()),
    maxRssBytes: wire.optional(wire.number()),
    error: wire.optional(text),
  }),
};

/** A frame checked against its closed schema, or the problem that makes it a protocol violation. */
export type Parsed<T> = { readonly frame: T } | { readonly problem: string };

function parseBy<T>(value: unknown, schemas: Readonly<Record<string, WireSchema>>): Parsed<T> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: 'a frame is not an object' };
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !Object.hasOwn(schemas, type)) {
    return { problem: `unknown frame type ${JSON.stringify(type)?.slice(0, 40)}` };
  }
  const problem = wireProblem(value, schemas[type]!, valueDepthLimit);
  return problem === undefined ? { frame: value as T } : { problem: `malformed ${type} frame: ${problem}` };
}

/** Checks one frame a child sent on fd 3. */
export function parseChildFrame(value: unknown): Parsed<ChildFrame> {
  return parseBy(value, childSchemas);
}

/** Checks the first line of a connection. */
export function parseHelloFrame(value: unknown): Parsed<HelloFrame> {
  return parseBy(value, { hello: helloSchema });
}

/** Checks one report from the zygote. */
export function parseZygoteReport(value: unknown): Parsed<ZygoteReport> {
  return parseBy(value, zygoteSchemas);
}
