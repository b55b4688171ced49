import { execFile, spawnSync } from 'node:child_process';
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { foreignText } from '@sluice/code-runtime';
import { pythonHashSeed } from './python-fingerprint.js';
import { type PythonRuntimeConfig, pythonExecutableVariable } from './python-settings.js';

/** The real interpreter behind the configured command. */
export interface Interpreter {
  /** `sys.executable`, as the configured command reports it. */
  readonly executable: string;
  readonly version: string;
  /**
   * The configured command when it is not the interpreter itself (a wrapper script that sets a
   * `ulimit` or starts `bwrap`, a version-manager shim): the zygote is then started through it, so
   * what it applies holds for every child. `undefined` when the command is the interpreter's own file.
   */
  readonly wrapper: string | undefined;
}

/** How the zygote process is started: through the operator's wrapper, or the interpreter directly. */
export interface ZygoteCommand {
  readonly command: string;
  /** A wrapper gets the host's `PATH` (so `exec python3 "$@"` finds what it found when asked); nothing else of the host's. */
  readonly env: Readonly<Record<string, string>>;
}

/** The command that starts the zygote for `interpreter`. */
export function zygoteCommand(interpreter: Interpreter): ZygoteCommand {
  // One fixed hash seed for every run, so a set's order is the same in every run and on every host
  // (deterministic runs need it; one zygote serves all runs). See docs/decisions/2026-12-01-python-deterministic-mode.md.
  const hashSeed = { PYTHONHASHSEED: pythonHashSeed };
  if (interpreter.wrapper === undefined) return { command: interpreter.executable, env: hashSeed };
  const path = process.env.PATH;
  return { command: interpreter.wrapper, env: path === undefined ? hashSeed : { PATH: path, ...hashSeed } };
}

/** A resolved interpreter, or why there is none, in words an operator can act on. */
export type InterpreterResolution = Interpreter | { readonly failure: string };

/** The oldest CPython the runner supports. */
export const minimumPythonVersion = [3, 10] as const;

// Written for any Python, so an old or foreign interpreter still says what it is.
const askCode =
  'import sys, os, json, platform; print(json.dumps([sys.executable, list(sys.version_info[:3]), platform.python_implementation(), os.path.realpath(sys.executable)]))';
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
  const real = typeof answer[3] === 'string' ? answer[3] : executable;
  return {
    executable,
    version,
    wrapper: sameFile(commandPath(config.executable), real) ? undefined : config.executable,
  };
}

/** Where the command is, as a spawn with the host's `PATH` finds it; `undefined` when it cannot be found here. */
function commandPath(command: string): string | undefined {
  if (command.includes('/')) return resolve(command);
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, command);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here: the next directory.
    }
  }
  return undefined;
}

/** Whether the command is the interpreter's own file (through symbolic links); anything else is a wrapper. */
function sameFile(command: string | undefined, interpreter: string): boolean {
  if (command === undefined) return false;
  try {
    const a = statSync(realpathSync(command));
    const b = statSync(realpathSync(interpreter));
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
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
