import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BindingEntry, type CodeRuntimeDeterminism, foreignText } from '@sluice/code-runtime';
import { CodeRuntimeBase, type LaunchOptions, type RunController, RunGate } from '@sluice/code-runtime-kit';
import { type PoolOptions, PythonChildPool, zygoteFlags, zygoteScript } from './python-child-pool.js';
import { pythonFingerprint } from './python-fingerprint.js';
import { resolveInterpreterSync, zygoteCommand } from './python-interpreter.js';
import { isolationSentence, privateDirectoryProblem } from './python-isolation.js';
import { type PythonCodeRuntimeSettings, type PythonRuntimeConfig, resolvePythonSettings } from './python-settings.js';
import { parseZygoteReport, type ReadyReport } from './wire-frames.js';

/**
 * Runs Python programs in CPython children forked from a zygote, one fresh child per run, contained
 * by the kernel (see `isolation`). Create it with {@link createPythonCodeRuntime}.
 */
export class PythonCodeRuntime extends CodeRuntimeBase {
  readonly id = 'python';
  readonly language = 'python' as const;
  readonly #pool: PythonChildPool;
  /** `poolSize` programs at once; the rest wait here, their wall clock not yet running. */
  readonly #gate: RunGate;
  #probed: ReadyReport | string | undefined;

  /** Prefer {@link createPythonCodeRuntime}; `options` exist for tests. */
  constructor(
    private readonly config: PythonRuntimeConfig,
    options: PoolOptions = {},
  ) {
    super(config.limits);
    this.#pool = new PythonChildPool(config, options);
    this.#gate = new RunGate(config.poolSize);
  }

  /**
   * What contains a program on this machine, from the layers the zygote's probe really applied.
   * Read before the first run, it probes once, synchronously (about a tenth of a second).
   */
  get isolation(): string {
    const failure = this.#pool.permanentFailure;
    if (failure !== undefined) return `No program can run: ${failure}`;
    if (this.#pool.readyReport === undefined && this.#probed === undefined) {
      try {
        this.#probed = probeSync(this.config);
      } catch (error) {
        // Reading a property must not throw: whatever the probe met is the honest answer.
        this.#probed = `the containment probe failed (${foreignText(error, 512)}), so no containment layer could be applied`;
      }
    }
    const ready = this.#pool.readyReport ?? this.#probed!;
    return typeof ready === 'string' ? `No program can run: ${ready}` : isolationSentence(ready, this.config);
  }

  /**
   * Deterministic runs (`request.deterministic`): a virtual clock, one generator seeded from the
   * seed, and host results delivered one a turn in call order, set up in the run's child only. The
   * fingerprint hashes the runner's Python files, `sys.version` and this package's built host side;
   * read once, it asks the interpreter its version (synchronously, a few hundredths of a second).
   */
  get determinism(): CodeRuntimeDeterminism {
    return { fingerprint: pythonFingerprint(this.config) };
  }

  protected launch(run: RunController, program: string, options: LaunchOptions): void {
    const bindings = bindingNames(run.bindings);
    this.#gate
      .enter(run)
      .then(async (admitted) => {
        if (!admitted) return;
        const child = await this.#pool.acquire();
        if ('failure' in child) {
          run.finish({ ok: false, failure: { kind: 'substrate-exit', message: child.failure } });
        } else if (run.ended) {
          child.discard();
        } else {
          // The child is forked, contained and waiting: from here the time is the program's.
          run.begin();
          child.assign(run, program, bindings, options.deterministic);
        }
      })
      .catch((error: unknown) => {
        // The pool turns every failure it knows of into a `failure`; anything else (a throw from handing
        // the child its program included) still ends the run as a result.
        run.finish({
          ok: false,
          failure: {
            kind: 'substrate-exit',
            message: `The Python runtime could not start a child for the program: ${foreignText(error, 1024)}`,
          },
        });
      });
  }

  /** Resolves the interpreter, boots the zygote and forks the spare children; resolves once they wait for programs. */
  protected override warm(): Promise<string | undefined> {
    return this.#pool.warm();
  }

  protected shutdown(): Promise<void> {
    return this.#pool.shutdown();
  }
}

/**
 * Creates a Python code runtime. Synchronous and free of I/O: settings are checked here (throwing
 * `InvalidSettingsError`); the interpreter is resolved and the zygote started at the first run.
 */
export function createPythonCodeRuntime(settings: PythonCodeRuntimeSettings = {}): PythonCodeRuntime {
  return new PythonCodeRuntime(resolvePythonSettings(settings, process.env));
}

/** The granted names by namespace, as the child offers them to the program. */
function bindingNames(bindings: ReadonlyMap<string, BindingEntry>): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const { namespace, name } of bindings.values()) {
    const list = names.get(namespace) ?? [];
    list.push(name);
    names.set(namespace, list);
  }
  return names;
}

function probeSync(config: PythonRuntimeConfig): ReadyReport | string {
  const report = probeContainment(config);
  if (typeof report !== 'string') return report;
  // The probe did not answer: say what is wrong with the interpreter when that is the cause.
  const interpreter = resolveInterpreterSync(config);
  return 'failure' in interpreter ? interpreter.failure : report;
}

function probeContainment(config: PythonRuntimeConfig): ReadyReport | string {
  let directory: string;
  try {
    directory = mkdtempSync(join(tmpdir(), 'sluice-python-probe-'));
  } catch (error) {
    return `${privateDirectoryProblem(tmpdir(), error)}, so no containment layer could be applied`;
  }
  try {
    const probeConfig = {
      socket: '',
      directory,
      memoryBytes: config.memoryBytes,
      cpuSeconds: config.cpuSeconds,
      requiredBytes: config.requiredBytes,
      disabledLayers: [],
    };
    const { command, env } = zygoteCommand(config);
    const result = spawnSync(command, [...zygoteFlags(config), zygoteScript, JSON.stringify(probeConfig), '--probe'], {
      env: { ...env },
      encoding: 'utf8',
      timeout: 30_000,
      maxBuffer: 64 * 1024,
    });
    let report: unknown;
    try {
      report = JSON.parse(result.stdout.split('\n')[0] ?? '');
    } catch {
      return `the containment probe failed: ${(result.stderr ?? '').trim().split('\n').slice(-1)[0] ?? 'no output'}`;
    }
    const parsed = parseZygoteReport(report);
    if (!('frame' in parsed)) return `the containment probe sent ${parsed.problem}`;
    return parsed.frame.type === 'ready'
      ? parsed.frame
      : `the containment probe failed: ${JSON.stringify(parsed.frame)}`;
  } finally {
    try {
      rmSync(directory, { recursive: true, force: true });
    } catch {
      // A probe directory left behind is a leak, not a reason to fail reading `isolation`.
    }
  }
}
