export {
  countTokens,
  type DeclarationsOptions,
  defaultDeclarationsTokenBudget,
  estimateTokens,
  generateDeclarations,
  type ToolDeclarations,
} from './declarations.js';
export { maxShownInstructions } from './declarations-catalog.js';
export {
  type DeclaredTool,
  type NamespaceGuide,
  oneLineSummary,
  summaryLength,
  type ToolPlacement,
} from './declarations-entry.js';
export type { UntypedResults } from './declarations-tool-content.js';
export { LoadedTools } from './loaded-tools.js';
export {
  createReadOutputTool,
  type ReadOutputAnswer,
  type ReadOutputTool,
  readOutputToolName,
} from './read-output-tool.js';
export {
  defaultResultTokenBudget,
  minResultTokenBudget,
  type RenderedResult,
  type RenderResultOptions,
  renderResult,
} from './result-budget.js';
export {
  type ImageContent,
  maxResultImageBytes,
  maxResultImages,
  type TakenImages,
  takeImages,
} from './result-images.js';
export { formatBytes, type RenderedSections, renderSections, summaryLine, usageFacts } from './result-render.js';
export {
  defaultSpillRetentionMs,
  maxSpillRetentionMs,
  minSpillRetentionMs,
  type OutputPage,
  ResultSpill,
  type ResultSpillOptions,
} from './result-spill.js';
export { type RunCodeStructuredResult, runCodeOutputSchema, structuredResult } from './result-structured.js';
export { type RunCodeDescriptionInput, runCodeDescription } from './run-code-description.js';
export type { RunCodeDurableOptions } from './run-code-durable.js';
export {
  createRunCodeTool,
  type RunCodeDecision,
  type RunCodeInput,
  type RunCodeOutcome,
  type RunCodeResultOptions,
  type RunCodeRunOptions,
  type RunCodeTool,
  type RunCodeToolOptions,
} from './run-code-tool.js';
export {
  describeLimits,
  formatMs,
  type RuntimeLimits,
  readRuntimeLimits,
  runtimeLimitNames,
} from './runtime-limits.js';
export type { JsonSchema } from './schema-model.js';
export {
  discoveryNamespace,
  maxSearchResults,
  type NamespaceDescription,
  ToolDiscovery,
  type ToolDiscoveryOptions,
  type ToolSearchHit,
} from './tool-discovery.js';
export type { ToolSearchOptions } from './tool-search.js';
