import { parseArgs } from 'node:util';
import { foreignText } from '@sluice/code-runtime';
import { UsageError } from './cli-io.js';

/** A parsed command line. */
export type CliCommand =
  | { readonly command: 'help' }
  | { readonly command: 'version' }
  | { readonly command: 'demo' }
  | {
      readonly command: 'run';
      readonly program: string;
      readonly tools: string | undefined;
      readonly policy: string | undefined;
      readonly json: boolean;
    }
  | {
      readonly command: 'declarations';
      readonly tools: string;
      readonly language: 'typescript' | 'python';
      readonly policy: string | undefined;
    };

const commands = ['run', 'declarations', 'demo', 'help'];

/** Parses `argv` (without `node` and the script). Throws {@link UsageError} with one sentence for anything wrong. */
export function parseCommandLine(argv: readonly string[]): CliCommand {
  const [first, ...rest] = argv;
  if (first === undefined) throw usage('Name a command: run, declarations or demo.');
  if (first === '--help' || first === '-h' || first === 'help') return { command: 'help' };
  if (first === '--version' || first === '-v') return { command: 'version' };
  if (!commands.includes(first)) {
    throw usage(`Unknown command ${JSON.stringify(first)}; the commands are run, declarations and demo.`);
  }
  if (rest.includes('--help') || rest.includes('-h')) return { command: 'help' };
  switch (first) {
    case 'demo':
      parse('demo', rest, {}, 0);
      return { command: 'demo' };
    case 'run': {
      const { values, positionals } = parse(
        'run',
        rest,
        { tools: { type: 'string' }, policy: { type: 'string' }, json: { type: 'boolean' } },
        1,
      );
      const program = positionals[0];
      if (program === undefined) throw usage('sluice run needs a program file, such as program.ts or program.py.');
      return {
        command: 'run',
        program,
        tools: values.tools as string | undefined,
        policy: values.policy as string | undefined,
        json: values.json === true,
      };
    }
    default: {
      const { values } = parse(
        'declarations',
        rest,
        { tools: { type: 'string' }, language: { type: 'string' }, policy: { type: 'string' } },
        0,
      );
      const tools = values.tools as string | undefined;
      if (tools === undefined) throw usage('sluice declarations needs --tools <module>.');
      const language = (values.language as string | undefined) ?? 'typescript';
      if (language !== 'typescript' && language !== 'python') {
        throw usage(`--language must be typescript or python, got ${JSON.stringify(language)}.`);
      }
      return { command: 'declarations', tools, language, policy: values.policy as string | undefined };
    }
  }
}

function usage(message: string): UsageError {
  return new UsageError(message, { commandLine: true });
}

type Options = Record<string, { type: 'string' | 'boolean' }>;

function parse(command: string, args: string[], options: Options, maxPositionals: number) {
  let parsed: ReturnType<typeof parseArgs<{ options: Options; allowPositionals: true; strict: true; args: string[] }>>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usage(describeParseError(command, error, options));
  }
  const extra = parsed.positionals.slice(maxPositionals);
  if (extra.length > 0) {
    throw usage(
      `sluice ${command} takes ${maxPositionals === 0 ? 'no file arguments' : 'one program file'}, but also got ${extra.map((value) => JSON.stringify(value)).join(', ')}.`,
    );
  }
  return parsed;
}

function describeParseError(command: string, error: unknown, options: Options): string {
  const code = (error as { code?: string }).code;
  const message = foreignText(error, 4096);
  const option = /'(-{1,2}[^'\s]+)/.exec(message)?.[1] ?? 'an option';
  const known = Object.keys(options).map((name) => `--${name}`);
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `Unknown option ${option} for sluice ${command}; ${known.length > 0 ? `it takes ${known.join(', ')}` : 'it takes no options'}.`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /argument missing/.test(message) ? `Option ${option} needs a value.` : `Option ${option} takes no value.`;
    default:
      return `Could not read the command line: ${message}`;
  }
}
