import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { type CodeRuntimeLanguage, foreignText, InvalidSettingsError } from '@sluice/code-runtime';
import { type Policy, parsePolicy } from '@sluice/permissions';
import { type CliIo, UsageError } from './cli-io.js';

const languages: Record<string, CodeRuntimeLanguage> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.js': 'typescript',
  '.mjs': 'typescript',
  '.py': 'python',
};

/** The most program text read from stdin: the largest `sourceBytes` any provider accepts. */
export const stdinProgramBytes = 16 * 1024 * 1024;

/**
 * The language of the program `path` names (relative to `cwd`; `-` is stdin): `language` when given,
 * else the file's extension, else TypeScript for stdin. Throws {@link UsageError} for a missing
 * file, a directory, or an extension no runtime takes.
 */
export function programLanguage(
  path: string,
  language: CodeRuntimeLanguage | undefined,
  cwd: string,
): CodeRuntimeLanguage {
  if (path === '-') return language ?? 'typescript';
  const file = resolve(cwd, path);
  if (!existsSync(file)) throw new UsageError(`The program ${path} does not exist.`);
  if (statSync(file).isDirectory()) {
    throw new UsageError(`${path} is a directory; sluice run needs a program file (or - for stdin).`);
  }
  if (!statSync(file).isFile()) throw new UsageError(`The program ${path} is not a file.`);
  const chosen = language ?? languages[extname(file)];
  if (chosen === undefined) {
    throw new UsageError(`sluice run needs a .ts, .js or .py program (or --language), got ${path}.`);
  }
  return chosen;
}

/**
 * Reads the program `path` names, relative to `io.cwd`, or all of `io.stdin` when it is `-`. Throws
 * {@link UsageError} for an empty program, or when `signal` aborts while stdin is read.
 */
export async function readProgram(path: string, io: CliIo, signal?: AbortSignal): Promise<string> {
  const code = path === '-' ? await readStdin(io, signal) : readFileSync(resolve(io.cwd, path), 'utf8');
  if (code.trim() === '') throw new UsageError(`The program ${path === '-' ? 'on stdin' : path} is empty.`);
  return code;
}

async function readStdin(io: CliIo, signal: AbortSignal | undefined): Promise<string> {
  const { stdin } = io;
  if (stdin === undefined) throw new UsageError('sluice run - reads the program from stdin, but there is none here.');
  // A person at a terminal sees nothing happen otherwise: the command waits for them.
  if ((stdin as { readonly isTTY?: boolean }).isTTY === true) {
    io.stderr.write('sluice: reading the program from stdin; end it with Ctrl-D.\n');
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  const iterator = stdin[Symbol.asyncIterator]();
  const interrupted = new Promise<never>((_, reject) => {
    const stop = () => reject(new UsageError('Interrupted while reading the program from stdin.'));
    if (signal?.aborted) stop();
    signal?.addEventListener('abort', stop, { once: true });
  });
  // Only rejects; owned by the race below, and must not be reported as unhandled once reading is done.
  interrupted.catch(() => {});
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), interrupted]);
      if (next.done === true) break;
      const chunk = typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : Buffer.from(next.value);
      bytes += chunk.length;
      if (bytes > stdinProgramBytes) {
        throw new UsageError(
          `The program on stdin is larger than ${stdinProgramBytes} bytes, the most any runtime takes.`,
        );
      }
      chunks.push(chunk);
    }
  } catch (error) {
    // Stop reading without waiting: after an interrupt the pending read may never settle.
    Promise.resolve(iterator.return?.()).catch(() => {});
    throw error;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Reads a policy file relative to `cwd`, naming it in every problem as it was given. Throws
 * {@link UsageError}: `Bad policy: …`.
 */
export function loadPolicy(path: string, cwd: string): Policy {
  let json: string;
  try {
    json = readFileSync(resolve(cwd, path), 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    throw new UsageError(
      code === 'ENOENT'
        ? `The policy file ${path} does not exist.`
        : `The policy file ${path} could not be read: ${foreignText(error, 1024)}.`,
    );
  }
  try {
    return parsePolicy(json);
  } catch (error) {
    if (InvalidSettingsError.isInstance(error)) throw new UsageError(`Bad policy: ${path}: ${error.message}`);
    throw error;
  }
}
