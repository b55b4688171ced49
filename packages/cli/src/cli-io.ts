/** A stream the CLI writes to; `process.stdout` and `process.stderr` fit. */
export interface CliStream {
  write(text: string): unknown;
  /** Whether the stream is a terminal: only then is a progress line drawn. */
  readonly isTTY?: boolean;
}

/** Where the CLI reads and writes, so tests can run it in-process. */
export interface CliIo {
  readonly stdout: CliStream;
  readonly stderr: CliStream;
  /** The directory relative paths are resolved against. */
  readonly cwd: string;
}

/** Exit code: the command did what was asked and the program succeeded. */
export const exitSuccess = 0;
/** Exit code: the program ran and failed (its failure is printed). */
export const exitProgramFailure = 1;
/** Exit code: the command line or an input file was wrong; nothing ran. */
export const exitUsageError = 2;

/** Thrown inside the CLI for a bad command line or input; printed as one sentence, exit code 2. */
export class UsageError extends Error {
  /** Whether the command line itself was wrong, so pointing at `--help` helps. */
  readonly commandLine: boolean;

  constructor(message: string, options: { readonly commandLine?: boolean } = {}) {
    super(message);
    this.name = 'UsageError';
    this.commandLine = options.commandLine ?? false;
  }
}

/** The one-line command summaries `--help` prints and usage errors point to. */
export const usageText = `Usage:
  sluice run <program.ts|.js|.py> [--tools <module>] [--policy <file.json>] [--json]
  sluice declarations --tools <module> [--language typescript|python] [--policy <file.json>]
  sluice demo
  sluice mcp --config <file.json>

  run           Runs a program against the tools a JS/TS module exports. Logs stream as they
                come; then the value (stdout) or the failure (stderr), and a usage line (stderr).
                --json prints the whole result as JSON instead. Exit 0 ok, 1 program failed, 2 bad input.
  declarations  Prints the declarations the model would read for those tools.
  demo          Runs the bundled demo: sample tools, a TypeScript and a Python program, a denied
                call and a run that hits its wall clock, printed as the model sees them.
  mcp           Serves MCP over stdio: run_code over the upstream MCP servers in <file.json>
                ("mcpServers" format), plus search_tools and describe_tool. See "sluice mcp --help".
`;
