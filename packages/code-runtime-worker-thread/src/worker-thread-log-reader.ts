import type { LogLevel } from '@sluice/code-runtime';

const levels: readonly LogLevel[] = ['log', 'info', 'debug', 'warn', 'error'];
const headerBytes = 16;
const chunk = 8192;

/**
 * Size of a worker's log buffer for a log budget: the prelude sends at most `logBytes` bytes of
 * lines (each at least one byte with its newline) as UTF-16 units plus one level unit each, and
 * then one cut line that crosses the budget.
 */
export function logBufferBytes(logBytes: number): number {
  return headerBytes + 2 * (2 * logBytes + 16);
}

/**
 * Host-side reader of the log buffer a worker shares with the host. The prelude writes each line
 * as a level unit, the text and a newline, then publishes the new end in the header; so the host
 * can read every line a program printed even after killing its worker in the middle of a loop.
 */
export class LogReader {
  readonly #header: Int32Array;
  readonly #data: Uint16Array;
  #position = 0;

  constructor(buffer: SharedArrayBuffer) {
    this.#header = new Int32Array(buffer, 0, 4);
    this.#data = new Uint16Array(buffer, headerBytes);
  }

  /** Starts a new run: the worker resets the header before the program runs. */
  reset(): void {
    this.#position = 0;
  }

  /** The end the worker has published so far. */
  get published(): number {
    return Atomics.load(this.#header, 0);
  }

  /**
   * Emits every complete line up to `end` (by default the published end). Returns `false` when
   * the buffer does not hold well-formed lines there, which the host treats as a protocol breach.
   */
  read(emit: (level: LogLevel, text: string) => void, end: number = this.published): boolean {
    if (!Number.isSafeInteger(end) || end < this.#position || end > this.#data.length) return end === this.#position;
    const data = this.#data;
    while (this.#position < end) {
      const level = levels[data[this.#position]! - 1];
      if (level === undefined) return false;
      const start = this.#position + 1;
      let newline = start;
      while (newline < end && data[newline] !== 10) newline += 1;
      if (newline >= end) return false;
      let text = '';
      for (let from = start; from < newline; from += chunk) {
        text += String.fromCharCode(...data.subarray(from, Math.min(newline, from + chunk)));
      }
      this.#position = newline + 1;
      emit(level, text);
    }
    return true;
  }
}
