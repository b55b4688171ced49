import type { CliStream } from './cli-io.js';

const clearLine = '\r\x1b[2K';

/**
 * A one-line status (`running · 1.4 s · 3 host calls`) redrawn on a terminal while a run takes
 * longer than a moment. On anything that is not a TTY it draws nothing, so piped and captured
 * output stays clean. Lines written through {@link print} clear it first and redraw it after.
 */
export class ProgressLine {
  readonly #stream: CliStream;
  readonly #startedAt = performance.now();
  readonly #delayMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #hostCalls = 0;
  #shown = false;
  #stopped = false;

  constructor(stream: CliStream, options: { readonly delayMs?: number; readonly intervalMs?: number } = {}) {
    this.#stream = stream;
    this.#delayMs = options.delayMs ?? 300;
    if (stream.isTTY === true) {
      this.#timer = setInterval(() => this.#draw(), options.intervalMs ?? 100);
      this.#timer.unref?.();
    }
  }

  /** Counts a host call that started. */
  hostCall(): void {
    this.#hostCalls += 1;
  }

  /** Writes `text` to `target` without tearing the progress line. */
  print(target: CliStream, text: string): void {
    this.#clear();
    target.write(text);
    this.#draw();
  }

  /** Removes the line for good. Idempotent. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#clear();
  }

  #draw(): void {
    const elapsed = performance.now() - this.#startedAt;
    if (this.#stopped || this.#timer === undefined || elapsed < this.#delayMs) return;
    const calls = `${this.#hostCalls} host call${this.#hostCalls === 1 ? '' : 's'}`;
    this.#stream.write(`${clearLine}running · ${(elapsed / 1000).toFixed(1)} s · ${calls}`);
    this.#shown = true;
  }

  #clear(): void {
    if (!this.#shown) return;
    this.#stream.write(clearLine);
    this.#shown = false;
  }
}
