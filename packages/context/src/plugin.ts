import type { Capabilities, CapabilityName } from './capabilities.js';
import type { Context } from './context.js';
import { InvalidCapabilityError } from './errors/invalid-capability-error.js';

/**
 * A provider packaged for `ctx.plugin`: `create(settings)` builds the value that `ctx.plugin`
 * provides as `capability`. A provider package can export one without depending on this package;
 * the shape is all that counts (write `capability: 'codeRuntime' as const`).
 */
export interface CapabilityPlugin<Name extends CapabilityName = CapabilityName, Settings = unknown> {
  /** The provider's name, used in error messages: `'worker-thread'`. */
  readonly name: string;
  /** The capability it provides. */
  readonly capability: Name;
  /** Builds the value; usually the provider's synchronous factory. */
  create(settings?: Settings): Capabilities[Name];
}

/** A plugin as a function: it receives the context and the settings and provides what it likes. */
export type FunctionPlugin<Settings = unknown> = (ctx: Context, settings?: Settings) => void;

/** Either kind of plugin `ctx.plugin` accepts. */
export type Plugin<Settings = unknown> = CapabilityPlugin<CapabilityName, Settings> | FunctionPlugin<Settings>;

/** The fields of a plugin object, read once. */
export interface PluginParts {
  readonly name: string;
  readonly capability: string;
  readonly create: (settings?: unknown) => unknown;
}

/** Reads a plugin object's fields once. Throws {@link InvalidCapabilityError} when it is not a plugin object. */
export function readPlugin(plugin: unknown): PluginParts {
  const refuse = (problem: string, capability = 'unknown'): never => {
    throw new InvalidCapabilityError({ message: `ctx.plugin: ${problem}.`, capability });
  };
  if (typeof plugin !== 'object' || plugin === null) {
    return refuse(`a plugin must be an object or a function, got ${plugin === null ? 'null' : typeof plugin}`);
  }
  const { name, capability, create } = plugin as Record<string, unknown>;
  if (typeof capability !== 'string') return refuse('a plugin object must name the capability it provides');
  if (typeof name !== 'string' || name === '') {
    return refuse(`the plugin for ${capability} must have a non-empty string name`, capability);
  }
  if (typeof create !== 'function') return refuse(`plugin ${name} must have a create(settings) function`, capability);
  return { name, capability, create: (settings) => create.call(plugin, settings) as unknown };
}
