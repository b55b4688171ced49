import { parseArgs } from 'node:util';
import { type CodeRuntimeLanguage, foreignText } from '@sluice/code-runtime';
import { type BudgetSettings, readBudgetFlags, type TypeScriptRuntimeName, typescriptRuntimes } from './cli-budgets.js';
import { type CommandSpec, commandSpecs } from './cli-commands.js';
import { UsageError } from './cli-io.js';

/** How much `sluice` says about a run besides the program's own output. */
export type Verbosity = 'quiet' | 'normal' | 'verbose';

/** A parsed command line. */
export type CliCommand =
  | { readonly command: 'help'; readonly topic?: CommandSpec['name'] }
  | { readonly command: 'version' }
  | { readonly command: 'demo' }
  /** `sluice mcp`: its arguments are `@sluice/mcp`'s to read. */
  | { readonly command: 'mcp'; readonly argv: readonly string[] }
  | {
      readonly command: 'run';
      /** A path relative to the working directory, or `-` for stdin. */
      readonly program: string;
      readonly tools: string | undefined;
      readonly policy: string | undefined;
      /** Given with `--language`; otherwise the program's extension decides. */
      readonly language: CodeRuntimeLanguage | undefined;
      /** Given with `--runtime`: the provider of a TypeScript/JavaScript program (worker-thread otherwise). */
      readonly runtime: TypeScriptRuntimeName | undefined;
      readonly json: boolean;
      readonly verbosity: Verbosity;
      readonly budgets: BudgetSettings;
    }
  | {
      readonly command: 'declarations';
      readonly tools: string;
      readonly language: CodeRuntimeLanguage;
      readonly runtime: TypeScriptRuntimeName | undefined;
      readonly policy: string | undefined;
      readonly verbosity: Verbosity;
      readonly budgets: BudgetSettings;
    };

const commandList = 'run, declarations, demo and mcp';

/** Parses `argv` (without `node` and the script). Throws {@link UsageError} with one sentence for anything wrong. */
export function parseCommandLine(argv: readonly string[]): CliCommand {
  const [first, ...rest] = argv;
  if (first === undefined) throw usage(`Name a command: ${commandList.replace(' and ', ' or ')}.`);
  if (first === '--help' || first === '-h' || first === 'help') {
    if (rest.length === 0) return { command: 'help' };
    const topic = commandSpecs.find((spec) => spec.name === rest[0]);
    if (topic === undefined || rest.length > 1) {
      throw usage(`Unknown help topic ${JSON.stringify(rest.join(' '))}; the commands are ${commandList}.`);
    }
    return { command: 'help', topic: topic.name };
  }
  if (first === '--version' || first === '-v') return { command: 'version' };
  const spec = commandSpecs.find((candidate) => candidate.name === first);
  if (spec === undefined) {
    throw usage(`Unknown command ${JSON.stringify(first)}; the commands are ${commandList}.`);
  }
  if (spec.name === 'mcp') return { command: 'mcp', argv: rest };
  const parsed = parse(spec, rest);
  if (parsed === 'help') return { command: 'help', topic: spec.name };
  const { values, positionals } = parsed;
  const verbosity = readVerbosity(values);
  switch (spec.name) {
    case 'demo':
      return { command: 'demo' };
    case 'run': {
      const program = positionals[0];
      if (program === undefined) {
        throw usage('sluice run needs a program file, such as program.ts or program.py, or - for stdin.');
      }
      return {
        command: 'run',
        program,
        tools: values.tools as string | undefined,
        policy: values.policy as string | undefined,
        language: readLanguage(values.language),
        runtime: readRuntime(values.runtime),
        json: values.json === true,
        verbosity,
        budgets: readBudgetFlags(values),
      };
    }
    default: {
      const tools = values.tools as string | undefined;
      if (tools === undefined) throw usage('sluice declarations needs --tools <module>.');
      return {
        command: 'declarations',
        tools,
        language: readLanguage(values.language) ?? 'typescript',
        runtime: readRuntime(values.runtime),
        policy: values.policy as string | undefined,
        verbosity,
        budgets: readBudgetFlags(values),
      };
    }
  }
}

function usage(message: string): UsageError {
  return new UsageError(message, { commandLine: true });
}

function readLanguage(value: unknown): CodeRuntimeLanguage | undefined {
  if (value === undefined || value === 'typescript' || value === 'python') return value;
  throw usage(`--language must be typescript or python, got ${JSON.stringify(value)}.`);
}

function readRuntime(value: unknown): TypeScriptRuntimeName | undefined {
  if (value === undefined || typescriptRuntimes.includes(value as TypeScriptRuntimeName)) {
    return value as TypeScriptRuntimeName | undefined;
  }
  throw usage(`--runtime must be ${typescriptRuntimes.join(' or ')}, got ${JSON.stringify(value)}.`);
}

function readVerbosity(values: Readonly<Record<string, unknown>>): Verbosity {
  if (values.quiet === true && values.verbose === true) throw usage('Choose --quiet or --verbose, not both.');
  return values.quiet === true ? 'quiet' : values.verbose === true ? 'verbose' : 'normal';
}

type ParseArgsOptions = Record<string, { type: 'string' | 'boolean'; short?: string }>;

function parse(
  spec: CommandSpec,
  args: string[],
): 'help' | { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  const options: ParseArgsOptions = {};
  for (const option of spec.options) {
    options[option.name] =
      option.short === undefined ? { type: option.type } : { type: option.type, short: option.short };
  }
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    // A mistyped option next to --help still gets the help that was asked for.
    if (args.includes('--help') || args.includes('-h')) return 'help';
    throw usage(describeParseError(spec, error));
  }
  if (parsed.values.help === true) return 'help';
  const extra = parsed.positionals.slice(spec.positionals);
  if (extra.length > 0) {
    throw usage(
      `sluice ${spec.name} takes ${spec.positionals === 0 ? 'no file arguments' : 'one program file'}, but also got ${extra.map((value) => JSON.stringify(value)).join(', ')}.`,
    );
  }
  return parsed;
}

function describeParseError(spec: CommandSpec, error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = foreignText(error, 4096);
  const option = /'(-{1,2}[^'\s]+)/.exec(message)?.[1] ?? 'an option';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `Unknown option ${option} for sluice ${spec.name}.`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/ambiguous/.test(message))
        return `Option ${option} needs a value; write ${option}=<value> for one that starts with "-".`;
      return /argument missing/.test(message) ? `Option ${option} needs a value.` : `Option ${option} takes no value.`;
    default:
      return `Could not read the command line: ${message}`;
  }
}
