import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foreignText, InvalidRequestError } from '@sluice/code-runtime';

/** The default {@link ResultSpillOptions.retentionMs}: one hour. */
export const defaultSpillRetentionMs = 3_600_000;

/** The shortest retention accepted, in milliseconds. */
export const minSpillRetentionMs = 1_000;

/** The longest retention accepted, in milliseconds: seven days. */
export const maxSpillRetentionMs = 604_800_000;

/** Options for {@link ResultSpill}. */
export interface ResultSpillOptions {
  /**
   * The folder under which each spill makes its own owner-only folder (`spill-<pid>-XXXXXX`) for the
   * full text of cut results. Default the OS temp folder, whose sticky bit keeps other users from
   * replacing that folder.
   */
  readonly directory?: string;
  /**
   * How long a spilled text is kept, in milliseconds, from when it was written: an integer from
   * {@link minSpillRetentionMs} to {@link maxSpillRetentionMs}. Default {@link defaultSpillRetentionMs}.
   */
  readonly retentionMs?: number;
}

/** One page of a spilled text, as {@link ResultSpill.read} returns it. */
export interface OutputPage {
  readonly id: string;
  /** UTF-8 byte offset where `text` starts. */
  readonly offset: number;
  /** Where the next page starts; `undefined` at the end. */
  readonly nextOffset: number | undefined;
  readonly totalBytes: number;
  readonly text: string;
}

const folderPattern = /^sluice-results-(\d+)-[A-Za-z0-9]{6}$/;
const noFollow = constants.O_NOFOLLOW ?? 0;

/**
 * The full texts of cut results, kept as files for a while so the model can page through them by
 * id (see `createReadOutputTool`). Each spill writes into a folder of its own, made owner-only on its
 * first write (`<directory>/sluice-results-<pid>-XXXXXX`), and opens files there without following
 * links, so no other user and no other spill can swap or remove what it serves. A file is removed
 * when its retention ends, the folder when the spill is disposed; the first write also removes the
 * folders of spills whose process has ended, or that are older than the longest retention. Only ids
 * this spill wrote can be read. No I/O until the first write.
 */
export class ResultSpill {
  /** The folder under which this spill makes its own. */
  readonly directory: string;
  /** How long each file is kept, in milliseconds. */
  readonly retentionMs: number;
  readonly #files = new Map<string, { path: string; timer: NodeJS.Timeout }>();
  #folder: string | undefined;

  constructor(options: ResultSpillOptions = {}) {
    const retention = options.retentionMs ?? defaultSpillRetentionMs;
    if (!Number.isInteger(retention) || retention < minSpillRetentionMs || retention > maxSpillRetentionMs) {
      throw new InvalidRequestError({
        message: `spillRetentionMs must be an integer from ${minSpillRetentionMs} to ${maxSpillRetentionMs}, got ${String(retention)}.`,
        field: 'spillRetentionMs',
      });
    }
    this.retentionMs = retention;
    this.directory = options.directory ?? tmpdir();
  }

  /** Writes `text` under an id made from `key` (a run id); returns the id and path, or why it could not be written. */
  write(key: string, text: string): { id: string; path: string } | { error: string } {
    const id = key.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 128) || 'output';
    let path: string;
    try {
      path = join(this.#ownFolder(), `sluice-output-${id}.txt`);
      this.#forget(id);
      removeQuietly(path);
      const descriptor = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | noFollow, 0o600);
      try {
        const bytes = Buffer.from(text, 'utf8');
        for (let written = 0; written < bytes.length; ) written += writeSync(descriptor, bytes, written);
      } finally {
        closeSync(descriptor);
      }
    } catch (error) {
      return { error: foreignText(error, 1024) };
    }
    const timer = setTimeout(() => this.#remove(id), this.retentionMs);
    // A kept file must not keep the process alive; a later spill sweeps the folder of an ended process.
    timer.unref();
    this.#files.set(id, { path, timer });
    return { id, path };
  }

  /**
   * Up to `maxBytes` of the text kept as `id`, from the UTF-8 byte `offset` (moved forward to the
   * next character boundary; the page ends on one too). `undefined` when no text is kept under
   * that id: never written here, expired, or removed.
   */
  read(id: string, offset: number, maxBytes: number): OutputPage | undefined {
    const file = this.#files.get(id);
    if (file === undefined) return undefined;
    let descriptor: number;
    try {
      descriptor = openSync(file.path, constants.O_RDONLY | noFollow);
    } catch {
      return undefined;
    }
    try {
      const totalBytes = fstatSync(descriptor).size;
      let start = Math.min(Math.max(0, Math.trunc(offset)), totalBytes);
      // Four bytes beyond the page: enough to find where the character at either end begins.
      const buffer = Buffer.alloc(Math.min(totalBytes - start, Math.max(4, maxBytes) + 4));
      const length = readSync(descriptor, buffer, 0, buffer.length, start);
      let begin = 0;
      while (begin < length && isContinuation(buffer[begin]!)) begin += 1;
      let end = Math.min(length, begin + Math.max(4, maxBytes));
      if (start + end < totalBytes) while (end > begin && isContinuation(buffer[end]!)) end -= 1;
      const text = buffer.subarray(begin, end).toString('utf8');
      start += begin;
      const next = start + (end - begin);
      return { id, offset: start, nextOffset: next < totalBytes ? next : undefined, totalBytes, text };
    } finally {
      closeSync(descriptor);
    }
  }

  /** Removes this spill's folder with every file it wrote, and stops its timers. Idempotent. */
  dispose(): void {
    for (const id of [...this.#files.keys()]) this.#forget(id);
    if (this.#folder !== undefined) rmSync(this.#folder, { recursive: true, force: true });
    this.#folder = undefined;
  }

  /** This spill's folder, made (and the folders of ended spills swept) on first use, or again if it was removed. */
  #ownFolder(): string {
    if (this.#folder !== undefined) {
      try {
        if (lstatSync(this.#folder).isDirectory()) return this.#folder;
      } catch {
        // Removed from outside: make another.
      }
    }
    mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    sweepEnded(this.directory);
    this.#folder = mkdtempSync(join(this.directory, `sluice-results-${process.pid}-`));
    return this.#folder;
  }

  #forget(id: string): void {
    const file = this.#files.get(id);
    if (file !== undefined) clearTimeout(file.timer);
    this.#files.delete(id);
  }

  #remove(id: string): void {
    const file = this.#files.get(id);
    this.#forget(id);
    if (file !== undefined) removeQuietly(file.path);
  }
}

/** Removes the spill folders under `directory` whose process has ended, or that are older than the longest retention. */
function sweepEnded(directory: string): void {
  const tooOld = Date.now() - maxSpillRetentionMs;
  for (const name of readdirSync(directory)) {
    const match = folderPattern.exec(name);
    if (match === null) continue;
    const path = join(directory, name);
    try {
      const stats = lstatSync(path);
      if (!stats.isDirectory() || (process.getuid !== undefined && stats.uid !== process.getuid())) continue;
      if (processAlive(Number(match[1])) && stats.mtimeMs >= tooOld) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by another process: nothing to do.
    }
  }
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `3600000` → `1 hour`, `90000` → `90 seconds`, `1500` → `1500 ms`. */
export function formatRetention(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  for (const [size, unit] of units) {
    if (ms % size === 0) return `${ms / size} ${unit}${ms === size ? '' : 's'}`;
  }
  return `${ms} ms`;
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
