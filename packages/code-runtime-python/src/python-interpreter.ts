import { execFile, spawnSync } from 'node:child_process';
import { foreignText } from '@sluice/code-runtime';
import { pythonHashSeed } from './python-fingerprint.js';
import { type PythonRuntimeConfig, pythonExecutableVariable } from './python-settings.js';

/** The real interpreter behind the configured command. */
export interface Interpreter {
  /** `sys.executable`, as the configured command reports it. */
  readonly executable: string;
  readonly version: string;
}

/** How the zygote process is started. */
export interface ZygoteCommand {
  readonly command: string;
  /** The host's `PATH` (so a wrapper's `exec python3 "$@"` finds what the host would) and the hash seed; nothing else of the host's. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The command that starts the zygote: the configured command itself, whether it is the interpreter,
 * the operator's wrapper (a `ulimit`, `bwrap`) or a version manager's shim, so what a wrapper applies
 * holds for every child. The command is not asked what it is first: the zygote checks its own
 * interpreter (CPython 3.10 or newer) and reports it, and {@link resolveInterpreter} runs only to
 * explain a zygote that did not start. A shim such as pyenv's costs a dozen processes per start
 * (docs/decisions/2026-12-02-budgets-start-with-the-program.md).
 */
export function zygoteCommand(config: PythonRuntimeConfig): ZygoteCommand {
  // One fixed hash seed for every run, so a set's order is the same in every run and on every host
  // (deterministic runs need it; one zygote serves all runs). See docs/decisions/2026-12-01-python-deterministic-mode.md.
  // The zygote empties its environment before any program runs (sluice_runner.prepare_environment), so PATH reaches no program.
  const hashSeed = { PYTHONHASHSEED: pythonHashSeed };
  const path = process.env.PATH;
  return { command: config.executable, env: path === undefined ? hashSeed : { PATH: path, ...hashSeed } };
}

/** A resolved interpreter, or why there is none, in words an operator can act on. */
export type InterpreterResolution = Interpreter | { readonly failure: string };

/** The oldest CPython the runner supports. */
export const minimumPythonVersion = [3, 10] as const;

// Written for any Python, so an old or foreign interpreter still says what it is.
const askCode =
  'import sys, json, platform; print(json.dumps([sys.executable, list(sys.version_info[:3]), platform.python_implementation()]))';
const resolveTimeoutMs = 15_000;

/** Asks the configured command what it really is. It runs with the host's environment, so shims work; it runs no program. */
export function resolveInterpreter(config: PythonRuntimeConfig): Promise<InterpreterResolution> {
  return new Promise((resolve) => {
    execFile(
      config.executable,
      ['-I', '-S', '-c', askCode],
      { timeout: resolveTimeoutMs, maxBuffer: 64 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        // A string code is a spawn failure (ENOENT, EACCES); `killed` is the timeout; a number is an exit status.
        if (error && (typeof error.code === 'string' || error.killed)) {
          resolve({ failure: describeFailure(config, spawnFailure(error as NodeJS.ErrnoException)) });
          return;
        }
        resolve(interpret(config, error ? undefined : stdout, stderr));
      },
    );
  });
}

/** {@link resolveInterpreter}, blocking. Used only when `isolation` is read before the first run. */
export function resolveInterpreterSync(config: PythonRuntimeConfig): InterpreterResolution {
  const result = spawnSync(config.executable, ['-I', '-S', '-c', askCode], {
    timeout: resolveTimeoutMs,
    maxBuffer: 64 * 1024,
    encoding: 'utf8',
    windowsHide: true,
  });
  if (result.error) return { failure: describeFailure(config, spawnFailure(result.error as NodeJS.ErrnoException)) };
  return interpret(config, result.status === 0 ? result.stdout : undefined, result.stderr);
}

function interpret(config: PythonRuntimeConfig, stdout: string | undefined, stderr: string): InterpreterResolution {
  let answer: unknown;
  try {
    answer = stdout === undefined ? undefined : JSON.parse(stdout);
  } catch {
    answer = undefined;
  }
  if (
    !Array.isArray(answer) ||
    typeof answer[0] !== 'string' ||
    !Array.isArray(answer[1]) ||
    typeof answer[2] !== 'string'
  ) {
    const detail = stderr.trim().split('\n').slice(-1)[0] ?? '';
    return {
      failure: describeFailure(config, `it did not answer like a Python interpreter${detail ? ` (${detail})` : ''}`),
    };
  }
  const [executable, versionParts, implementation] = answer as [string, number[], string];
  const version = versionParts.join('.');
  const [major = 0, minor = 0] = versionParts;
  if (
    implementation !== 'CPython' ||
    major < minimumPythonVersion[0] ||
    (major === 3 && minor < minimumPythonVersion[1])
  ) {
    return { failure: describeFailure(config, `it is ${implementation} ${version}`) };
  }
  if (executable === '') return { failure: describeFailure(config, 'it does not know its own executable') };
  return { executable, version };
}

function spawnFailure(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'it was not found';
  if (error.code === 'EACCES') return 'it is not executable';
  if (error.code === 'ETIMEDOUT' || (error as { killed?: boolean }).killed) return 'it did not answer in time';
  return `it could not be started (${foreignText(error, 512)})`;
}

function describeFailure(config: PythonRuntimeConfig, problem: string): string {
  const source = {
    setting: 'the pythonExecutable setting',
    environment: `the ${pythonExecutableVariable} environment variable`,
    default: `the default, as neither the pythonExecutable setting nor ${pythonExecutableVariable} is set`,
  }[config.executableSource];
  return `No usable Python interpreter: ${JSON.stringify(config.executable)} (from ${source}) cannot be used because ${problem}. Install CPython ${minimumPythonVersion.join('.')} or newer, and point the pythonExecutable setting or the ${pythonExecutableVariable} environment variable at it.`;
}
