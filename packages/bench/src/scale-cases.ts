import type { HostFunction } from '@sluice/code-runtime';

/** One thing a run can grow in, with the program that makes it grow, for each provider. */
export interface ScaleDimension {
  readonly name: string;
  /** What one step of `sizes` counts: calls or bytes. */
  readonly unit: 'call' | 'byte';
  readonly sizes: readonly number[];
  /** The program of that size, in TypeScript and in Python. */
  readonly program: Record<ScaleProvider, (size: number) => string>;
  /** The value a correct run returns. */
  readonly expect: (size: number) => (value: unknown) => boolean;
}

export type ScaleProvider = 'worker-thread' | 'python';

const callSizes = [1, 10, 100, 1_000, 10_000, 100_000] as const;
const byteSizes = [1_000, 10_000, 100_000, 1_000_000, 10_000_000] as const;

/** Bytes of one log line (with its newline) and of one row's JSON, so a size in bytes is a count of them. */
export const lineBytes = 1_000;
export const rowBytes = 100;

/** `{"id":N,"text":"x…"}` padded so that the row with the largest id of a 10 MB value is about 100 bytes. */
const rowText = 80;
const lines = (size: number) => Math.max(1, Math.round(size / lineBytes));
const rows = (size: number) => Math.max(1, Math.round(size / rowBytes));

const returns = (expected: unknown) => () => (value: unknown) => value === expected;

/** Host calls, logs, returned values and arguments, 1 to 100 000 calls and 1 KB to 10 MB. */
export const scaleDimensions: readonly ScaleDimension[] = [
  {
    name: 'host calls, Promise.all fan-out',
    unit: 'call',
    sizes: callSizes,
    program: {
      'worker-thread': (size) =>
        `const calls = [];\nfor (let index = 0; index < ${size}; index += 1) calls.push(tools.echo(index));\nconst out = await Promise.all(calls);\nreturn out.length;`,
      python: (size) => `out = await asyncio.gather(*(tools.echo(index) for index in range(${size})))\nreturn len(out)`,
    },
    expect: (size) => (value) => value === size,
  },
  {
    name: 'host calls, sequential loop',
    unit: 'call',
    sizes: callSizes,
    program: {
      'worker-thread': (size) =>
        `let sum = 0;\nfor (let index = 0; index < ${size}; index += 1) sum += await tools.echo(1);\nreturn sum;`,
      python: (size) => `total = 0\nfor index in range(${size}):\n    total += await tools.echo(1)\nreturn total`,
    },
    expect: (size) => (value) => value === size,
  },
  {
    name: 'logs (1 000-byte lines)',
    unit: 'byte',
    sizes: byteSizes,
    program: {
      'worker-thread': (size) =>
        `const line = 'x'.repeat(${lineBytes - 1});\nfor (let index = 0; index < ${lines(size)}; index += 1) console.log(line);\nreturn 1;`,
      python: (size) => `line = "x" * ${lineBytes - 1}\nfor index in range(${lines(size)}):\n    print(line)\nreturn 1`,
    },
    expect: returns(1),
  },
  {
    name: 'returned value (array of ~100-byte objects)',
    unit: 'byte',
    sizes: byteSizes,
    program: {
      'worker-thread': (size) =>
        `const rows = [];\nfor (let index = 0; index < ${rows(size)}; index += 1) rows.push({ id: index, text: 'x'.repeat(${rowText}) });\nreturn rows;`,
      python: (size) => `return [{"id": index, "text": "x" * ${rowText}} for index in range(${rows(size)})]`,
    },
    expect: (size) => (value) => Array.isArray(value) && value.length === rows(size),
  },
  {
    name: 'host-call argument (array of ~100-byte objects)',
    unit: 'byte',
    sizes: byteSizes,
    program: {
      'worker-thread': (size) =>
        `const rows = [];\nfor (let index = 0; index < ${rows(size)}; index += 1) rows.push({ id: index, text: 'x'.repeat(${rowText}) });\nreturn await tools.sink(rows);`,
      python: (size) =>
        `return await tools.sink([{"id": index, "text": "x" * ${rowText}} for index in range(${rows(size)})])`,
    },
    expect: (size) => (value) => value === rows(size),
  },
];

/** `tools.echo` answers with its input; `tools.sink` takes an array and answers with its length only. */
export const scaleBindings = {
  tools: {
    echo: (async (input) => input) satisfies HostFunction,
    sink: (async (input) => (Array.isArray(input) ? input.length : -1)) satisfies HostFunction,
  },
};

const mebibyte = 1024 * 1024;

/**
 * Budgets raised so that the largest size of every dimension fits; `concurrentHostCalls` stays at
 * its default (16), so a fan-out queues its calls in the run controller.
 */
export function scaleSettings(budgetMs: number) {
  const shared = {
    wallTimeMs: budgetMs,
    cpuTimeMs: budgetMs,
    hostCalls: 1_000_000,
    logBytes: 16 * mebibyte,
    valueBytes: 16 * mebibyte,
    hostCallBytes: 16 * mebibyte,
  };
  return {
    'worker-thread': { ...shared, memoryBytes: 1024 * mebibyte, poolSize: 1 },
    python: { ...shared, memoryBytes: 2048 * mebibyte },
  } as const;
}
