// What the hosts of the fault tests share, in the fault-host process and in the test process alike:
// the programs, the tools (each real execution appends a line to a side-effect ledger file), the
// store by kind and location, and a store wrapper that stops at a chosen point of a chosen call.
import { appendFileSync, existsSync } from 'node:fs';
import type { CodeRuntime } from '@sluice/code-runtime';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import type { Tool } from '@sluice/permissions';
import { createPGliteRunStore, createPostgresRunStore, type RunStore } from '@sluice/run-store';
import { createDurableRuns, type DurableRuns } from '../index.js';

export type StoreKind = 'pglite' | 'postgres';

/**
 * The programs the hosts run, by name. `basic`: call 1 `send` (audit), call 2 `read` (replay-safe),
 * call 3 `send` (ann) — the non-replay-safe call the crash points aim at; each result's `from` names
 * the host that ran it, an error's message is returned in its place. `pay`: `read`, then `pay` (the
 * policy asks a person), then `send`. `adaptive`: like `basic`, but sends through `notify` when the
 * host offers that tool.
 */
export const faultPrograms = {
  basic: `
const first = await tools.send({ to: 'audit', text: 'starting' });
let page;
try { page = (await tools.read({ url: 'https://example.com' })).from; } catch (error) { page = String(error.message); }
let sent;
try { sent = (await tools.send({ to: 'ann', text: 'done' })).from; } catch (error) { sent = String(error.message); }
return { first: first.from, page, sent };
`,
  pay: `
const page = await tools.read({ url: 'https://example.com/invoice' });
let paid;
try { paid = (await tools.pay({ amount: 40 })).from; } catch (error) { paid = String(error.message); }
const sent = await tools.send({ to: 'ann', text: 'invoice handled' });
return { page: page.from, paid, sent: sent.from };
`,
  adaptive: `
const notify = 'notify' in tools ? tools.notify : tools.send;
const first = await notify({ to: 'audit', text: 'starting' });
const page = await tools.read({ url: 'https://example.com' });
const sent = await tools.send({ to: 'ann', text: 'done' });
return { first: first.from, page: page.from, sent: sent.from };
`,
} as const;

export type FaultProgram = keyof typeof faultPrograms;

/**
 * Where a host stops inside call `seq`: `before-intent` (the intent write is held before it reaches
 * the store), `after-intent` (written, then held), `in-tool` (the tool ran its effect and hangs, or
 * waits for the `go` file), `after-execution` (the outcome write is held before it reaches the
 * store). Each prints its marker first: `stage <name> <seq>`.
 */
export type FaultPoint = 'before-intent' | 'after-intent' | 'in-tool' | 'after-execution';

export interface FaultStop {
  readonly point: FaultPoint;
  readonly seq: number;
  /** For `in-tool`: the tool returns once this file exists (polled; at most 90 s). Absent: it never returns. */
  readonly go?: string;
}

/** The stage marker each point prints (`stage <marker> <seq>`). */
export const stageMarkers: Record<FaultPoint, string> = {
  'before-intent': 'before-intent',
  'after-intent': 'intent-written',
  'in-tool': 'executing',
  'after-execution': 'executed',
};

export function openStore(kind: StoreKind, where: string): RunStore {
  return kind === 'pglite'
    ? createPGliteRunStore({ dataDir: where })
    : createPostgresRunStore({ connectionString: where });
}

const never = () => new Promise<never>(() => {});

/** `real`, except that the journal write `stop` names prints its marker and never settles. */
export function stoppingStore(real: RunStore, stop: FaultStop | undefined, print: (line: string) => void): RunStore {
  if (stop === undefined || stop.point === 'in-tool') return real;
  const marker = `stage ${stageMarkers[stop.point]} ${stop.seq}`;
  return new Proxy(real, {
    get(target, key) {
      const value = Reflect.get(target, key) as unknown;
      if (typeof value !== 'function') return value;
      const forward = (args: unknown[]) => (value as (...values: unknown[]) => Promise<unknown>).apply(target, args);
      if (key === 'recordIntent' && stop.point !== 'after-execution') {
        return async (...args: unknown[]) => {
          if (args[1] !== stop.seq) return forward(args);
          if (stop.point === 'before-intent') {
            print(marker);
            return never();
          }
          await forward(args);
          print(marker);
          return never();
        };
      }
      if (key === 'recordOutcome' && stop.point === 'after-execution') {
        return (...args: unknown[]) => {
          if (args[1] !== stop.seq) return forward(args);
          print(marker);
          return never();
        };
      }
      return (...args: unknown[]) => forward(args);
    },
  });
}

/** One line of the ledger: which host ran which tool, under which idempotency key, with what input. */
export interface LedgerLine {
  readonly host: string;
  readonly tool: string;
  readonly key: string;
  readonly input: string;
}

export function ledgerLine(line: string): LedgerLine {
  const [host = '', tool = '', key = '', ...input] = line.split(' ');
  return { host, tool, key, input: input.join(' ') };
}

export interface FaultHostOptions {
  readonly store: RunStore;
  /** The side-effect ledger: every real tool execution appends `<host> <tool> <idempotencyKey> <input JSON>`. */
  readonly ledger: string;
  /** Names this host in the ledger and in tool results (`from`). */
  readonly host: string;
  readonly stop?: FaultStop;
  readonly leaseMs?: number;
  /** Also offer a `notify` tool (a host built with another tool set). */
  readonly notify?: boolean;
  readonly print?: (line: string) => void;
}

/** A durable host over QuickJS: `read` (replay-safe), `send`, `pay` (asked), and `notify` when asked for. */
export function createFaultHost(options: FaultHostOptions): { runs: DurableRuns; runtime: CodeRuntime } {
  const { ledger, host, stop } = options;
  const print = options.print ?? (() => {});
  const tool = (name: string, replay?: 'safe'): Tool => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
    ...(replay === undefined ? {} : { replay }),
    execute: async (input, context) => {
      appendFileSync(ledger, `${host} ${name} ${context.idempotencyKey ?? '-'} ${JSON.stringify(input)}\n`);
      const seq = Number(context.idempotencyKey?.split('/').pop());
      if (stop?.point === 'in-tool' && seq === stop.seq) {
        print(`stage ${stageMarkers['in-tool']} ${seq}`);
        if (stop.go === undefined) return never();
        await fileAppears(stop.go, 90_000);
        print(`stage returning ${seq}`);
      }
      return { from: host, name };
    },
  });
  // A wall clock past any stop a test holds a host in (a SIGSTOP, a loaded machine).
  const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 120_000 });
  const runs = createDurableRuns({
    runtime,
    store: options.store,
    tools: [tool('read', 'safe'), tool('send'), tool('pay'), ...(options.notify ? [tool('notify')] : [])],
    policy: { default: 'allow', rules: [{ tool: 'pay', effect: 'ask', description: 'payments need a person' }] },
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  });
  return { runs, runtime };
}

/** Resolves once `path` exists; rejects after `withinMs`. */
export async function fileAppears(path: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
