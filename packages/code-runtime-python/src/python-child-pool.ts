import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { foreignText } from '@sluice/code-runtime';
import { PythonChild } from './python-child.js';
import { resolveInterpreter, type ZygoteCommand, zygoteCommand } from './python-interpreter.js';
import { missingLayers, privateDirectoryProblem } from './python-isolation.js';
import type { PythonRuntimeConfig } from './python-settings.js';
import { HostSocketServer } from './python-socket-server.js';
import { TokenSource } from './python-tokens.js';
import { Zygote, zygoteResponseMs } from './python-zygote.js';
import type { ReadyReport, ZygoteReport } from './wire-frames.js';

/** Options of {@link PythonChildPool} that only tests change. */
export interface PoolOptions {
  /** Containment layers the zygote must not apply (to show a test fails without them). */
  readonly disabledLayers?: readonly string[];
  /** How long a fork may go unanswered before the zygote is replaced. */
  readonly zygoteResponseMs?: number;
  /** Children forked ahead of demand, contained and waiting for a program. */
  readonly spareChildren?: number;
  /** The first this many forks are sent a malformed token, which the zygote refuses (to show a failed start is retried). */
  readonly refusedForks?: number;
}

/** The zygote script, shipped in the package's `python/` folder. */
export const zygoteScript = fileURLToPath(new URL('../python/sluice_zygote.py', import.meta.url));

/**
 * Interpreter flags: isolated mode but for the environment (`-I` is `-E -s` and a safe path; `-E` would
 * ignore PYTHONHASHSEED, and the zygote's environment is exactly what `zygoteCommand` gives it), no
 * site-packages unless allowed, no bytecode files, UTF-8 mode. The zygote drops its own directory from the path.
 */
export function zygoteFlags(config: PythonRuntimeConfig): string[] {
  return ['-s', ...(config.allowSitePackages ? [] : ['-S']), '-B', '-X', 'utf8'];
}

interface Environment {
  readonly command: ZygoteCommand;
  readonly directory: string;
  readonly server: HostSocketServer;
}

interface ZygoteState {
  readonly environment: Environment;
  readonly zygote: Zygote;
  readonly ready: ReadyReport;
  readonly children: Map<number, PythonChild>;
}

type Failure = { readonly failure: string };

/**
 * Hands out contained, waiting children, one per run. Starts everything lazily: resolves the
 * interpreter once, opens a private directory and socket, boots the zygote, and keeps a few spare
 * children forked ahead. A zygote that dies or stops answering is replaced at the next request.
 */
export class PythonChildPool {
  readonly #spares: PythonChild[] = [];
  readonly #gone = new Set<Promise<void>>();
  readonly #tokens = new TokenSource();
  #environment: Promise<Environment | Failure> | undefined;
  #state: ZygoteState | undefined;
  #starting: Promise<ZygoteState | Failure> | undefined;
  #permanentFailure: string | undefined;
  #lastReady: ReadyReport | undefined;
  #runNumber = 0;
  #refused = 0;
  #closed = false;

  constructor(
    private readonly config: PythonRuntimeConfig,
    private readonly options: PoolOptions = {},
  ) {}

  /** The last zygote's ready report: what this machine applies. */
  get readyReport(): ReadyReport | undefined {
    return this.#lastReady;
  }

  /** Why no child can ever be had, once that is known (no interpreter, a failed budget gate, missing containment). */
  get permanentFailure(): string | undefined {
    return this.#permanentFailure;
  }

  /** A child waiting for its program, or why there is none. A child that dies before it is handed out is replaced. */
  async acquire(): Promise<PythonChild | Failure> {
    let failure = 'the Python child ended before its program started';
    let forkedAgain = false;
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const state = await this.#ensureZygote();
      if ('failure' in state) return state;
      if (this.#closed) return { failure: 'the code runtime was disposed' };
      const spare = this.#spares.shift();
      const child = spare ?? this.#fork(state);
      // A replacement forked now would compete with this run for the CPU; it is forked when this
      // child is gone instead, unless the spares have run dry.
      if (spare === undefined) this.#topUp(state);
      else child.gone.then(() => this.#topUp(state), ignoreRejection);
      const problem = await child.ready;
      if (problem === undefined && child.usable) return child;
      failure = problem ?? failure;
      // A spare may have died while it waited, and a dead zygote is replaced: both are worth another try.
      // A child forked for this run that failed to start (a machine under load, a signal at a bad moment)
      // is forked once more before the run fails.
      if (spare === undefined && !state.zygote.dead) {
        if (forkedAgain) break;
        forkedAgain = true;
      }
    }
    return { failure };
  }

  /**
   * Boots the zygote and forks the spare children ahead of the first run; resolves once they wait
   * for programs: `undefined`, or why no child can be had. Never rejects.
   */
  async warm(): Promise<string | undefined> {
    const state = await this.#ensureZygote();
    if ('failure' in state) return state.failure;
    this.#topUp(state);
    const problems = await Promise.all(this.#spares.map((spare) => spare.ready));
    return this.#spares.length > 0 || problems.length === 0
      ? undefined
      : problems.find((problem) => problem !== undefined);
  }

  /** Kills the spares and the zygote (which kills its children), and removes the private directory. */
  async shutdown(): Promise<void> {
    this.#closed = true;
    for (const spare of this.#spares.splice(0)) spare.discard();
    const state = this.#state ?? (await this.#starting?.catch(() => undefined));
    if (state !== undefined && 'zygote' in state) await state.zygote.stop();
    await Promise.all(this.#gone);
    const environment = await this.#environment;
    if (environment !== undefined && 'server' in environment) {
      await environment.server.close();
      await rm(environment.directory, { recursive: true, force: true });
    }
  }

  async #ensureZygote(): Promise<ZygoteState | Failure> {
    if (this.#permanentFailure !== undefined) return { failure: this.#permanentFailure };
    if (this.#closed) return { failure: 'the code runtime was disposed' };
    if (this.#state !== undefined && !this.#state.zygote.dead) return this.#state;
    this.#starting ??= this.#startZygote().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #startZygote(): Promise<ZygoteState | Failure> {
    const environment = await this.#ensureEnvironment();
    if ('failure' in environment) {
      this.#permanentFailure = environment.failure;
      return environment;
    }
    const { config } = this;
    const children = new Map<number, PythonChild>();
    let state: ZygoteState | undefined;
    let zygote: Zygote;
    try {
      zygote = new Zygote(
        {
          executable: environment.command.command,
          env: environment.command.env,
          flags: zygoteFlags(config),
          script: zygoteScript,
          config: {
            socket: environment.server.path,
            directory: environment.directory,
            memoryBytes: config.memoryBytes,
            cpuSeconds: config.cpuSeconds,
            requiredBytes: config.requiredBytes,
            preloadModules: config.preloadModules,
            readPaths: config.readPaths,
            numericThreads: config.numericThreads,
            figureLimit: config.figureLimit,
            figureBytes: config.figureBytes,
            disabledLayers: this.options.disabledLayers ?? [],
          },
        },
        (report) => this.#route(children, report),
        (message) => {
          for (const child of children.values()) child.orphaned(message);
          if (state !== undefined && this.#state === state) this.#state = undefined;
        },
        this.options.zygoteResponseMs ?? zygoteResponseMs,
      );
    } catch (error) {
      return { failure: `The Python zygote process could not be started: ${foreignText(error, 512)}` };
    }
    const ready = await zygote.ready;
    if ('failure' in ready) {
      // The command is not asked what it is before it starts the zygote (see zygoteCommand); when the
      // zygote does not start, asking says whether the interpreter is the cause, as an operator can act on.
      const interpreter = await resolveInterpreter(config);
      if ('failure' in interpreter) {
        this.#permanentFailure = interpreter.failure;
        return interpreter;
      }
      const message = `The Python zygote did not start: ${ready.failure}`;
      if (zygote.bootError) this.#permanentFailure = message;
      return { failure: message };
    }
    this.#lastReady = ready;
    const missing = missingLayers(ready);
    if (config.requireContainment && missing.length > 0) {
      await zygote.stop();
      this.#permanentFailure = `The requireContainment setting is on, and this machine cannot apply ${missing
        .map(({ layer, reason }) => `${layer} (${reason})`)
        .join(', ')}; no program will run. Turn requireContainment off to run with the layers available.`;
      return { failure: this.#permanentFailure };
    }
    state = { environment, zygote, ready, children };
    this.#state = state;
    return state;
  }

  #ensureEnvironment(): Promise<Environment | Failure> {
    this.#environment ??= (async () => {
      // Unix socket paths are short (108 bytes), so a long TMPDIR falls back to /tmp.
      const base = tmpdir().length > 60 ? '/tmp' : tmpdir();
      let directory: string;
      try {
        directory = await mkdtemp(join(base, 'sluice-python-'));
      } catch (error) {
        return { failure: `The Python runtime cannot run programs: ${privateDirectoryProblem(base, error)}.` };
      }
      try {
        const server = await HostSocketServer.listen(join(directory, 'host.sock'));
        return { command: zygoteCommand(this.config), directory, server };
      } catch (error) {
        await rm(directory, { recursive: true, force: true }).catch(ignoreRejection);
        return {
          failure: `The Python runtime cannot run programs: the host socket could not be opened in ${directory} (${foreignText(error, 512)}).`,
        };
      }
    })();
    return this.#environment;
  }

  #fork(state: ZygoteState): PythonChild {
    const { environment } = state;
    this.#runNumber += 1;
    const runNumber = this.#runNumber;
    const token = this.#tokens.next();
    const directory = join(environment.directory, `r${runNumber}`);
    let child: PythonChild | undefined;
    const unexpect = environment.server.expect(token, (stream, socket, rest) => child?.attach(stream, socket, rest));
    child = new PythonChild(
      runNumber,
      directory,
      { config: this.config, expectedLayers: state.ready.layers },
      state.zygote,
      unexpect,
    );
    state.children.set(runNumber, child);
    const gone = child.gone.then(() => {
      state.children.delete(runNumber);
      this.#gone.delete(gone);
    });
    this.#gone.add(gone);
    const refused = this.#refused < (this.options.refusedForks ?? 0);
    if (refused) this.#refused += 1;
    state.zygote.fork(runNumber, refused ? 'refused' : token, directory);
    return child;
  }

  /**
   * Forks spares up to the target. Total: it runs from promise callbacks, where a throw would be an
   * unhandled rejection. A fork that throws stops it; the next run forks on demand and reports the problem.
   */
  #topUp(state: ZygoteState): void {
    // No more spares than programs may run at once: a runtime of one run at a time needs one.
    const target = Math.min(this.options.spareChildren ?? 2, this.config.poolSize);
    while (!this.#closed && this.#spares.length < target && !state.zygote.dead) {
      let spare: PythonChild;
      try {
        spare = this.#fork(state);
      } catch {
        return;
      }
      this.#spares.push(spare);
      spare.ready.then((problem) => {
        if (problem === undefined) return;
        const index = this.#spares.indexOf(spare);
        if (index !== -1) this.#spares.splice(index, 1);
      }, ignoreRejection);
    }
  }

  #route(children: Map<number, PythonChild>, report: ZygoteReport): void {
    if (report.type === 'exit') children.get(report.run)?.exited(report);
  }
}

/** For promises that never reject by construction (`ready`, `gone`): a rejection path the checker can see. */
function ignoreRejection(): void {}
