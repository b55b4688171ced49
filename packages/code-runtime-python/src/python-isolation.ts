import { foreignText } from '@sluice/code-runtime';
import type { PythonRuntimeConfig } from './python-settings.js';
import type { ReadyReport } from './wire-frames.js';

/** The containment layers that depend on the machine; every other layer is always applied. */
export const optionalLayers = ['capabilities', 'landlock', 'seccomp'] as const;

/** Layers the zygote's probe could not apply here, with why. */
export function missingLayers(ready: ReadyReport): Array<{ layer: string; reason: string }> {
  return optionalLayers
    .filter((layer) => !ready.layers.includes(layer))
    .map((layer) => ({ layer, reason: ready.problems[layer] ?? 'not applied' }));
}

const mebibyte = 1024 * 1024;

/**
 * The `isolation` sentence, built from what the zygote's probe really applied on this machine:
 * each layer that holds, and for each one missing what a program can then do.
 */
export function isolationSentence(ready: ReadyReport, config: PythonRuntimeConfig): string {
  const has = (layer: string) => ready.layers.includes(layer);
  const problem = (layer: string) => ready.problems[layer] ?? 'not applied';
  const memory = ready.addressSpaceBytes ?? config.memoryBytes;
  const cpu = ready.cpuSeconds ?? config.cpuSeconds;
  const parts = [
    `Each run is its own CPython ${ready.version} process, forked from a zygote and never reused, in its own session, with an empty environment, a private working directory removed afterwards, no inherited file descriptors, and rlimits (address space ${Math.round(memory / mebibyte)} MiB, CPU ${cpu} s, files 64 MiB, 64 open files, no core dumps)${has('capabilities') ? ' and no capabilities' : ''}.`,
  ];
  if (has('landlock')) {
    const extras = [
      ...(has('landlock-network') ? ['no TCP'] : []),
      ...(has('landlock-scopes') ? ['no signals or abstract sockets outside the run'] : []),
    ];
    const readable = [
      'the interpreter and system libraries',
      ...(config.preloadModules.length > 0
        ? [`the packages and data of the modules it starts with (${config.preloadModules.join(', ')})`]
        : []),
      ...(config.readPaths.length > 0 ? [config.readPaths.join(', ')] : []),
    ];
    parts.push(
      `Landlock (ABI ${ready.landlockAbi}) lets it read only ${readable.join(', ')} and write only its working directory${extras.length > 0 ? `, with ${extras.join(' and ')}` : ''}.`,
    );
  } else {
    parts.push(
      `Landlock is not applied (${problem('landlock')}), so it can read and write whatever the host's user can, /proc of other processes included.`,
    );
  }
  if (has('seccomp')) {
    parts.push(
      'A seccomp filter refuses new sockets, exec, new processes, ptrace and calls that reach other processes.',
    );
  } else {
    parts.push(
      `No seccomp filter is applied (${problem('seccomp')}), so it can open sockets, run programs and start processes; its process group and stray descendants are killed when the run ends.`,
    );
  }
  if (!has('capabilities') && ready.euid === 0) {
    parts.push(`It keeps root's capabilities (${problem('capabilities')}), so it can raise its own limits.`);
  }
  parts.push(
    `It shares the host's kernel and user id (${ready.euid === 0 ? 'root' : `uid ${ready.euid}`}): a kernel exploit escapes. Nothing relies on Python-level restrictions.`,
  );
  return parts.join(' ');
}

/** Why the private directory could not be made in `base`, for `isolation` and a `substrate-exit` message. */
export function privateDirectoryProblem(base: string, error: unknown): string {
  return `the private working directory could not be created in ${base} (${foreignText(error, 512)})`;
}
