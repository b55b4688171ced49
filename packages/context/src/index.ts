export type {
  Capabilities,
  CapabilityDeclaration,
  CapabilityName,
  CapabilityProperties,
} from './capabilities.js';
export {
  type Context,
  type ContextOptions,
  createContext,
  type PluginOptions,
  type ProvideOptions,
} from './context.js';
export { CapabilityConflictError, type CapabilityConflictErrorOptions } from './errors/capability-conflict-error.js';
export { CapabilityMissingError, type CapabilityMissingErrorOptions } from './errors/capability-missing-error.js';
export { ContextDisposedError } from './errors/context-disposed-error.js';
export { InvalidCapabilityError, type InvalidCapabilityErrorOptions } from './errors/invalid-capability-error.js';
export type { CapabilityPlugin, FunctionPlugin, Plugin } from './plugin.js';
