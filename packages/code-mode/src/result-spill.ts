import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  unlinkSync,
  writeFileSync,
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
  /** Where the full text of cut results is written (created owner-only). Default `<os tmpdir>/sluice-results`. */
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

const filePattern = /^sluice-output-[A-Za-z0-9_-]+\.txt$/;

/**
 * The full texts of cut results, kept as files for a while so the model can page through them by
 * id (see `createReadOutputTool`). Each file is removed when its retention ends, when the spill is
 * disposed, or by a later spill into the same directory that finds it expired (a process that
 * ended early leaves nothing behind for long). Only ids this spill wrote can be read. No I/O
 * until the first write.
 */
export class ResultSpill {
  /** Where the files are written. */
  readonly directory: string;
  /** How long each file is kept, in milliseconds. */
  readonly retentionMs: number;
  readonly #files = new Map<string, { path: string; timer: NodeJS.Timeout }>();

  constructor(options: ResultSpillOptions = {}) {
    const retention = options.retentionMs ?? defaultSpillRetentionMs;
    if (!Number.isInteger(retention) || retention < minSpillRetentionMs || retention > maxSpillRetentionMs) {
      throw new InvalidRequestError({
        message: `spillRetentionMs must be an integer from ${minSpillRetentionMs} to ${maxSpillRetentionMs}, got ${String(retention)}.`,
        field: 'spillRetentionMs',
      });
    }
    this.retentionMs = retention;
    this.directory = options.directory ?? join(tmpdir(), 'sluice-results');
  }

  /** Writes `text` under an id made from `key` (a run id); returns the id and path, or why it could not be written. */
  write(key: string, text: string): { id: string; path: string } | { error: string } {
    const id = key.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 128) || 'output';
    const path = join(this.directory, `sluice-output-${id}.txt`);
    try {
      mkdirSync(this.directory, { recursive: true, mode: 0o700 });
      this.#sweep();
      writeFileSync(path, text, { mode: 0o600 });
    } catch (error) {
      return { error: foreignText(error, 1024) };
    }
    this.#forget(id);
    const timer = setTimeout(() => this.#remove(id), this.retentionMs);
    // A kept file must not keep the process alive; a later spill or the next process sweeps it.
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
      descriptor = openSync(file.path, 'r');
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

  /** Removes every file this spill wrote and stops its timers. Idempotent. */
  dispose(): void {
    for (const id of [...this.#files.keys()]) this.#remove(id);
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

  /** Removes expired spill files in the directory, including those of processes that ended before their timers ran. */
  #sweep(): void {
    const before = Date.now() - this.retentionMs;
    for (const name of readdirSync(this.directory)) {
      if (!filePattern.test(name)) continue;
      const path = join(this.directory, name);
      try {
        if (statSync(path).mtimeMs < before) unlinkSync(path);
      } catch {
        // Removed meanwhile by another process: nothing to do.
      }
    }
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
