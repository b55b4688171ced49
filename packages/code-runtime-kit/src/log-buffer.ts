import { type LogEntry, type LogLevel, truncateUtf8, utf8ByteLength, wellFormedText } from '@sluice/code-runtime';

/** The text of the entry that marks where logs were cut. Both providers use it, so models see one wording. */
export function logTruncationNotice(limitBytes: number): string {
  return `[sluice] Output truncated: the ${limitBytes}-byte log budget is used up and later output was dropped. Print less, or return the data as the value.`;
}

/**
 * Logs of one run under a byte budget. The entry that crosses the budget is cut to fit and
 * followed by a notice entry; everything after is dropped and counted. Each line is made
 * well-formed Unicode as it is kept: a lone surrogate (a program printing `'🚀'.slice(0, 1)`) becomes
 * U+FFFD, which is what it was counted as in bytes, so no provider hands a model text its API refuses.
 */
export class LogBuffer {
  readonly entries: LogEntry[] = [];
  truncated = false;
  keptBytes = 0;
  droppedBytes = 0;

  constructor(private readonly limitBytes: number) {}

  /** Adds a line. Returns the entries actually kept (zero, one, or a cut line plus the notice). */
  add(level: LogLevel, text: string): LogEntry[] {
    const bytes = utf8ByteLength(text) + 1;
    if (this.truncated) {
      this.droppedBytes += bytes;
      return [];
    }
    if (this.keptBytes + bytes <= this.limitBytes) {
      const entry = { level, text: wellFormedText(text) };
      this.entries.push(entry);
      this.keptBytes += bytes;
      return [entry];
    }
    this.truncated = true;
    const kept: LogEntry[] = [];
    const cut = truncateUtf8(text, Math.max(0, this.limitBytes - this.keptBytes - 1));
    if (cut !== '') {
      kept.push({ level, text: wellFormedText(cut) });
      this.keptBytes += utf8ByteLength(cut) + 1;
      this.droppedBytes += bytes - utf8ByteLength(cut) - 1;
    } else {
      this.droppedBytes += bytes;
    }
    kept.push({ level: 'warn', text: logTruncationNotice(this.limitBytes) });
    this.entries.push(...kept);
    return kept;
  }
}
