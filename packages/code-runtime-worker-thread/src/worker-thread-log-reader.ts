import type { LogLevel } from '@sluice/code-runtime';

const levels: readonly LogLevel[] = ['log', 'info', 'debug', 'warn', 'error'];
const headerBytes = 16;
const chunk = 8192;
const markerCode = 6;

/**
 * Size of a worker's log buffer for a log budget: the prelude sends at most `logBytes` bytes of
 * lines (each at least one byte with its newline) as UTF-16 units plus one level unit each, and
 * then one cut line that crosses the budget.
 */
export function logBufferBytes(logBytes: number, hostCalls: number): number {
  // Each call also leaves a marker: a unit, up to 7 digits, a newline.
  return headerBytes + 2 * (2 * logBytes + 16 + 9 * (hostCalls + 2));
}

/**
 * Host-side reader of the log buffer a worker shares with the host. The prelude writes each line
 * as a level unit, the text and a newline, then publishes the new end in the header; so the host
 * can read every line a program printed even after killing its worker in the middle of a loop.
 * A call leaves a marker line (level unit 6, then the call id): reading stops at the marker of a
 * call the host has not dispatched yet, so lines are never shown before the call that preceded them.
 */
export class LogReader {
  readonly #header: Int32Array;
  readonly #data: Uint16Array;
  #position = 0;
  #seq = 0;

  constructor(buffer: SharedArrayBuffer) {
    this.#header = new Int32Array(buffer, 0, 4);
    this.#data = new Uint16Array(buffer, headerBytes);
  }

  /**
   * Starts run `seq`. The worker resets the end and then stores `seq` in the header's second slot
   * before the program runs; until that seq is there, the buffer still holds the previous run's
   * lines and nothing is read.
   */
  reset(seq: number): void {
    this.#position = 0;
    this.#seq = seq;
  }

  /** The end the worker has published so far for the current run. */
  get published(): number {
    return Atomics.load(this.#header, 1) === this.#seq ? Atomics.load(this.#header, 0) : 0;
  }

  /**
   * Emits every complete line up to `end` (by default the published end). Returns `false` when
   * the buffer does not hold well-formed lines there, which the host treats as a protocol breach.
   */
  read(
    emit: (level: LogLevel, text: string) => void,
    end: number = this.published,
    passMarker: (callId: number) => boolean = () => true,
  ): boolean {
    // Seq before end: the worker stores them the other way round, so a matching seq means the end is this run's.
    if (Atomics.load(this.#header, 1) !== this.#seq) return end === this.#position || end === 0;
    if (!Number.isSafeInteger(end) || end > this.#data.length) return false;
    // A turn's end can lag behind what a poll has read since (the worker ran on): those lines are out.
    if (end <= this.#position) return true;
    const data = this.#data;
    while (this.#position < end) {
      const code = data[this.#position]!;
      const level = levels[code - 1];
      if (level === undefined && code !== markerCode) return false;
      const start = this.#position + 1;
      let newline = start;
      while (newline < end && data[newline] !== 10) newline += 1;
      if (newline >= end) return false;
      let text = '';
      for (let from = start; from < newline; from += chunk) {
        text += String.fromCharCode(...data.subarray(from, Math.min(newline, from + chunk)));
      }
      if (level === undefined) {
        if (!/^[0-9]{1,9}$/.test(text)) return false;
        if (!passMarker(Number(text))) return true;
        this.#position = newline + 1;
        continue;
      }
      this.#position = newline + 1;
      emit(level, text);
    }
    return true;
  }
}
