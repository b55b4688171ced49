import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunStoreError } from './run-store-errors.js';

/** The file in a PGlite data directory that names the process holding it. */
export const directoryLockName = 'sluice-run-store.lock';

const heldInThisProcess = new Set<string>();

/**
 * Takes `directory` for this process, or throws when another live process (or another store in
 * this one) has it open: PGlite has no lock of its own, and two instances writing one directory
 * corrupt it. A lock left by a process that died (SIGKILL) is taken over. Resolves the release.
 */
export function lockDirectory(directory: string): () => void {
  if (heldInThisProcess.has(directory)) throw inUse(directory, 'another run store in this process');
  mkdirSync(directory, { recursive: true });
  const path = join(directory, directoryLockName);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      heldInThisProcess.add(directory);
      return () => {
        heldInThisProcess.delete(directory);
        rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(readTextOrEmpty(path), 10);
    if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder))
      throw inUse(directory, `process ${holder}`);
    // The holder is gone without removing its lock (killed, or this process's earlier store).
    rmSync(path, { force: true });
  }
  throw inUse(directory, 'another process that is opening it now');
}

function readTextOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function inUse(directory: string, holder: string): RunStoreError {
  return new RunStoreError({
    message: `The PGlite run store directory ${directory} is open in ${holder}: one process at a time may open it (two would corrupt it). Close that store first, or use createPostgresRunStore for several hosts.`,
  });
}
