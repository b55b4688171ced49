/**
 * Log text arriving in arbitrary pieces, cut into lines. An unfinished line is held up to `maxPartial`
 * characters; past that it is handed on as it is (the log budget then cuts it), so a line with no end
 * costs the host no more than the budget.
 */
export class LogLineSplitter {
  #partial = '';

  constructor(
    private readonly maxPartial: number,
    private readonly emit: (text: string) => void,
  ) {}

  push(text: string): void {
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      const line = this.#partial + text.slice(start, newline);
      this.#partial = '';
      start = newline + 1;
      this.emit(line);
    }
    this.#partial += text.slice(start);
    if (this.#partial.length > this.maxPartial) this.flush();
  }

  /** Hands on the unfinished line, if any: the stream ended without a final newline. */
  flush(): void {
    if (this.#partial === '') return;
    const line = this.#partial;
    this.#partial = '';
    this.emit(line);
  }
}

/**
 * Raw bytes (what a C extension or `os.write` put on fd 1 or 2) cut into lines: split on byte 0x0A,
 * each line decoded on its own, invalid UTF-8 shown as U+FFFD. Holds at most `maxPartial` bytes.
 */
export class ByteLogSplitter {
  readonly #parts: Buffer[] = [];
  #partBytes = 0;
  readonly #decoder = new TextDecoder('utf-8');

  constructor(
    private readonly maxPartial: number,
    private readonly emit: (text: string) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      this.#parts.push(chunk.subarray(start, newline));
      start = newline + 1;
      this.#emitParts();
    }
    if (start < chunk.length) {
      this.#parts.push(chunk.subarray(start));
      this.#partBytes += chunk.length - start;
    }
    if (this.#partBytes > this.maxPartial) this.flush();
  }

  flush(): void {
    if (this.#partBytes > 0) this.#emitParts();
  }

  #emitParts(): void {
    const line = this.#decoder.decode(this.#parts.length === 1 ? this.#parts[0] : Buffer.concat(this.#parts));
    this.#parts.length = 0;
    this.#partBytes = 0;
    this.emit(line);
  }
}
