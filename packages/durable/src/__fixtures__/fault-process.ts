// The test side of fault-host.ts: spawns a host process, waits for its markers with a deadline
// (every wait names what it waited for and shows the host's output when it gives up), signals it,
// and makes sure it is gone when the test ends (a stopped process is killed too: SIGKILL ends it).
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** How a host process ended. */
export interface HostExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const fixture = join(import.meta.dirname, 'fault-host.ts');
const packageDirectory = join(import.meta.dirname, '..', '..');

/** Every host spawned and not yet disposed, for the test's `afterEach`. */
const live = new Set<HostProcess>();

export class HostProcess {
  readonly name: string;
  readonly #child: ChildProcess;
  readonly #lines: string[] = [];
  #output = '';
  #partial = '';
  readonly #listeners = new Set<() => void>();
  readonly #exit: Promise<HostExit>;
  #exited: HostExit | undefined;

  /** `args`: fault-host.ts's arguments (store kind, location, run id, mode, ledger, key=value...). */
  constructor(name: string, args: readonly string[]) {
    this.name = name;
    this.#child = spawn(process.execPath, ['--import', 'tsx', fixture, ...args], {
      cwd: packageDirectory,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(this);
    this.#child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.#output += chunk;
      const parts = (this.#partial + chunk).split('\n');
      this.#partial = parts.pop() ?? '';
      this.#lines.push(...parts);
      for (const listener of this.#listeners) listener();
    });
    this.#child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.#output += chunk;
    });
    this.#exit = new Promise((resolve) => {
      this.#child.on('exit', (code, signal) => {
        this.#exited = { code, signal };
        resolve(this.#exited);
        for (const listener of this.#listeners) listener();
      });
    });
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** All the host printed (stdout and stderr), for failure messages. */
  get output(): string {
    return this.#output;
  }

  /**
   * Resolves with the first stdout line starting with `prefix` (or matching it); rejects after `withinMs`, or when the
   * host exits without printing it, with a message naming `what` and the host's output.
   */
  waitFor(prefix: string | RegExp, withinMs: number, what: string): Promise<string> {
    const matches = (line: string) => (typeof prefix === 'string' ? line.startsWith(prefix) : prefix.test(line));
    return new Promise((resolve, reject) => {
      const check = () => {
        const line = this.#lines.find(matches);
        if (line !== undefined) done(() => resolve(line));
        else if (this.#exited !== undefined)
          done(() => reject(this.#failure(`exited (${JSON.stringify(this.#exited)}) before ${what}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(this.#failure(`did not show ${what} (\`${String(prefix)}\`) within ${withinMs} ms`))),
        withinMs,
      );
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        settle();
      };
      this.#listeners.add(check);
      check();
    });
  }

  /** The outcome the host printed (`outcome <JSON>`), waited for as {@link waitFor} does. */
  async outcome(withinMs: number): Promise<Record<string, unknown>> {
    const line = await this.waitFor('outcome ', withinMs, 'its outcome');
    return JSON.parse(line.slice('outcome '.length)) as Record<string, unknown>;
  }

  /** Sends `signal` (a no-op once the host has exited). */
  signal(signal: NodeJS.Signals): void {
    if (this.#exited === undefined) this.#child.kill(signal);
  }

  /** Resolves with how the host ended; rejects after `withinMs` with `what` and its output. */
  async exited(withinMs: number, what = 'its exit'): Promise<HostExit> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(this.#failure(`did not exit within ${withinMs} ms (${what})`)), withinMs);
    });
    try {
      return await Promise.race([this.#exit, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills the host if it still runs (SIGKILL ends a stopped process too) and waits for it. */
  async dispose(): Promise<void> {
    live.delete(this);
    if (this.#exited === undefined) {
      this.#child.kill('SIGKILL');
      await this.exited(10_000, 'after SIGKILL').catch(() => {});
    }
  }

  #failure(message: string): Error {
    return new Error(`host ${this.name} (pid ${this.pid}) ${message}; its output:\n${this.#output.slice(-4000)}`);
  }
}

/** Disposes every host still alive: call it in `afterEach`/`afterAll`. */
export async function disposeHosts(): Promise<void> {
  await Promise.all([...live].map((host) => host.dispose()));
}
