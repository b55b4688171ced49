// Programs of a given size for `program-size`: what a model writes when it writes a lot — many
// top-level names, helper functions with comprehensions and lambdas inside (nested scopes), a class
// now and then, one host call at the end and its answer as the value. Python and TypeScript alike.

export type ProgramLanguage = 'python' | 'typescript';

/** The default `sourceBytes` limit of both providers (256 KiB). */
export const defaultSourceLimit = 256 * 1024;

/** Bytes a program is generated short of its size, kept for the comment line that makes each run's source unique. */
export const tagReserve = 64;

export interface ProgramSize {
  readonly label: string;
  /** The size the program stays at or under, the run's comment line included. */
  readonly bytes: number;
}

/** 10 KB, 100 KB and just under the default source limit. */
export const programSizes: readonly ProgramSize[] = [
  { label: '10 KB', bytes: 10_000 },
  { label: '100 KB', bytes: 100_000 },
  { label: '256 KiB', bytes: defaultSourceLimit },
];

/** A generated program and what it is made of. */
export interface GeneratedProgram {
  readonly language: ProgramLanguage;
  readonly source: string;
  /** UTF-8 bytes (the text is ASCII). */
  readonly bytes: number;
  readonly lines: number;
  /** Scoring blocks: three constants, one helper function, one call. */
  readonly helpers: number;
  readonly classes: number;
  /** Names bound at the top level (values only; TypeScript interfaces are not counted). */
  readonly topLevelNames: number;
  /**
   * Scopes nested in the program: for Python, functions, methods, lambdas, comprehensions, classes;
   * for TypeScript, functions, arrows, methods, constructors, classes.
   */
  readonly nestedScopes: number;
  /** The value a correct run returns. */
  readonly expected: number;
}

/** A class block after the sixth helper block, and every this many helper blocks from there. */
const classEvery = 20;

/** What helper `index` adds to the total: mirrors `f_<index>(index % 13)` in both languages. */
function helperValue(index: number): number {
  const limit = (index % 11) + 4;
  const squares = ((limit - 1) * limit * (2 * limit - 1)) / 6;
  const x = index % 13;
  const scaled = x * (1 + 2 + 3 + (index % 5));
  const labels = 3;
  return (squares % 97) + (scaled % 89) + (labels + limit);
}

interface Shape {
  readonly header: string;
  readonly helper: (index: number) => string;
  readonly ledger: (group: number) => string;
  readonly footer: string;
  /** Top-level names and nested scopes of one helper block and of one class block. */
  readonly helperCounts: { readonly names: number; readonly scopes: number };
  readonly ledgerCounts: { readonly names: number; readonly scopes: number };
}

const python: Shape = {
  header:
    '"""Report builder: scores every region, keeps a ledger per group, and returns the checked total."""\n\ntotal = 0\n',
  helper: (index) => `
# Block ${index}: thresholds and scoring for region ${index}.
limit_${index} = ${index} % 11 + 4
weights_${index} = [1, 2, 3, ${index} % 5]
labels_${index} = {"name": "region_${index}", "kind": "k${index % 7}", "active": True}


def f_${index}(x: int) -> int:
    """Weighted score of x for region ${index}."""
    squares = [value * value for value in range(limit_${index})]
    scaled = {position: weight * x for position, weight in enumerate(weights_${index})}
    bump = lambda y: y + limit_${index}
    return sum(squares) % 97 + sum(scaled.values()) % 89 + bump(len(labels_${index}))


total += f_${index}(${index} % 13)
`,
  ledger: (group) => `

class Ledger_${group}:
    """Running balance for group ${group}."""

    def __init__(self, start: int) -> None:
        self.entries = [start]

    def add(self, amount: int) -> int:
        self.entries.append(amount)
        return sum(entry for entry in self.entries)


ledger_${group} = Ledger_${group}(${group})
total += ledger_${group}.add(1) - ${group}
`,
  footer: '\nchecked = await tools.echo(total)\nchecked\n',
  // limit, weights, labels, f; f, list comprehension, dict comprehension, lambda.
  helperCounts: { names: 4, scopes: 4 },
  // Ledger, ledger; class, __init__, add, generator expression.
  ledgerCounts: { names: 2, scopes: 4 },
};

const typescript: Shape = {
  header:
    '/** Report builder: scores every region, keeps a ledger per group, and returns the checked total. */\n\nlet total = 0;\n',
  helper: (index) => `
// Block ${index}: thresholds and scoring for region ${index}.
const limit_${index}: number = (${index} % 11) + 4;
const weights_${index}: number[] = [1, 2, 3, ${index} % 5];
const labels_${index}: Record<string, string | boolean> = { name: 'region_${index}', kind: 'k${index % 7}', active: true };

/** Weighted score of x for region ${index}. */
function f_${index}(x: number): number {
  const squares = Array.from({ length: limit_${index} }, (_, value: number) => value * value);
  const scaled = weights_${index}.map((weight: number) => weight * x);
  const bump = (y: number): number => y + limit_${index};
  return (
    (squares.reduce((sum, value) => sum + value, 0) % 97) +
    (scaled.reduce((sum, value) => sum + value, 0) % 89) +
    bump(Object.keys(labels_${index}).length)
  );
}

total += f_${index}(${index} % 13);
`,
  ledger: (group) => `
interface Entry_${group} {
  readonly amount: number;
  readonly note?: string;
}

/** Running balance for group ${group}. */
class Ledger_${group} {
  private readonly entries: Entry_${group}[];

  constructor(start: number) {
    this.entries = [{ amount: start }];
  }

  add(amount: number): number {
    this.entries.push({ amount });
    return this.entries.reduce((sum, entry) => sum + entry.amount, 0);
  }
}

const ledger_${group} = new Ledger_${group}(${group});
total += ledger_${group}.add(1) - ${group};
`,
  footer: '\nconst checked = await tools.echo(total);\nreturn checked;\n',
  // limit, weights, labels, f; f, the Array.from arrow, the map arrow, bump, two reduce arrows.
  helperCounts: { names: 4, scopes: 6 },
  // Ledger, ledger; class, constructor, add, the reduce arrow.
  ledgerCounts: { names: 2, scopes: 4 },
};

const shapes: Record<ProgramLanguage, Shape> = { python, typescript };

/**
 * A program of `bytes` or a little less (less {@link tagReserve}): helper blocks, with a class block
 * every {@link classEvery} from the sixth, as many as fit. Deterministic: the same size gives the same text.
 */
export function generateProgram(language: ProgramLanguage, bytes: number): GeneratedProgram {
  const shape = shapes[language];
  const budget = bytes - tagReserve;
  const parts = [shape.header];
  let size = shape.header.length + shape.footer.length;
  let helpers = 0;
  let classes = 0;
  let expected = 0;
  for (;;) {
    const addsLedger = helpers % classEvery === 5;
    const block = shape.helper(helpers) + (addsLedger ? shape.ledger(classes) : '');
    if (size + block.length > budget) break;
    parts.push(block);
    size += block.length;
    expected += helperValue(helpers) + (addsLedger ? 1 : 0);
    helpers += 1;
    if (addsLedger) classes += 1;
  }
  parts.push(shape.footer);
  const source = parts.join('');
  const sourceBytes = Buffer.byteLength(source, 'utf8');
  if (sourceBytes > budget) throw new Error(`program-size: generated ${sourceBytes} bytes for a budget of ${budget}`);
  return {
    language,
    source,
    bytes: sourceBytes,
    lines: source.split('\n').length - 1,
    helpers,
    classes,
    topLevelNames: 1 + 1 + helpers * shape.helperCounts.names + classes * shape.ledgerCounts.names,
    nestedScopes: helpers * shape.helperCounts.scopes + classes * shape.ledgerCounts.scopes,
    expected,
  };
}

/** `program` with a first comment line naming the run, so no run reuses another's compiled program. */
export function tagged(program: GeneratedProgram, tag: string): string {
  const line = `${program.language === 'python' ? '#' : '//'} program-size bench, ${tag}\n`;
  if (line.length > tagReserve) throw new Error(`program-size: the tag line "${line}" is longer than ${tagReserve}`);
  return line + program.source;
}
