import {
  builtInDeclarations,
  type Capabilities,
  type CapabilityDeclaration,
  type CapabilityName,
  type CapabilityProperties,
  kindOf,
} from './capabilities.js';
import { CapabilityConflictError } from './errors/capability-conflict-error.js';
import { CapabilityMissingError } from './errors/capability-missing-error.js';
import { ContextDisposedError } from './errors/context-disposed-error.js';
import { InvalidCapabilityError } from './errors/invalid-capability-error.js';
import type { CapabilityPlugin, FunctionPlugin, Plugin } from './plugin.js';
import { readPlugin } from './plugin.js';

/** Options for {@link Context.provide}. */
export interface ProvideOptions {
  /**
   * Replace a capability that is already provided; the old value is disposed. Defaults to `false`,
   * so that a second provider is an error rather than a silent swap.
   */
  readonly replace?: boolean;
  /** Who provides the value, named in error messages. `plugin` sets it to the plugin's name. */
  readonly provider?: string;
}

/** Options for {@link Context.plugin}. */
export interface PluginOptions {
  /** As {@link ProvideOptions.replace}. */
  readonly replace?: boolean;
}

/** Options for {@link createContext}. */
export interface ContextOptions {
  /** Declarations of capabilities beyond the built-in `codeRuntime`, by name. */
  readonly capabilities?: { readonly [Name in CapabilityName]?: CapabilityDeclaration };
}

/**
 * The capability registry. Providers are plugged in where the context is created; consumers read
 * capabilities as properties (`ctx.codeRuntime`) or with {@link Context.get}. Every method except
 * `dispose` throws {@link ContextDisposedError} once the context is disposed.
 */
export interface Context extends CapabilityProperties {
  /**
   * Holds `value` as capability `name`. Throws {@link CapabilityConflictError} when the name is
   * taken, unless `replace` is set, and {@link InvalidCapabilityError} when the value fails the
   * capability's check. A replaced value's `dispose()` is called at once and not awaited.
   */
  provide<Name extends CapabilityName>(name: Name, value: Capabilities[Name], options?: ProvideOptions): void;
  /** Provides `plugin.create(settings)` as `plugin.capability`. Checks for a conflict before creating anything. */
  plugin<Name extends CapabilityName, Settings>(
    plugin: CapabilityPlugin<Name, Settings>,
    settings?: Settings,
    options?: PluginOptions,
  ): void;
  /** Calls `plugin(ctx, settings)`, which provides what it likes. */
  plugin<Settings>(plugin: FunctionPlugin<Settings>, settings?: Settings): void;
  /** The capability `name`. Throws {@link CapabilityMissingError}, naming what to install, when nobody provided it. */
  get<Name extends CapabilityName>(name: Name): Capabilities[Name];
  /** Whether capability `name` is provided. */
  has(name: CapabilityName): boolean;
  /** Records what provides capability `name`, for the error when it is missing. Replaces an earlier declaration. */
  declare(name: CapabilityName, declaration: CapabilityDeclaration): void;
  /** Stops holding capability `name` and resolves once its value is disposed. Does nothing when it is not provided. */
  remove(name: CapabilityName): Promise<void>;
  /**
   * Disposes every value held, each once, in reverse order of provision, and waits for the disposal
   * of replaced values. Idempotent: later calls return the same promise. Rejects with an
   * `AggregateError` when any `dispose()` failed, after trying them all.
   */
  dispose(): Promise<void>;
}

/** Creates an empty context that already knows how to explain a missing `codeRuntime`. */
export function createContext(options: ContextOptions = {}): Context {
  return new RegistryContext(options) as unknown as Context;
}

interface Held {
  readonly value: unknown;
  readonly provider: string | undefined;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const contextMembers = ['provide', 'plugin', 'get', 'has', 'declare', 'remove', 'dispose'];
// A capability property must not hide a context method or an Object.prototype member, and `then`
// would make the context look like a promise to `await`.
const reservedNames = new Set([...contextMembers, 'then', ...Object.getOwnPropertyNames(Object.prototype)]);

class RegistryContext {
  readonly #held = new Map<string, Held>();
  readonly #declarations = new Map<string, CapabilityDeclaration>();
  readonly #pending = new Set<Promise<void>>();
  readonly #failures: { readonly name: string; readonly error: unknown }[] = [];
  #disposed = false;
  #disposal: Promise<void> | undefined;

  constructor(options: ContextOptions) {
    for (const [name, declaration] of builtInDeclarations) this.#declare(name, declaration);
    for (const [name, declaration] of Object.entries(options.capabilities ?? {})) {
      if (declaration !== undefined) this.#declare(name, declaration);
    }
  }

  provide(name: string, value: unknown, options: ProvideOptions = {}): void {
    this.#assertLive();
    this.#checkName(name);
    if (value === undefined) {
      throw new InvalidCapabilityError({
        message: `Cannot provide undefined as ${name}; to take a capability away, call ctx.remove('${name}').`,
        capability: name,
      });
    }
    const problem = this.#declarations.get(name)?.check?.(value);
    if (problem !== undefined) {
      throw new InvalidCapabilityError({ message: `The value provided as ${name} ${problem}.`, capability: name });
    }
    const previous = this.#held.get(name);
    if (previous !== undefined && options.replace !== true) throw conflict(name, previous);
    this.#held.delete(name);
    this.#held.set(name, { value, provider: options.provider });
    this.#expose(name);
    if (previous !== undefined && !this.#holds(previous.value)) {
      const disposal = disposeValue(previous.value).catch((error: unknown) => {
        this.#failures.push({ name, error });
      });
      this.#pending.add(disposal);
      const settled = () => this.#pending.delete(disposal);
      disposal.then(settled, settled);
    }
  }

  plugin(plugin: Plugin, settings?: unknown, options: PluginOptions = {}): void {
    this.#assertLive();
    if (typeof plugin === 'function') {
      plugin(this as unknown as Context, settings);
      return;
    }
    const parts = readPlugin(plugin);
    this.#checkName(parts.capability);
    const previous = this.#held.get(parts.capability);
    if (previous !== undefined && options.replace !== true) throw conflict(parts.capability, previous);
    const value = parts.create(settings);
    try {
      this.provide(parts.capability, value, { replace: options.replace ?? false, provider: parts.name });
    } catch (error) {
      // The value was made for this context and refused by it: nobody else will dispose it.
      void disposeValue(value).catch(() => undefined);
      throw error;
    }
  }

  get(name: string): unknown {
    this.#assertLive();
    if (typeof name !== 'string') {
      throw new InvalidCapabilityError({
        message: `A capability name must be a string, got ${kindOf(name)}.`,
        capability: kindOf(name),
      });
    }
    const held = this.#held.get(name);
    if (held === undefined) throw missing(name, this.#declarations.get(name));
    return held.value;
  }

  has(name: string): boolean {
    this.#assertLive();
    return this.#held.has(name);
  }

  declare(name: string, declaration: CapabilityDeclaration): void {
    this.#assertLive();
    this.#declare(name, declaration);
  }

  async remove(name: string): Promise<void> {
    this.#assertLive();
    const held = this.#held.get(name);
    if (held === undefined) return;
    this.#held.delete(name);
    if (!this.#holds(held.value)) await disposeValue(held.value);
  }

  dispose(): Promise<void> {
    if (this.#disposal === undefined) {
      this.#disposed = true;
      this.#disposal = this.#disposeAll();
    }
    return this.#disposal;
  }

  async #disposeAll(): Promise<void> {
    const held = [...this.#held].reverse();
    this.#held.clear();
    const disposed = new Set<unknown>();
    for (const [name, { value }] of held) {
      if (disposed.has(value)) continue;
      disposed.add(value);
      try {
        await disposeValue(value);
      } catch (error) {
        this.#failures.push({ name, error });
      }
    }
    await Promise.all(this.#pending);
    if (this.#failures.length > 0) {
      const names = this.#failures.map((failure) => failure.name).join(', ');
      throw new AggregateError(
        this.#failures.map((failure) => failure.error),
        `Disposing the context: ${this.#failures.length} dispose() call(s) failed (${names}).`,
      );
    }
  }

  #declare(name: string, declaration: CapabilityDeclaration): void {
    this.#checkName(name);
    const install = (declaration as Partial<CapabilityDeclaration> | null)?.install;
    if (!Array.isArray(install) || !install.every((entry) => typeof entry === 'string')) {
      throw new InvalidCapabilityError({
        message: `The declaration of ${name} must list the packages that provide it in install: string[].`,
        capability: name,
      });
    }
    this.#declarations.set(name, { install: [...install], check: declaration.check });
    this.#expose(name);
  }

  // Defines `ctx.<name>` as a getter that reads through `get`, so a missing capability explains itself.
  #expose(name: string): void {
    if (Object.hasOwn(this, name)) return;
    Object.defineProperty(this, name, { get: () => this.get(name), enumerable: false, configurable: false });
  }

  #holds(value: unknown): boolean {
    for (const held of this.#held.values()) if (held.value === value) return true;
    return false;
  }

  #checkName(name: unknown): asserts name is string {
    if (typeof name !== 'string' || !identifier.test(name)) {
      throw new InvalidCapabilityError({
        message: `A capability name must be an identifier such as codeRuntime, got ${kindOf(name)}.`,
        capability: kindOf(name),
      });
    }
    if (reservedNames.has(name)) {
      throw new CapabilityConflictError({
        message: `"${name}" cannot be a capability name: ctx.${name} is reserved by the context itself.`,
        capability: name,
      });
    }
  }

  #assertLive(): void {
    if (this.#disposed) {
      throw new ContextDisposedError({ message: 'This context was disposed; create a new one with createContext().' });
    }
  }
}

async function disposeValue(value: unknown): Promise<void> {
  if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return;
  const dispose = (value as { dispose?: unknown }).dispose;
  if (typeof dispose === 'function') await dispose.call(value);
}

function conflict(name: string, previous: Held): CapabilityConflictError {
  const by = previous.provider === undefined ? '' : ` by ${previous.provider}`;
  return new CapabilityConflictError({
    message: `${name} is already provided${by}. Pass { replace: true } to replace it; the old value is then disposed.`,
    capability: name,
  });
}

function missing(name: string, declaration: CapabilityDeclaration | undefined): CapabilityMissingError {
  const install = declaration?.install ?? [];
  const how = `ctx.provide('${name}', value) or ctx.plugin(plugin, settings)`;
  const message =
    install.length === 0
      ? `No ${name} is provided to this context, and no package declared it. Provide it where the context is created: ${how}.`
      : `No ${name} is provided to this context. Install ${listOf(install)} and provide it where the context is created: ${how}.`;
  return new CapabilityMissingError({ message, capability: name, install });
}

function listOf(packages: readonly string[]): string {
  if (packages.length === 1) return packages[0]!;
  return `${packages.slice(0, -1).join(', ')} or ${packages.at(-1)!}`;
}
