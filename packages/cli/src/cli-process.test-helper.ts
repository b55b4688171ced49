import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The command as a user runs it: bin/sluice.js, which loads the built dist/bin.js. */
export const sluiceBin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'sluice.js');

/** How a `sluice` process ended, and all it wrote. */
export interface FinishedSluice {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the built `sluice` with `args` in `cwd`, stdin closed, and resolves when it has exited.
 * `signal`: sent once, as soon as the process has written `when` to stderr (a stage marker).
 * It runs as `npx sluice` starts it (`npm_command=exec`), so the commands it prints start `npx sluice`
 * however the tests were started; `env` is added to this process's environment after that.
 */
export function runSluice(
  args: readonly string[],
  cwd: string,
  signal?: { readonly when: string; readonly signal: NodeJS.Signals },
  env?: NodeJS.ProcessEnv,
): Promise<FinishedSluice> {
  const child = spawn(process.execPath, [sluiceBin, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_command: 'exec', ...env },
  });
  const output = { stdout: '', stderr: '' };
  let signalled = false;
  child.stdout.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString('utf8');
    if (signal !== undefined && !signalled && output.stderr.includes(signal.when)) {
      signalled = true;
      child.kill(signal.signal);
    }
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, ...output })));
}
