import { type CodeRuntime, specificationVersion } from '@sluice/code-runtime';

/**
 * Every capability a context can hold, by name. Packages add their own by declaration merging:
 * `declare module '@sluice/context' { interface Capabilities { clock: Clock } }`. A name that is
 * also a member of {@link Context} (`get`, `provide`) fails to compile.
 */
export interface Capabilities {
  /**
   * Runs programs. Provided by `@sluice/code-runtime-worker-thread` or `@sluice/code-runtime-quickjs`
   * (TypeScript), or `@sluice/code-runtime-python`.
   */
  codeRuntime: CodeRuntime;
}

/** The name of a capability: a key of {@link Capabilities}. */
export type CapabilityName = keyof Capabilities & string;

/** Every capability as a read-only property, which is what types `ctx.codeRuntime` from {@link Capabilities}. */
export type CapabilityProperties = { readonly [Name in CapabilityName]: Capabilities[Name] };

/** What a context knows about a capability before anyone provides it. */
export interface CapabilityDeclaration {
  /** Packages that provide the capability, any one of which will do. A missing capability's error names them. */
  readonly install: readonly string[];
  /**
   * Why `value` cannot serve as this capability, or `undefined` when it can. `provide` runs it and
   * throws `InvalidCapabilityError` with the answer.
   */
  readonly check?: (value: unknown) => string | undefined;
}

/** The capabilities every context knows from the start. */
export const builtInDeclarations: ReadonlyMap<string, CapabilityDeclaration> = new Map([
  [
    'codeRuntime',
    {
      install: ['@sluice/code-runtime-worker-thread', '@sluice/code-runtime-quickjs', '@sluice/code-runtime-python'],
      check: codeRuntimeProblem,
    },
  ],
]);

function codeRuntimeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `must be a CodeRuntime object, got ${kindOf(value)}`;
  const runtime = value as Partial<Record<keyof CodeRuntime, unknown>>;
  if (runtime.specificationVersion !== specificationVersion) {
    return `must implement ${specificationVersion}, got specificationVersion ${kindOf(runtime.specificationVersion)}`;
  }
  for (const method of ['start', 'run', 'dispose'] as const) {
    if (typeof runtime[method] !== 'function') return `must have a ${method}() method`;
  }
  return undefined;
}

/** A short description of a value for error messages: its JSON for strings, its type otherwise. */
export function kindOf(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (value === null) return 'null';
  return typeof value;
}
