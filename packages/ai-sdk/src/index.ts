export { LoadedTools, type NamespaceGuide } from '@sluice/code-mode';
export {
  type AiSdkRunCodeOutput,
  type AiSdkRunCodeTool,
  type AiSdkRunCodeToolOptions,
  createAiSdkRunCodeTool,
} from './ai-sdk-run-code-tool.js';
export { type ConvertedTools, convertAiSdkTools, type ExecutionOptionsLookup } from './ai-sdk-tools.js';
