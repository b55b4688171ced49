export { LoadedTools, type NamespaceGuide, type ToolSearchHit } from '@sluice/code-mode';
export {
  type AiSdkDurableCodeMode,
  type AiSdkResumeRunInput,
  type AiSdkResumeRunTool,
  createAiSdkDurableCodeMode,
} from './ai-sdk-durable.js';
export {
  type AiSdkCodeModeTools,
  type AiSdkRunCodeOutput,
  type AiSdkRunCodeTool,
  type AiSdkRunCodeToolOptions,
  createAiSdkCodeModeTools,
  createAiSdkRunCodeTool,
} from './ai-sdk-run-code-tool.js';
export type { AiSdkSearchToolsInput, AiSdkSearchToolsOutput, AiSdkSearchToolsTool } from './ai-sdk-search-tools.js';
export { type ConvertedTools, convertAiSdkTools, type ExecutionOptionsLookup } from './ai-sdk-tools.js';
