import { type LogLevel, utf8ByteLength } from '@sluice/code-runtime';
import type { RunController } from '@sluice/code-runtime-kit';
import { ByteLogSplitter, LogLineSplitter } from './log-lines.js';

/**
 * A child's output, on its way to the run's logs: `log` frames (what `print` wrote) and raw bytes
 * on fds 1 and 2 (what C code wrote), each cut into lines, `stdout` at `log` and `stderr` at
 * `error`. Counts what it hands on, so it knows when the run's log budget is spent.
 */
export class ChildLogs {
  #run: RunController | undefined;
  #loggedBytes = 0;
  #beforeRun = '';
  readonly #frames: Record<'stdout' | 'stderr', LogLineSplitter>;
  readonly #raw: Record<'stdout' | 'stderr', ByteLogSplitter>;

  constructor(
    private readonly logBytes: number,
    private readonly onBudgetSpent: () => void,
  ) {
    const partial = logBytes + 1;
    const to = (level: LogLevel) => (text: string) => this.#log(level, text);
    this.#frames = {
      stdout: new LogLineSplitter(partial, to('log')),
      stderr: new LogLineSplitter(partial, to('error')),
    };
    this.#raw = { stdout: new ByteLogSplitter(partial, to('log')), stderr: new ByteLogSplitter(partial, to('error')) };
  }

  /** Whether the budget is spent, so later output can be ignored unread. */
  get spent(): boolean {
    return this.#loggedBytes > this.logBytes;
  }

  /** The last line written to fd 2 before a run was assigned: why a child failed while starting. */
  get lastLineBeforeRun(): string | undefined {
    return this.#beforeRun.trim().split('\n').slice(-1)[0] || undefined;
  }

  /** From now on, lines go to `run`; however it ends (wall clock, cancel), its unfinished lines are kept. */
  attach(run: RunController): void {
    this.#run = run;
    run.beforeFinish(() => this.flush());
  }

  frame(stream: 'stdout' | 'stderr', text: string): void {
    if (!this.spent) this.#frames[stream].push(text);
  }

  raw(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    if (this.#run === undefined) {
      if (this.#beforeRun.length < 4096) this.#beforeRun += chunk.toString('utf8').slice(0, 4096);
      return;
    }
    this.#raw[stream].push(chunk);
  }

  /** A raw stream ended: its unfinished line is a line. */
  rawEnded(stream: 'stdout' | 'stderr'): void {
    this.#raw[stream].flush();
  }

  /** The run is ending: every unfinished line is a line. */
  flush(): void {
    for (const splitter of [...Object.values(this.#frames), ...Object.values(this.#raw)]) splitter.flush();
  }

  #log(level: LogLevel, text: string): void {
    if (this.#run === undefined || this.spent) return;
    this.#run.log(level, text);
    this.#loggedBytes += utf8ByteLength(text) + 1;
    if (this.spent) this.onBudgetSpent();
  }
}
