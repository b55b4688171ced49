import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonDepthLimit } from '@sluice/code-runtime';
import type { WorkerProcessBoot } from './worker-process-frames.js';
import type { ResolvedWorkerThreadSettings } from './worker-thread-settings.js';

const mebibyte = 1024 * 1024;
/** Address space a Node process with one worker thread reserves before any program (measured: ~1.2 GiB; 1 GiB fails to boot). */
const baselineAddressSpaceBytes = 2048 * mebibyte;
const maxOpenFiles = 256;
const programNiceness = 5;

/** The OS layers a worker process gets on this machine, found once per host process. */
export interface WorkerProcessContainment {
  /** `unshare --net`: a network namespace with no interfaces up. */
  readonly network: boolean;
  /** rlimits through `/bin/sh`'s `ulimit`: address space, open files, no core dumps, no file writes. */
  readonly rlimits: boolean;
  /**
   * The program's worker thread lowers its own priority (nice +5; Linux priorities are per thread), so
   * the process's main thread — relay, busy-time meter, kills — and the host stay on time under load.
   */
  readonly nice: boolean;
  /** Node's permission model: no file system access beyond the process's own script, no child processes, no addons. */
  readonly permissions: boolean;
}

let probed: WorkerProcessContainment | undefined;

/** Which layers this machine allows. Runs a few short commands, once; never throws. */
export function probeContainment(): WorkerProcessContainment {
  probed ??= {
    network: succeeds('unshare', ['--net', '--', 'true']),
    rlimits: succeeds('/bin/sh', ['-c', 'ulimit -c 0 && ulimit -f 0 && ulimit -n 64 && ulimit -v 4194304']),
    nice: process.platform === 'linux',
    permissions: process.allowedNodeEnvironmentFlags.has('--experimental-permission'),
  };
  return probed;
}

function succeeds(command: string, args: readonly string[]): boolean {
  try {
    const result = spawnSync(command, args, { stdio: 'ignore', env: {}, timeout: 5_000 });
    return result.error === undefined && result.status === 0;
  } catch {
    return false;
  }
}

/** The layers of `containment` that are missing, by name. */
export function missingLayers(containment: WorkerProcessContainment): string[] {
  const names: Record<keyof WorkerProcessContainment, string> = {
    network: 'a network namespace (unshare --net)',
    rlimits: 'rlimits (/bin/sh ulimit)',
    nice: "a lower priority for the program's thread (Linux only)",
    permissions: "Node's permission model",
  };
  return (Object.keys(names) as Array<keyof WorkerProcessContainment>)
    .filter((layer) => !containment[layer])
    .map((layer) => names[layer]);
}

/** The address-space limit of a worker process for a memory budget, in bytes. */
export function addressSpaceBytes(memoryBytes: number): number {
  return baselineAddressSpaceBytes + 2 * memoryBytes;
}

/**
 * The bundled entry of the worker process. It is resolved against the package's `dist/` from
 * both `src/` and `dist/`, so the package's own tests run the built child (build first).
 */
export const workerProcessScript = fileURLToPath(new URL('../dist/worker-process-main.js', import.meta.url));
const packageJson = fileURLToPath(new URL('../package.json', import.meta.url));

/** A started worker process and the private directory it works in (removed by {@link removeDirectory}). */
export interface SpawnedWorkerProcess {
  readonly child: ChildProcess;
  readonly directory: string;
}

/**
 * Starts a worker process with every layer `containment` allows: an empty environment, a private
 * working directory, only stdin/stdout/stderr (pipes), its own network namespace, rlimits and Node's
 * permission model; its worker thread lowers its own priority when `containment.nice` says so. Throws (with a message saying what failed) when the private
 * directory or the process cannot be created; the caller turns that into a `substrate-exit`.
 */
export function spawnWorkerProcess(
  settings: ResolvedWorkerThreadSettings,
  containment: WorkerProcessContainment,
  script = workerProcessScript,
): SpawnedWorkerProcess {
  if (!existsSync(script)) {
    throw new Error(`its script ${script} is missing; build the package first (pnpm build)`);
  }
  let directory: string;
  try {
    directory = mkdtempSync(join(hostFolder(tmpdir()), 'process-'));
  } catch (error) {
    throw new Error(`its private directory could not be created in ${tmpdir()} (${errorCode(error)})`);
  }
  const boot: WorkerProcessBoot = {
    memoryBytes: settings.memoryBytes,
    logBytes: settings.logBytes,
    valueBytes: settings.valueBytes,
    hostCallBytes: settings.hostCallBytes,
    hostCalls: settings.hostCalls,
    timers: settings.timers,
    wallTimeMs: settings.wallTimeMs,
    cpuTimeMs: settings.cpuTimeMs,
    depthLimit: jsonDepthLimit,
    niceness: containment.nice ? programNiceness : 0,
  };
  const node = [
    process.execPath,
    ...(containment.permissions
      ? ['--experimental-permission', '--allow-worker', `--allow-fs-read=${script}`, `--allow-fs-read=${packageJson}`]
      : []),
    '--no-warnings',
    script,
    JSON.stringify(boot),
  ];
  const limits = containment.rlimits
    ? [
        'ulimit -c 0',
        'ulimit -f 0',
        `ulimit -n ${maxOpenFiles}`,
        `ulimit -v ${Math.ceil(addressSpaceBytes(settings.memoryBytes) / 1024)}`,
      ]
    : [];
  const exec = 'exec "$0" "$@"';
  // The shell exports PWD of its own accord; the process gets no environment at all.
  const shell = ['/bin/sh', '-c', [...limits, 'unset PWD', exec].join(' && '), ...node];
  const command = containment.network ? ['unshare', '--net', '--', ...shell] : shell;
  try {
    const child = spawn(command[0]!, command.slice(1), {
      cwd: directory,
      env: {},
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    return { child, directory };
  } catch (error) {
    removeDirectory(directory);
    throw new Error(`the process could not be started (${errorCode(error)})`);
  }
}

/** This host process's folder in each temp directory it used, holding its worker processes' directories. */
const hostFolders = new Map<string, string>();

/**
 * The folder in `base` that holds this host process's worker directories, made on first use with a
 * reaper: a detached `/bin/sh` that waits for its stdin to close and then removes the folder. The
 * host holds the pipe's other end until it exits, however it exits (`kill -9` included), so no
 * `sluice-worker-*` folder outlives the host, while a worker process cannot remove a directory
 * itself (no file system writes). Throws when the folder cannot be made.
 */
function hostFolder(base: string): string {
  const known = hostFolders.get(base);
  if (known !== undefined && existsSync(known)) return known;
  const folder = mkdtempSync(join(base, 'sluice-worker-'));
  hostFolders.set(base, folder);
  try {
    const reaper = spawn('/bin/sh', ['-c', 'cat > /dev/null; rm -rf -- "$0"', folder], {
      // Its own process group: a Ctrl-C to the host's group must not end it before the host has gone.
      detached: true,
      env: { PATH: '/usr/bin:/bin' },
      stdio: ['pipe', 'ignore', 'ignore'],
      windowsHide: true,
    });
    reaper.on('error', () => {});
    reaper.stdin?.on('error', () => {});
    // Neither the reaper nor its pipe keeps the host alive; the pipe closes when the host exits.
    reaper.unref();
    (reaper.stdin as { unref?: () => void } | null)?.unref?.();
  } catch {
    // No reaper (no /bin/sh): the folder stays behind a host that is killed, as before.
  }
  return folder;
}

/** Removes a worker process's private directory; never throws. */
export function removeDirectory(directory: string): void {
  try {
    rmSync(directory, { recursive: true, force: true });
  } catch {
    // Already gone, or not ours to remove any more.
  }
}

function errorCode(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : 'unknown error';
}
