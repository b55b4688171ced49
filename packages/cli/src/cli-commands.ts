import { budgetFlags, typescriptRuntimes } from './cli-budgets.js';

/** One option of a command, as `parseArgs` reads it and `--help` prints it. */
export interface OptionSpec {
  readonly name: string;
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** The value's placeholder in help, for string options. */
  readonly value?: string;
  readonly help: string;
}

/** One command: its synopsis, what it does, and its options. */
export interface CommandSpec {
  readonly name: 'run' | 'declarations' | 'demo' | 'mcp';
  readonly synopsis: string;
  /** One line for the overview. */
  readonly summary: string;
  /** A few lines for the command's own `--help`. */
  readonly description: string;
  readonly options: readonly OptionSpec[];
  /** How many file arguments it takes. */
  readonly positionals: 0 | 1;
}

const help: OptionSpec = { name: 'help', type: 'boolean', short: 'h', help: 'Print this help.' };
const quiet: OptionSpec = {
  name: 'quiet',
  type: 'boolean',
  short: 'q',
  help: "Print only the program's output and errors: no usage line, no progress line.",
};
const runtime: OptionSpec = {
  name: 'runtime',
  type: 'string',
  value: typescriptRuntimes.join('|'),
  help: 'The provider for a TypeScript/JavaScript program: V8 in worker threads, or QuickJS in WebAssembly (worker-thread).',
};
const budgets: OptionSpec[] = budgetFlags.map(({ flag, help }) => ({
  name: flag,
  type: 'string',
  value: flag.endsWith('-ms') ? 'ms' : flag.endsWith('-bytes') ? 'bytes' : 'n',
  help,
}));

/** Every command of `sluice`, in the order the overview lists them. */
export const commandSpecs: readonly CommandSpec[] = [
  {
    name: 'run',
    synopsis:
      'sluice run <program.ts|.js|.py|-> [--tools <module>] [--policy <file.json>] [--runtime quickjs] [options]',
    summary: 'Runs a program against the tools a JS/TS module exports.',
    description: `Runs a program the way a model's run_code call does. "-" reads the program from stdin.
Logs stream as they come (log/info/debug to stdout, warn/error to stderr); then the value
(stdout) or the failure (stderr), and a usage line (stderr).
Exit 0 ok, 1 the program failed, 2 bad input, 130 interrupted (Ctrl-C).`,
    options: [
      { name: 'tools', type: 'string', value: 'module', help: 'A .ts/.js module exporting the tools (none).' },
      {
        name: 'policy',
        type: 'string',
        value: 'file.json',
        help: 'A @sluice/permissions policy file (allow every tool).',
      },
      {
        name: 'language',
        type: 'string',
        value: 'typescript|python',
        help: 'The program\'s language (from its extension; "typescript" for "-").',
      },
      runtime,
      { name: 'json', type: 'boolean', help: 'Print the whole result as JSON on stdout, and nothing else there.' },
      quiet,
      {
        name: 'verbose',
        type: 'boolean',
        help: "Also print the runtime's budgets and isolation before the run, and each host call after it.",
      },
      ...budgets,
      help,
    ],
    positionals: 1,
  },
  {
    name: 'declarations',
    synopsis: 'sluice declarations --tools <module> [--language typescript|python] [--policy <file.json>] [options]',
    summary: 'Prints the run_code description the model would read for those tools.',
    description: `Prints what the model reads: how to write a program, the runtime's limits (the budget
flags change them) and the declarations of the tools the policy may allow. Nothing runs.`,
    options: [
      { name: 'tools', type: 'string', value: 'module', help: 'A .ts/.js module exporting the tools (required).' },
      {
        name: 'policy',
        type: 'string',
        value: 'file.json',
        help: 'A @sluice/permissions policy file (allow every tool).',
      },
      { name: 'language', type: 'string', value: 'typescript|python', help: 'Which declarations (typescript).' },
      runtime,
      { ...quiet, help: 'Leave out the size note on stderr.' },
      ...budgets,
      help,
    ],
    positionals: 0,
  },
  {
    name: 'demo',
    synopsis: 'sluice demo',
    summary: 'Runs the bundled demo, printed as the model sees it.',
    description: `Runs four programs against sample tools: a TypeScript and a Python program that fan out,
filter and aggregate, a call the policy denies (on the QuickJS runtime), and a run that hits
its wall clock.`,
    options: [help],
    positionals: 0,
  },
  {
    name: 'mcp',
    synopsis: 'sluice mcp --config <file.json>',
    summary: 'Serves MCP over stdio: run_code over the upstream MCP servers in the file.',
    description: '',
    options: [],
    positionals: 0,
  },
];

/** The overview `sluice --help` prints, listing every command. */
export function overviewText(): string {
  const width = Math.max(...commandSpecs.map((spec) => spec.name.length)) + 2;
  return `Usage:
${commandSpecs.map((spec) => `  ${spec.synopsis}`).join('\n')}

Commands:
${commandSpecs.map((spec) => `  ${spec.name.padEnd(width)}${spec.summary}`).join('\n')}

Run "sluice <command> --help" for a command's options. "sluice --version" prints the version.
`;
}

/** The help of one command (not `mcp`, which prints its own). */
export function commandHelpText(spec: CommandSpec): string {
  const labels = spec.options.map(
    (option) =>
      `${option.short === undefined ? '    ' : `-${option.short}, `}--${option.name}${option.value === undefined ? '' : ` <${option.value}>`}`,
  );
  const width = Math.max(...labels.map((label) => label.length)) + 2;
  const lines = spec.options.map((option, index) => `  ${labels[index]!.padEnd(width)}${option.help}`);
  return `Usage: ${spec.synopsis}

${spec.description}

Options:
${lines.join('\n')}
`;
}
