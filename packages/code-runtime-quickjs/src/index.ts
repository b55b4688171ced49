export { createQuickJsCodeRuntime, describeQuickJsIsolation, QuickJsCodeRuntime } from './quickjs-code-runtime.js';
export {
  type QuickJsCodeRuntimeSettings,
  type QuickJsDeterministicSettings,
  quickJsDefaults,
  type ResolvedQuickJsSettings,
  resolveQuickJsSettings,
} from './quickjs-settings.js';
