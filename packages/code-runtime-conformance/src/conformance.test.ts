import {
  type CodeRunDeterminism,
  type CodeRuntimeDeterminism,
  type CodeRuntimeLanguage,
  type JsonValue,
  utf8ByteLength,
} from '@sluice/code-runtime';
import {
  CodeRuntimeBase,
  defaultRunLimits,
  type HostReply,
  type LaunchOptions,
  type RunController,
  RunGate,
} from '@sluice/code-runtime-kit';
import { describe } from 'vitest';
import { describeDeterminismCases } from './cases-determinism.js';
import { boundaryValuesBuilt } from './cases-json-boundary.js';
import type { ConformanceBudgets } from './conformance-options.js';
import { describeCodeRuntimeConformance } from './describe-code-runtime-conformance.js';
import { lineOf } from './program-lines.js';
import { type ConformanceProgramName, conformancePrograms } from './programs.js';

/** What a scripted program can see: its own source and globals, and the namespaces it was granted. */
interface StubScope {
  readonly language: CodeRuntimeLanguage;
  readonly program: string;
  readonly namespaces: readonly string[];
  readonly globals: Map<string, JsonValue>;
  readonly memoryBytes: number;
  /** The program's clock: virtual in a deterministic run (it moves only when told), else the real one. */
  readonly clock: { now(): number; advance(ms: number): void };
  /** The program's randomness: seeded in a deterministic run. */
  readonly random: () => number;
}

type Behaviour = (run: RunController, scope: StubScope) => Promise<void>;

/** Thrown out of a behaviour when the run ended under it: the substrate is "killed" and does nothing more. */
const killed = Symbol('killed');

/** An uncaught error in a scripted program. */
class ProgramError extends Error {}

async function call(run: RunController, namespace: string, name: string, input: JsonValue = null): Promise<HostReply> {
  const reply = await run.call(namespace, name, input);
  if (reply === undefined) throw killed;
  return reply;
}

async function callValue(run: RunController, namespace: string, name: string, input?: JsonValue): Promise<JsonValue> {
  const reply = await call(run, namespace, name, input);
  if (!reply.ok) throw new ProgramError(reply.error);
  return reply.value;
}

function untilKilled(run: RunController): Promise<never> {
  return new Promise((_resolve, reject) => run.signal.addEventListener('abort', () => reject(killed), { once: true }));
}

function logAll(
  run: RunController,
  entries: ReadonlyArray<readonly ['log' | 'info' | 'warn' | 'error' | 'debug', string]>,
) {
  for (const [level, text] of entries) run.log(level, text);
}

/** A clock and a random source as a substrate gives them: fixed by `deterministic`, real without it. */
function clockAndRandom(deterministic: CodeRunDeterminism | undefined): Pick<StubScope, 'clock' | 'random'> {
  if (deterministic === undefined) return { clock: { now: () => Date.now(), advance: () => {} }, random: Math.random };
  let now = deterministic.startTime;
  // xorshift32: a small generator is enough to act out a seeded one.
  let state = deterministic.seed || 0x9e3779b9;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  return { clock: { now: () => now, advance: (ms) => (now += ms) }, random };
}

function nestedArrays(depth: number): unknown[] {
  let value: unknown[] = [];
  for (let level = 1; level < depth; level += 1) value = [value];
  return value;
}

/** Each conformance program, acted out against the run controller as a real substrate would run it. */
const behaviours: Record<ConformanceProgramName, Behaviour> = {
  returnValue: async (run) =>
    run.finish({
      ok: true,
      value: { answer: 42, list: [1, 'two', true, null], nested: { text: 'héllo ✓ 🌊', ratio: -1.5 } },
    }),
  returnNothing: async (run) => run.finish({ ok: true }),
  returnNull: async (run) => run.finish({ ok: true, value: null }),
  logLines: async (run, { language }) => {
    if (language === 'python') {
      logAll(run, [
        ['log', 'one'],
        ['error', 'two'],
        ['log', 'count 3'],
        ['log', 'first line'],
        ['log', 'second line'],
        ['log', 'three'],
      ]);
    } else {
      logAll(run, [
        ['log', 'one'],
        ['info', 'two'],
        ['warn', 'three'],
        ['error', 'four'],
        ['debug', 'five'],
        ['log', 'count 3'],
        ['log', 'first line'],
        ['log', 'second line'],
      ]);
    }
    run.finish({ ok: true });
  },
  throwError: async (run, { language, program }) => {
    run.log('log', language === 'python' ? 'before the raise' : 'before the throw');
    const [name, message] =
      language === 'python' ? ['ValueError', 'boom: raised on purpose'] : ['Error', 'boom: thrown on purpose'];
    run.finish({ ok: false, failure: { kind: 'exception', name, message, line: lineOf(program, 'boom') } });
  },
  syntaxError: async (run, { program }) => {
    const line = lineOf(program, 'broken =');
    run.finish({ ok: false, failure: { kind: 'exception', name: 'SyntaxError', message: 'Unexpected token.', line } });
  },
  infiniteLoop: async (run) => {
    run.log('log', 'spinning');
    await untilKilled(run);
  },
  loopAfterAwait: async (run) => {
    await callValue(run, 'tools', 'echo', 'tick');
    run.log('log', 'spinning');
    await untilKilled(run);
  },
  hostRoundTrip: async (run) => {
    const structured = { text: 'héllo ✓ 🌊', numbers: [1, -2.5, 1e21], nested: { flag: true, nothing: null } };
    const values = [
      await callValue(run, 'tools', 'echo', structured),
      await callValue(run, 'tools', 'echo', 'plain'),
      await callValue(run, 'tools', 'echo'),
    ];
    run.finish({ ok: true, value: values });
  },
  catchHostError: async (run) => {
    const reply = await call(run, 'tools', 'fail', { city: 'Atlantis' });
    run.finish({ ok: true, value: reply.ok ? 'not reached' : { isError: true, message: reply.error } });
  },
  callWithFunction: async (run) => {
    // The run controller refuses an argument that is not JSON before any host function sees it.
    const reply = await call(run, 'tools', 'echo', { items: [1, (() => 2) as unknown as JsonValue] });
    run.finish({ ok: true, value: reply.ok ? 'sent' : { message: reply.error } });
  },
  callNotGranted: async (run, { namespaces }) => {
    const secret = await call(run, 'tools', 'secret', { want: 'everything' });
    // `admin` is not a global unless granted: the program's reference to it fails before any call.
    const admin = namespaces.includes('admin') ? await call(run, 'admin', 'secret', { want: 'everything' }) : undefined;
    run.finish({ ok: true, value: [secret, admin].map((reply) => (reply?.ok ? 'called' : 'refused')) });
  },
  positionalArguments: async (run, { language }) => {
    await run.call('tools', 'echo', null, ['oslo']);
    await run.call('tools', 'echo', null, ['one', 'two']);
    await run.call('tools', 'echo', null, [[1, 2]]);
    await run.call('tools', 'echo', { query: 'oslo' });
    await run.call('tools', 'echo', null);
    if (language === 'python') {
      await run.call('tools', 'echo', { limit: 3 }, ['oslo']);
      await run.call('tools', 'echo', { query: 'oslo' });
    }
    run.finish({ ok: true });
  },
  waitForHost: async (run) => {
    run.log('log', 'waiting');
    await callValue(run, 'tools', 'wait');
    run.finish({ ok: true, value: 'not reached' });
  },
  fireAndForget: async (run) => {
    void run.call('tools', 'slow', 'ignored');
    await callValue(run, 'tools', 'echo', 'after');
    run.finish({ ok: true, value: 'done' });
  },
  eventsInOrder: async (run) => {
    run.log('log', 'before');
    const reply = await callValue(run, 'tools', 'echo', { step: 1 });
    run.log('log', 'after');
    run.finish({ ok: true, value: reply });
  },
  logFlood: async (run) => {
    for (let index = 0; index < 5000; index += 1) run.log('log', `line ${index} ${'x'.repeat(40)}`);
    run.finish({ ok: true, value: 'flooded' });
  },
  longLine: async (run) => {
    run.log('log', '🌊'.repeat(5000));
    run.finish({ ok: true, value: 'long' });
  },
  oversizedValue: async (run) => {
    run.log('log', 'returning a lot');
    run.finish({ ok: true, value: 'x'.repeat(100_000) });
  },
  returnNaN: async (run) => {
    run.log('log', 'dividing');
    run.finish({ ok: true, value: { ratio: Number.NaN } });
  },
  returnCycle: async (run) => {
    run.log('log', 'linking');
    const node: Record<string, unknown> = {};
    node.self = node;
    run.finish({ ok: true, value: node });
  },
  returnExotic: async (run, { language }) => {
    run.log('log', 'counting');
    // Python's bytes: what the table still refuses, as a typed array is.
    const value = language === 'python' ? { items: new Uint8Array([1, 2, 3]) } : { big: 10n };
    run.finish({ ok: true, value: value as unknown as JsonValue });
  },
  // The boundary's table is the run controller's (checkJsonValue) for what crosses to the host: the
  // stub hands it the values a substrate's encoder would have converted already.
  boundaryValues: async (run) => {
    const echoed = await callValue(run, 'tools', 'echo', boundaryValuesBuilt);
    run.finish({ ok: true, value: { returned: boundaryValuesBuilt, echoed } });
  },
  returnHostValue: async (run) => run.finish({ ok: true, value: await callValue(run, 'tools', 'give') }),
  returnEndless: async (run) => {
    function* endless() {
      for (let n = 0; ; n += 1) yield { n, text: 'abcdefghij' };
    }
    run.finish({ ok: true, value: { items: endless() } as unknown as JsonValue });
  },
  returnBudgetGenerator: async (run) => {
    const extra = (await callValue(run, 'tools', 'extra')) as number;
    function* strings() {
      for (let i = 0; i < 255; i += 1) yield 'x'.repeat(i === 254 ? 254 + extra : 254);
    }
    run.finish({ ok: true, value: strings() as unknown as JsonValue });
  },
  catchHostValue: async (run) => {
    const reply = await call(run, 'tools', 'give');
    run.finish({ ok: true, value: reply.ok ? reply.value : { error: reply.error } });
  },
  returnFunction: async (run) => {
    run.log('log', 'formatting');
    run.finish({ ok: true, value: { items: [1], format: (n: number) => n * 2 } as unknown as JsonValue });
  },
  memoryBomb: async (run, { memoryBytes }) => {
    run.log('log', 'allocating');
    const message = `The program ran out of its ${memoryBytes}-byte memory budget and was stopped.`;
    run.finish({ ok: false, failure: { kind: 'memory', limitBytes: memoryBytes, message } });
  },
  pollute: async (run, { globals }) => {
    for (const name of ['leaked', 'polluted', 'includes', 'parse', 'shared_state', 'pi', 'abs', 'tools.echo']) {
      globals.set(name, 'from the previous run');
    }
    run.finish({ ok: true, value: 'polluted' });
  },
  probe: async (run, { globals, language }) => {
    const echoed = globals.has('tools.echo') ? 'forged' : await callValue(run, 'tools', 'echo', 'probe');
    const value: JsonValue =
      language === 'python'
        ? {
            leaked: globals.has('leaked'),
            pi: !globals.has('pi'),
            abs: globals.has('abs') ? -1 : 2,
            shared: globals.has('shared_state'),
            echoed,
          }
        : {
            leaked: globals.has('leaked') ? 'string' : 'undefined',
            polluted: globals.has('polluted') ? 'string' : 'undefined',
            includes: globals.has('includes'),
            parsed: globals.has('parse') ? 'hijacked' : { a: 1 },
            echoed,
          };
    run.finish({ ok: true, value });
  },
  callFault: async (run) => {
    const reply = await call(run, 'tools', 'fault');
    run.finish({
      ok: true,
      value: reply.ok
        ? { ok: true, value: reply.value }
        : { ok: false, bytes: utf8ByteLength(reply.error), head: reply.error.slice(0, 100) },
    });
  },
  fireFault: async (run) => {
    run.call('tools', 'fault', null).catch(() => {});
    await callValue(run, 'tools', 'echo', 'after');
    run.finish({ ok: true, value: 'done' });
  },
  deepArgument: async (run) => {
    const reply = await call(run, 'tools', 'echo', nestedArrays(100_000) as JsonValue);
    run.finish({ ok: true, value: reply.ok ? 'sent' : 'refused' });
  },
  deepValue: async (run) => run.finish({ ok: true, value: nestedArrays(100_000) }),
  deterministicRun: async (run, { language, clock, random }) => {
    const started = clock.now();
    const digits = (count: number) =>
      Array.from({ length: count }, () => Math.floor(random() * 16).toString(16)).join('');
    const drawn: JsonValue =
      language === 'python'
        ? [random(), Math.floor(random() * 2 ** 32), digits(8)]
        : [random(), digits(32), [1, 2, 3, 4].map(() => Math.floor(random() * 256))];
    run.log('log', `start ${started}`);
    const keys = ['a', 'b', 'c'];
    const pending = keys.map((key) => callValue(run, 'tools', 'echo', { key }));
    const replies: JsonValue[] = [];
    // Answers in call order, each chain running on before the next answer, the clock 1 ms per answer.
    for (const [index, key] of keys.entries()) {
      replies.push(await (pending[index] as Promise<JsonValue>));
      clock.advance(1);
      run.log('log', `reply ${key} ${clock.now() - started}`);
      run.log('log', `then ${key} ${clock.now() - started}`);
    }
    // Then the timers, due at 0, 10 and 30 ms after they were set, and the 100 ms wait.
    run.log('log', `zero timer ${clock.now() - started}`);
    clock.advance(10);
    run.log('log', `timer 10 ${clock.now() - started}`);
    clock.advance(20);
    run.log('log', `timer 30 ${clock.now() - started}`);
    clock.advance(70);
    const late = await callValue(run, 'tools', 'echo', { key: 'late', at: clock.now() - started });
    clock.advance(1);
    const end = clock.now() - started;
    run.finish({ ok: true, value: { started, drawn, order: keys, replies, late, end, again: random() } });
  },
  clockAndRandom: async (run, { clock, random }) =>
    run.finish({ ok: true, value: { now: clock.now(), random: random() } }),
  callThenReturn: async (run) => {
    run.log('log', 'started');
    run.finish({ ok: true, value: await callValue(run, 'tools', 'echo', 'queued') });
  },
  concurrentIdentity: async (run, { globals, namespaces }) => {
    const mine = namespaces.includes('alpha') ? 'alpha' : 'beta';
    globals.set('mark', mine);
    await callValue(run, mine, 'barrier');
    const who = await callValue(run, mine, 'whoami');
    const value = {
      seesAlpha: namespaces.includes('alpha'),
      seesBeta: namespaces.includes('beta'),
      who,
      mark: globals.get('mark') ?? null,
    };
    run.finish({ ok: true, value });
  },
};

/**
 * A code runtime for testing the suite itself: it knows only the conformance programs and acts
 * each one out against the kit's run controller, in the host process. It lives in this test file so
 * the build never ships it.
 */
class StubCodeRuntime extends CodeRuntimeBase {
  readonly id = 'stub';
  readonly isolation = 'None: a test stub that acts out known programs in the host process.';
  readonly #behaviours = new Map<string, Behaviour>();
  readonly #memoryBytes: number;
  /** `poolSize` programs at once, as a pooled provider would. */
  readonly #gate: RunGate;
  readonly determinism: CodeRuntimeDeterminism | undefined;

  constructor(
    readonly language: CodeRuntimeLanguage,
    budgets: ConformanceBudgets,
    deterministic = true,
  ) {
    super({
      ...defaultRunLimits,
      wallTimeMs: budgets.wallTimeMs,
      logBytes: budgets.logBytes,
      valueBytes: budgets.valueBytes,
      acquireTimeoutMs: budgets.acquireTimeoutMs,
    });
    this.#gate = new RunGate(budgets.poolSize);
    this.#memoryBytes = budgets.memoryBytes;
    this.determinism = deterministic ? { fingerprint: 'stub-1' } : undefined;
    const programs = conformancePrograms[language];
    for (const name of Object.keys(behaviours) as ConformanceProgramName[]) {
      this.#behaviours.set(programs[name], behaviours[name]);
    }
  }

  protected launch(run: RunController, program: string, options: LaunchOptions): void {
    const behaviour = this.#behaviours.get(program);
    if (behaviour === undefined) {
      run.finish({
        ok: false,
        failure: { kind: 'exception', message: 'The stub runtime runs only the conformance programs.' },
      });
      return;
    }
    const scope: StubScope = {
      language: this.language,
      program,
      namespaces: [...new Set([...run.bindings.values()].map((entry) => entry.namespace))],
      globals: new Map(),
      memoryBytes: this.#memoryBytes,
      ...clockAndRandom(options.deterministic),
    };
    const act = async () => {
      if (!(await this.#gate.enter(run))) return;
      run.begin();
      await behaviour(run, scope);
    };
    act().catch((error: unknown) => {
      if (error === killed) return;
      if (error instanceof ProgramError) {
        run.finish({ ok: false, failure: { kind: 'exception', name: 'Error', message: error.message } });
      } else {
        run.finish({ ok: false, failure: { kind: 'substrate-exit', message: `The stub failed: ${String(error)}` } });
      }
    });
  }

  protected async shutdown(): Promise<void> {}
}

for (const language of ['typescript', 'python'] as const) {
  describeCodeRuntimeConformance({
    name: 'stub',
    language,
    create: (budgets) => new StubCodeRuntime(language, budgets),
  });
}

// A runtime without determinism: the determinism cases expect it to refuse `request.deterministic`.
describe('stub without determinism', () => {
  describeDeterminismCases({
    language: 'typescript',
    programs: conformancePrograms.typescript,
    create: (budgets) => new StubCodeRuntime('typescript', budgets, false),
  });
});
