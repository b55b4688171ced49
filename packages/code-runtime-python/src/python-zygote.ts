import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { foreignText } from '@sluice/code-runtime';
import { JsonLineReader } from '@sluice/code-runtime-kit';
import { parseZygoteReport, type ReadyReport, wireProtocolVersion, type ZygoteReport } from './wire-frames.js';

/** How the zygote is started: the resolved interpreter, its flags, and its configuration. */
export interface ZygoteLaunch {
  /** The interpreter, or the operator's wrapper that runs it. */
  readonly executable: string;
  /** The zygote's environment: empty, or `PATH` alone for a wrapper. */
  readonly env: Readonly<Record<string, string>>;
  readonly flags: readonly string[];
  readonly script: string;
  readonly config: object;
}

/**
 * How long the zygote may leave forks waiting without answering any of them before it is declared
 * stuck and replaced. Measured from the last answer, not from each fork: a burst of hundreds of forks
 * on a loaded machine is answered slowly but steadily, and that zygote is not stuck.
 */
export const zygoteResponseMs = 10_000;

const reportLineBytes = 64 * 1024;
const stderrKeptBytes = 16 * 1024;

/**
 * The zygote process, seen from the host: commands in on stdin, reports out on stdout. It settles
 * `ready` once, with the ready report or a failure message; after that, reports go to `onReport`
 * and its death (or being stuck) to `onDeath`, once.
 */
export class Zygote {
  readonly ready: Promise<ReadyReport | { readonly failure: string }>;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #exited: Promise<void>;
  readonly #unanswered = new Set<number>();
  #watchdog: ReturnType<typeof setTimeout> | undefined;
  #settleReady!: (value: ReadyReport | { readonly failure: string }) => void;
  #isReady = false;
  #dead = false;
  #bootError = false;
  #stderr = '';

  constructor(
    launch: ZygoteLaunch,
    private readonly onReport: (report: ZygoteReport) => void,
    private readonly onDeath: (message: string) => void,
    private readonly responseMs = zygoteResponseMs,
  ) {
    this.ready = new Promise((resolve) => {
      this.#settleReady = resolve;
    });
    this.#child = spawn(launch.executable, [...launch.flags, launch.script, JSON.stringify(launch.config)], {
      env: { ...launch.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.#exited = new Promise((resolve) => this.#child.once('close', () => resolve()));
    const reader = new JsonLineReader(
      reportLineBytes,
      (value) => this.#report(value),
      (problem) => this.#die(`the zygote sent ${problem}`),
    );
    this.#child.stdout.on('data', (chunk: Buffer) => reader.push(chunk));
    this.#child.stderr.on('data', (chunk: Buffer) => {
      if (this.#stderr.length < stderrKeptBytes) this.#stderr += chunk.toString('utf8').slice(0, stderrKeptBytes);
    });
    this.#child.stdin.on('error', () => {});
    this.#child.once('error', (error: NodeJS.ErrnoException) => this.#die(spawnProblem(launch.executable, error)));
    this.#child.once('exit', (code, signal) => {
      const how = signal === null ? `exited with code ${code}` : `was killed by ${signal}`;
      const detail = this.#stderr.trim() === '' ? '' : `: ${this.#stderr.trim().split('\n').slice(-3).join(' / ')}`;
      this.#die(`the Python zygote ${how}${detail}`);
    });
  }

  /** The zygote's process id, once spawned. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  get dead(): boolean {
    return this.#dead;
  }

  /** Whether the zygote refused to boot (a budget gate, an unsupported interpreter): starting another would not help. */
  get bootError(): boolean {
    return this.#bootError;
  }

  /**
   * Asks for one child. Its `started` frame (see {@link answered}) or its `exit` report answers the
   * fork; while forks wait, some answer must come within the response time of the last one.
   */
  fork(run: number, token: string, directory: string): void {
    if (this.#dead) return;
    this.#unanswered.add(run);
    this.#watchdog ??= this.#arm();
    this.#send({ v: wireProtocolVersion, type: 'fork', run, token, directory });
  }

  /** The child of `run` sent `started`: the zygote did answer that fork. */
  answered(run: number): void {
    if (!this.#unanswered.delete(run)) return;
    clearTimeout(this.#watchdog);
    this.#watchdog = this.#unanswered.size > 0 && !this.#dead ? this.#arm() : undefined;
  }

  /** Asks the zygote to kill a child's process group (it knows whether the pid is still that child's). */
  kill(run: number): void {
    if (!this.#dead) this.#send({ v: wireProtocolVersion, type: 'kill', run });
  }

  /**
   * Stops the zygote: closing its stdin makes it kill every child, reap them and exit (their exit
   * reports still arrive). A zygote that does not exit within the grace period is killed.
   */
  async stop(graceMs = 3_000): Promise<void> {
    if (!this.#dead) {
      this.#child.stdin.end();
      const timer = setTimeout(() => this.#die('the Python zygote did not stop in time'), graceMs);
      await this.#exited;
      clearTimeout(timer);
    }
    this.#die('the Python zygote was stopped');
    await this.#exited;
  }

  #arm(): ReturnType<typeof setTimeout> {
    return setTimeout(() => {
      const waiting = this.#unanswered.size;
      const forks = waiting === 1 ? 'the fork' : `any of the ${waiting} forks`;
      this.#die(`the Python zygote did not answer ${forks} waiting on it for ${this.responseMs} ms`);
    }, this.responseMs);
  }

  #send(command: object): void {
    this.#child.stdin.write(`${JSON.stringify(command)}\n`);
  }

  #report(value: unknown): void {
    const parsed = parseZygoteReport(value);
    if (!('frame' in parsed)) {
      this.#die(`the zygote sent ${parsed.problem}`);
      return;
    }
    const report = parsed.frame;
    if (!this.#isReady) {
      if (report.type === 'ready' || report.type === 'boot-error') {
        this.#isReady = true;
        this.#bootError = report.type === 'boot-error';
        this.#settleReady(report.type === 'ready' ? report : { failure: report.message });
        if (report.type === 'boot-error') this.#die(report.message);
        return;
      }
      this.#die(`the zygote sent ${report.type} before ready`);
      return;
    }
    if (report.type === 'exit') this.answered(report.run);
    this.onReport(report);
  }

  #die(message: string): void {
    if (this.#dead) return;
    this.#dead = true;
    clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
    this.#unanswered.clear();
    const pid = this.#child.pid;
    if (pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.#child.stdin.destroy();
    this.#settleReady({ failure: message });
    this.onDeath(message);
  }
}

function spawnProblem(executable: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return `${executable} was not found`;
  if (error.code === 'EACCES') return `${executable} is not executable`;
  return `${executable} could not be started: ${foreignText(error, 512)}`;
}
