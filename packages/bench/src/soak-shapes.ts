import type { HostFunction } from '@sluice/code-runtime';
import { benchProgram, echoBindings } from './bench-harness.js';
import { pythonBenchProgram } from './python-zygote.js';

/**
 * Which shapes a soak runs. `safe`: what today's providers survive. `memory`: heap exhaustion by
 * one large allocation or by growth. `deep`: values nested a million levels. `tool-error`: host
 * functions that throw values nothing may read carelessly.
 */
export type SoakGroup = 'safe' | 'memory' | 'deep' | 'tool-error';

/** One hostile (or plain) program, the provider it runs on, and how often it is picked. */
export interface SoakShape {
  readonly name: string;
  readonly provider: 'worker-thread' | 'quickjs' | 'python';
  readonly group: SoakGroup;
  readonly program: string;
  readonly bindings?: Record<string, Record<string, HostFunction>>;
  /** Relative frequency in the mix. */
  readonly weight: number;
  /**
   * `long`: the providers' default 10 s CPU budget and twice the wall clock, so that growth reaches
   * the memory budget before the CPU budget; otherwise 1 s of CPU, so loops end quickly.
   */
  readonly budget?: 'long';
  /** A plain run: it must succeed with this value, or the soak fails. */
  readonly mustReturn?: unknown;
}

const failing = (label: string) => () => {
  throw new Error(`${label} (thrown while the host read the error)`);
};

/** Host functions that throw values that are hard to read. */
export const oddErrorTools: Record<string, HostFunction> = {
  plainError: () => {
    throw new Error('the tool failed');
  },
  throwsString: () => {
    throw 'a bare string';
  },
  messageGetter: () => {
    const error = new TypeError('hidden');
    Object.defineProperty(error, 'message', { get: failing('message getter') });
    throw error;
  },
  nullPrototype: () => {
    throw Object.create(null, { message: { get: failing('null-prototype getter') }, name: { value: 'Odd' } });
  },
  proxy: () => {
    const trap = failing('proxy trap');
    throw new Proxy(new Error('proxied'), {
      get: trap,
      has: trap,
      getPrototypeOf: trap,
      ownKeys: trap,
      getOwnPropertyDescriptor: trap,
    });
  },
  throwingToString: () => {
    throw { toString: failing('toString'), valueOf: failing('valueOf') };
  },
  rejectsSymbol: () => Promise.reject(Symbol('odd')),
};

const typescriptCatching = (tool: string) =>
  `try {\n  await tools.${tool}(1);\n  return 'no throw';\n} catch (error) {\n  return 'caught';\n}`;
const pythonCatching = (tool: string) =>
  `try:\n    await tools.${tool}(1)\nexcept Exception:\n    return "caught"\nreturn "no throw"`;

/** A shape on `provider`, with `echoBindings` unless `extra` says otherwise; Python names are prefixed `py`. */
const shapeOn =
  (provider: SoakShape['provider']) =>
  (name: string, group: SoakGroup, weight: number, program: string, extra: Partial<SoakShape> = {}): SoakShape => ({
    name: provider === 'python' ? `py ${name}` : name,
    provider,
    group,
    weight,
    program,
    bindings: echoBindings,
    ...extra,
  });
const worker = shapeOn('worker-thread');
const python = shapeOn('python');

const long = { budget: 'long' } as const;

const deepValue = 'let value: unknown = 0;\nfor (let index = 0; index < 1_000_000; index += 1) value = [value];';
const pythonDeepValue = 'value = 0\nfor index in range(1000000):\n    value = [value]';

/** The TypeScript shapes, run on both TypeScript providers. */
const typescriptShapes: readonly SoakShape[] = [
  worker('good', 'safe', 8, benchProgram, { mustReturn: 2 }),
  worker('loop', 'safe', 1, 'while (true) {}'),
  worker('loop after await', 'safe', 1, 'await tools.echo(1);\nwhile (true) {}'),
  worker('microtask loop', 'safe', 1, 'while (true) await null;'),
  worker(
    'log flood',
    'safe',
    2,
    "for (let index = 0; index < 200_000; index += 1) console.log('flood line', index);\nreturn 'flooded';",
  ),
  worker('throw', 'safe', 1, "throw new TypeError('boom');"),
  worker('throw non-error', 'safe', 1, 'throw { odd: true };'),
  worker('tool plain error', 'safe', 1, typescriptCatching('plainError'), { bindings: { tools: oddErrorTools } }),
  worker('tool throws string', 'safe', 1, typescriptCatching('throwsString'), { bindings: { tools: oddErrorTools } }),
  worker('growing array', 'memory', 1, 'const rows: number[] = [];\nwhile (true) rows.push(Math.random());', long),
  worker('new Array(5e7)', 'memory', 1, 'return new Array(5e7).fill(0).length;', long),
  worker(
    'object keys',
    'memory',
    1,
    "const bag: Record<string, number> = {};\nfor (let index = 0; ; index += 1) bag['key' + index] = index;",
    long,
  ),
  worker(
    'Map growth',
    'memory',
    1,
    "const map = new Map<number, string>();\nfor (let index = 0; ; index += 1) map.set(index, 'value ' + index);",
    long,
  ),
  worker('256 MiB string', 'memory', 1, "return 'x'.repeat(256 * 1024 * 1024);", long),
  worker('deep argument', 'deep', 1, `${deepValue}\nreturn await tools.echo(value);`),
  worker('deep return', 'deep', 1, `${deepValue}\nreturn value;`),
  ...['messageGetter', 'nullPrototype', 'proxy', 'throwingToString', 'rejectsSymbol'].map((tool) =>
    worker(`tool ${tool}`, 'tool-error', 1, typescriptCatching(tool), { bindings: { tools: oddErrorTools } }),
  ),
];

/**
 * The mix: each TypeScript shape on the worker-thread and the QuickJS provider alike, and the Python
 * shapes: about 43 % of runs on each TypeScript provider, the rest on Python.
 */
export const soakShapes: readonly SoakShape[] = [
  ...typescriptShapes,
  ...typescriptShapes.map((shape) => ({ ...shape, provider: 'quickjs' as const, name: `qjs ${shape.name}` })),
  python('good', 'safe', 3, pythonBenchProgram, { mustReturn: 2 }),
  python('loop', 'safe', 1, 'while True:\n    pass'),
  python('throw', 'safe', 1, 'raise ValueError("boom")'),
  python('log flood', 'safe', 1, 'for index in range(200000):\n    print("flood line", index)\nreturn "flooded"'),
  python('growing list', 'memory', 1, 'rows = []\nwhile True:\n    rows.append(len(rows) * 1.5)', long),
  python('deep argument', 'deep', 1, `${pythonDeepValue}\nreturn await tools.echo(value)`),
  ...['messageGetter', 'proxy'].map((tool) =>
    python(`tool ${tool}`, 'tool-error', 1, pythonCatching(tool), { bindings: { tools: oddErrorTools } }),
  ),
];

/**
 * The shapes `selector` names: `all`, or a comma-separated list of groups and shape names
 * (`safe`, `safe,memory`, `safe,py growing list`).
 */
export function selectShapes(selector: string): SoakShape[] {
  if (selector === 'all') return [...soakShapes];
  const wanted = selector.split(',').map((part) => part.trim());
  const chosen = soakShapes.filter((shape) => wanted.includes(shape.group) || wanted.includes(shape.name));
  if (chosen.length === 0) throw new Error(`soak: --shapes=${selector} names no shape or group`);
  return chosen;
}
