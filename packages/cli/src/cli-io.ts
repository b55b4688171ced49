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
  /** The directory every relative path on the command line is resolved against. */
  readonly cwd: string;
  /** Where `sluice run -` reads its program; `process.stdin` fits. Without it, `-` is refused. */
  readonly stdin?: AsyncIterable<Uint8Array | string>;
  /**
   * The words that run `sluice` again from `cwd`, for the commands it prints (`sluice resume …`):
   * `['npx', 'sluice']`, `['node', 'packages/cli/bin/sluice.js']`. Default `['sluice']`.
   */
  readonly invocation?: readonly string[];
}

/** Exit code: the command did what was asked and the program succeeded. */
export const exitSuccess = 0;
/** Exit code: the program ran and failed (its failure is printed). */
export const exitProgramFailure = 1;
/** Exit code: the command line or an input file was wrong; nothing ran. */
export const exitUsageError = 2;
/**
 * Exit code: a durable run (`--run-store`) paused on a call the policy asks about; the token and
 * the `sluice resume` command that continues it are printed. 3, after the codes a plain run uses.
 */
export const exitPaused = 3;
/**
 * Exit code: `sluice resume <token> --allow|--deny` found the pause already decided the other way
 * (two people, or two clicks, at once): this decision was not applied; the one that stands is
 * printed, with the run's outcome.
 */
export const exitDecisionNotApplied = 4;
/** Exit code: interrupted with Ctrl-C (SIGINT); the run was cancelled first. 128 + the signal's number, as shells do. */
export const exitInterrupted = 130;

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
