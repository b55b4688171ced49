/**
 * Splits a byte stream into JSON lines for a hostile writer: lines are found on byte 0x0A, a line
 * is refused once it passes `maxLineBytes` (before it is accumulated, so a line with no end cannot
 * grow the host's memory), and only complete lines are decoded — as strict UTF-8, then JSON.
 * The first problem stops the reader for good.
 */
export class JsonLineReader {
  readonly #parts: Buffer[] = [];
  #partBytes = 0;
  #stopped = false;
  readonly #decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  constructor(
    private readonly maxLineBytes: number,
    private readonly onValue: (value: unknown) => void,
    private readonly onProblem: (problem: string) => void,
  ) {}

  /** Whether a problem was found, or {@link stop} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Stops delivering; later input is ignored. */
  stop(): void {
    this.#stopped = true;
    this.#parts.length = 0;
    this.#partBytes = 0;
  }

  /** Feeds the next chunk. Delivers every complete line in it, in order, unless stopped on the way. */
  push(chunk: Buffer): void {
    let start = 0;
    while (!this.#stopped) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (this.#partBytes + (end - start) > this.maxLineBytes) {
        this.#fail(`a line longer than ${this.maxLineBytes} bytes`);
        return;
      }
      if (newline === -1) {
        if (end > start) {
          this.#parts.push(chunk.subarray(start, end));
          this.#partBytes += end - start;
        }
        return;
      }
      const piece = chunk.subarray(start, end);
      const line = this.#parts.length === 0 ? piece : Buffer.concat([...this.#parts, piece]);
      this.#parts.length = 0;
      this.#partBytes = 0;
      start = newline + 1;
      this.#deliver(line);
    }
  }

  /** The stream ended. A partial line left over means the writer stopped mid-frame. */
  end(): void {
    if (!this.#stopped && this.#partBytes > 0) this.#fail('a partial line at the end of the stream');
  }

  #deliver(line: Buffer): void {
    let text: string;
    try {
      text = this.#decoder.decode(line);
    } catch {
      this.#fail('a line that is not valid UTF-8');
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#fail('a line that is not JSON');
      return;
    }
    this.onValue(value);
  }

  #fail(problem: string): void {
    this.stop();
    this.onProblem(problem);
  }
}
