// Programs for `pnpm --filter @sluice/bench strip`: model-sized TypeScript (erasable syntax only, so
// every stripper can take it) and one small program per syntax feature, with the value it returns.

/** One block of what a model writes: an interface, typed calls, a generic arrow, `as const`, `satisfies`. */
function block(index: number): string {
  return `interface Row${index} { id: string; score: number; tags: readonly string[] }
const pick${index} = <T extends { score: number }>(items: T[], min: number): T[] => items.filter((item) => item.score >= min);
const rows${index}: Row${index}[] = [{ id: 'a${index}', score: ${index % 7}, tags: ['x'] as const }, { id: 'b${index}', score: 3, tags: [] }];
const config${index} = { limit: ${index + 1}, mode: 'fast' } as const satisfies { limit: number; mode: string };
const kept${index} = pick${index}<Row${index}>(rows${index}, 2).map((row): string => \`\${row.id}:\${config${index}.mode}\`);
total += kept${index}.length as number;
`;
}

/** A program of about `lines` lines or `bytes` bytes, ending in `return total;`. */
function programOf(limit: { lines?: number; bytes?: number }): string {
  let text = 'let total: number = 0;\n';
  for (let index = 0; ; index += 1) {
    const next = text + block(index);
    const lines = next.split('\n').length;
    if (
      (limit.lines !== undefined && lines > limit.lines) ||
      (limit.bytes !== undefined && next.length > limit.bytes)
    ) {
      break;
    }
    text = next;
  }
  return `${text}return total;`;
}

/** The sizes measured: what a model sends in one `run_code` call, small to large. */
export const stripPrograms: readonly { readonly label: string; readonly source: string }[] = [
  { label: '10 lines', source: programOf({ lines: 10 }) },
  { label: '100 lines', source: programOf({ lines: 100 }) },
  { label: '10 KB', source: programOf({ bytes: 10_000 }) },
];

/** One syntax feature: a program using it, and the value it must return once stripped and run. */
export interface SyntaxCase {
  readonly name: string;
  readonly source: string;
  readonly expected: unknown;
}

export const syntaxCases: readonly SyntaxCase[] = [
  {
    name: 'enum',
    source: "enum Level { Low = 1, High = 3 }\nconst named: string = Level[3] ?? 'none';\nreturn [Level.Low, named];",
    expected: [1, 'High'],
  },
  {
    name: 'namespace',
    source: 'namespace Units {\n  export const metre = 100;\n}\nreturn Units.metre * 2;',
    expected: 200,
  },
  {
    name: 'decorator',
    source:
      'function tag(value: unknown, context: { kind: string }) { return value; }\nclass Box {\n  @tag\n  size(): number { return 4; }\n}\nreturn new Box().size();',
    expected: 4,
  },
  {
    name: 'satisfies',
    source:
      "const limits = { calls: 5, mode: 'strict' } satisfies Record<string, number | string>;\nreturn limits.calls;",
    expected: 5,
  },
  {
    name: 'generic arrow',
    source:
      "const first = <T,>(items: T[]): T | undefined => items[0];\nconst pairs = <K extends string, V>(key: K, value: V): [K, V] => [key, value];\nreturn [first<number>([7, 8]), pairs('a', 1)];",
    expected: [7, ['a', 1]],
  },
  {
    name: 'as const',
    source: "const modes = ['fast', 'slow'] as const;\nconst picked = modes[1] as string;\nreturn picked;",
    expected: 'slow',
  },
  {
    name: 'parameter property',
    source:
      'class Point {\n  constructor(public x: number, private y: number) {}\n  sum(): number { return this.x + this.y; }\n}\nreturn new Point(2, 3).sum();',
    expected: 5,
  },
];

/** A program whose line 4 throws, after types that shift columns when erased: where does the error say it is? */
export const positionProgram =
  "interface Input { city: string }\nconst cities: Array<Input> = [{ city: 'Oslo' }];\nconst count = (cities as Input[]).length;\nconst failing: number = ((): number => { throw new Error('here'); })();\nreturn count + failing;";
