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
  readonly name: 'run' | 'resume' | 'declarations' | 'demo' | 'mcp' | 'serve' | 'console';
  readonly synopsis: string;
  /** One line for the overview. */
  readonly summary: string;
  /** A few lines for the command's own `--help`. */
  readonly description: string;
  readonly options: readonly OptionSpec[];
  /** How many file arguments it takes. */
  readonly positionals: 0 | 1;
  /** What the argument is, in messages (`program file` when not said). */
  readonly positionalName?: string;
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
const tools: OptionSpec = {
  name: 'tools',
  type: 'string',
  value: 'module',
  help: 'A .ts/.js module exporting the tools (none).',
};
const policy: OptionSpec = {
  name: 'policy',
  type: 'string',
  value: 'file.json',
  help: 'A @sluice/permissions policy file (allow every tool).',
};
const json: OptionSpec = {
  name: 'json',
  type: 'boolean',
  help: 'Print the whole result as JSON on stdout, and nothing else there.',
};
const verbose: OptionSpec = {
  name: 'verbose',
  type: 'boolean',
  help: "Also print the runtime's budgets and isolation before the run, and each host call after it.",
};
const runStore: OptionSpec = {
  name: 'run-store',
  type: 'string',
  value: 'directory|postgres://…',
  help: 'Run durably: journal each tool call to this store (a directory for the embedded store, created if missing, or a PostgreSQL URL); a policy "ask" then pauses the run for sluice resume. TypeScript and JavaScript programs only.',
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
With --run-store the run is durable: a call the policy asks about pauses it, and the
token and the command that continues it are printed.
Exit 0 ok, 1 the program failed, 2 bad input, 3 paused for an approval, 130 interrupted (Ctrl-C).`,
    options: [
      tools,
      policy,
      {
        name: 'language',
        type: 'string',
        value: 'typescript|python',
        help: 'The program\'s language (from its extension; "typescript" for "-").',
      },
      runtime,
      json,
      quiet,
      verbose,
      runStore,
      {
        name: 'conversation',
        type: 'string',
        value: 'id',
        help: 'With --run-store: the conversation whose values sluice.load reads and, when the program succeeds, sluice.store writes.',
      },
      ...budgets,
      help,
    ],
    positionals: 1,
  },
  {
    name: 'resume',
    synopsis:
      'sluice resume <token> --allow|--deny [--reason <text>] --run-store <directory> [--tools <module>] [--policy <file.json>] [options]',
    summary: 'Continues a durable run: answers a paused call, or (--run <runId>) takes over after a crash.',
    description: `Answers the call a durable run paused on and continues the run from where it stopped:
its recorded calls are not made again. Give the tools, policy and budgets the run had.
"sluice resume --run <runId>" continues a run whose host stopped (a crash, a killed process).
Prints as sluice run does; the same token again prints the same outcome.
Exit 0 ok, 1 the program failed, 2 bad input (an unknown or expired token), 3 paused again.`,
    options: [
      { name: 'allow', type: 'boolean', help: 'Let the paused call run.' },
      { name: 'deny', type: 'boolean', help: 'Refuse it: the program gets an error from the call.' },
      { name: 'reason', type: 'string', value: 'text', help: 'With --deny: why, for the program to read.' },
      { name: 'run', type: 'string', value: 'runId', help: 'Continue this run instead of answering a token.' },
      { ...runStore, help: 'The store the run was given with sluice run --run-store (required).' },
      tools,
      policy,
      { ...runtime, help: 'The provider the run started on (quickjs).' },
      json,
      quiet,
      verbose,
      ...budgets,
      help,
    ],
    positionals: 1,
    positionalName: 'pause token',
  },
  {
    name: 'declarations',
    synopsis: 'sluice declarations --tools <module> [--language typescript|python] [--policy <file.json>] [options]',
    summary: 'Prints the run_code description the model would read for those tools.',
    description: `Prints what the model reads: how to write a program, the runtime's limits (the budget
flags change them) and the declarations of the tools the policy may allow. Nothing runs.`,
    options: [
      { ...tools, help: 'A .ts/.js module exporting the tools (required).' },
      policy,
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
  {
    name: 'serve',
    synopsis: 'sluice serve --config <file.json>',
    summary: 'Serves the same over Streamable HTTP to many clients, with authentication.',
    description: '',
    options: [],
    positionals: 0,
  },
  {
    name: 'console',
    synopsis: 'sluice console --run-store <directory|postgres URL> [--port <n>]',
    summary: 'Serves the operator console for a local run store: runs, their calls, and approvals.',
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

/** The help of one command (not `mcp`, `serve` or `console`, which print their own). */
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
