import { parseArgs } from 'node:util';
import type { RunCodeDecision } from '@sluice/code-mode';
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
  | { readonly command: 'mcp' | 'serve' | 'console'; readonly argv: readonly string[] }
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
      /** Given with `--run-store`: a directory (embedded store) or a `postgres://` URL; the run is durable. */
      readonly runStore: string | undefined;
      /** Given with `--conversation`: whose `sluice.store`/`sluice.load` values the durable run uses. */
      readonly conversation: string | undefined;
    }
  | {
      readonly command: 'resume';
      /** The pause token to decide, or `undefined` with `run`. */
      readonly token: string | undefined;
      /** The person's decision on the token's call (`--allow`, `--deny [--reason]`); `undefined` with `run`. */
      readonly decision: RunCodeDecision | undefined;
      /** Given with `--run`: a run whose host stopped, to continue by replay. */
      readonly run: string | undefined;
      readonly runStore: string;
      readonly tools: string | undefined;
      readonly policy: string | undefined;
      /** Given with `--runtime`: the provider the run started on (quickjs otherwise). */
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

const commandList = 'run, resume, declarations, demo, mcp, serve and console';

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
  if (spec.name === 'mcp' || spec.name === 'serve' || spec.name === 'console')
    return { command: spec.name, argv: rest };
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
      const runStore = readRunStore(values['run-store']);
      const conversation = values.conversation as string | undefined;
      if (conversation === '') throw usage('--conversation needs an id, such as the chat it belongs to.');
      if (conversation !== undefined && runStore === undefined) {
        throw usage('--conversation keeps values between durable runs: give --run-store <directory> too.');
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
        runStore,
        conversation,
      };
    }
    case 'resume':
      return readResume(values, positionals[0], verbosity);
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

function readResume(
  values: Readonly<Record<string, string | boolean | undefined>>,
  token: string | undefined,
  verbosity: Verbosity,
): CliCommand {
  const run = values.run as string | undefined;
  const runStore = readRunStore(values['run-store']);
  const reason = values.reason as string | undefined;
  if (token !== undefined && run !== undefined) {
    throw usage('Give sluice resume a pause token or --run <runId>, not both.');
  }
  if (token === undefined && run === undefined) {
    throw usage(
      'sluice resume needs the pause token a paused run printed, or --run <runId> to continue a run whose host stopped.',
    );
  }
  if (values.allow === true && values.deny === true) throw usage('Choose --allow or --deny, not both.');
  if (reason !== undefined && values.deny !== true) throw usage('--reason goes with --deny: it tells the program why.');
  if (run !== undefined && (values.allow === true || values.deny === true)) {
    throw usage('--allow and --deny answer a pause token; --run continues a run whose host stopped.');
  }
  if (token !== undefined && values.allow !== true && values.deny !== true) {
    throw usage('Answer the paused call with --allow or --deny [--reason <text>].');
  }
  if (runStore === undefined) throw usage('sluice resume needs --run-store <directory>, as the run was given.');
  const decision: RunCodeDecision | undefined =
    token === undefined
      ? undefined
      : values.allow === true
        ? { decision: 'allow' }
        : { decision: 'deny', ...(reason === undefined ? {} : { reason }) };
  return {
    command: 'resume',
    token,
    decision,
    run,
    runStore,
    tools: values.tools as string | undefined,
    policy: values.policy as string | undefined,
    runtime: readRuntime(values.runtime),
    json: values.json === true,
    verbosity,
    budgets: readBudgetFlags(values),
  };
}

function readRunStore(value: unknown): string | undefined {
  if (value === '') throw usage('--run-store needs a directory, or a postgres:// URL.');
  return value as string | undefined;
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
      `sluice ${spec.name} takes ${spec.positionals === 0 ? 'no file arguments' : `one ${spec.positionalName ?? 'program file'}`}, but also got ${extra.map((value) => JSON.stringify(value)).join(', ')}.`,
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
