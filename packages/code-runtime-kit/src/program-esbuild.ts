import { createRequire } from 'node:module';
import type { Message } from 'esbuild';

/** What esbuild made of a wrapped program. */
export type Stripped =
  | { readonly kind: 'code'; readonly code: string; readonly map: string }
  | { readonly kind: 'error'; readonly message: Message }
  | { readonly kind: 'stopped' };

/** The two things preparation asks of esbuild. */
export interface EsbuildWork {
  /** Strips a wrapped program's TypeScript, with a source map back to `program.ts`. Never rejects. */
  readonly strip: (text: string) => Promise<Stripped>;
  /** ts-blank-space bundled as CommonJS, `typescript` left to the `require` it is given. */
  readonly bundleBlanker: () => Promise<string>;
}

let work: EsbuildWork = { strip: stripHere, bundleBlanker: bundleBlankerHere };

/**
 * Where preparation's esbuild work is done: in this thread by default. The compile thread hands
 * it to the host's main thread (`useEsbuildWork`), so esbuild's service is a child the main thread
 * started and reaps: a thread that is terminated cannot reap the children it started, and
 * terminating the compile thread is how a compile is stopped.
 */
export function esbuildWork(): EsbuildWork {
  return work;
}

/** Replaces where preparation's esbuild work is done; the compile thread's entry calls it. */
export function useEsbuildWork(next: EsbuildWork): void {
  work = next;
}

/** {@link EsbuildWork.strip} in this thread, through its own esbuild service. */
export async function stripHere(text: string, retry = true): Promise<Stripped> {
  // Loaded when first needed: a host that runs only plain JavaScript never loads it.
  const { stop, transform } = await import('esbuild');
  try {
    const output = await transform(text, {
      loader: 'ts',
      sourcemap: 'external',
      sourcefile: 'program.ts',
      target: 'node20',
      supported: { 'dynamic-import': false },
      logLevel: 'silent',
    });
    return { kind: 'code', code: output.code, map: output.map };
  } catch (error) {
    const first = (error as { errors?: Message[] }).errors?.[0];
    if (first !== undefined) return { kind: 'error', message: first };
    // Not the program's fault: esbuild's service process died (killed, out of memory). A
    // stopped service restarts on the next call, so try once more before giving up.
    if (!retry) return { kind: 'stopped' };
    await stop();
    return stripHere(text, false);
  }
}

/** {@link EsbuildWork.bundleBlanker} in this thread, through its own esbuild service. */
export async function bundleBlankerHere(): Promise<string> {
  const { build } = await import('esbuild');
  const entry = createRequire(import.meta.url).resolve('ts-blank-space');
  const output = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['typescript'],
    logLevel: 'silent',
  });
  const file = output.outputFiles[0];
  if (file === undefined) throw new Error('esbuild produced no bundle of ts-blank-space');
  return file.text;
}
