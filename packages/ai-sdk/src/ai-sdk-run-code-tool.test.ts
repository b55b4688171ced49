import * as ai from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describeAiSdkRunCodeTool, scriptedResponses } from './ai-sdk-run-code-tool.test-helper.js';

describeAiSdkRunCodeTool({
  label: 'ai 6',
  ai,
  scriptedModel(toolName, input) {
    const model = new MockLanguageModelV3({ doGenerate: scriptedResponses(toolName, input) });
    return {
      model,
      prompts: () => model.doGenerateCalls.map((call) => call.prompt),
      offered: () => (model.doGenerateCalls[0]?.tools ?? []) as { name: string; description?: string }[],
    };
  },
  contextSettings: (value) => ({ experimental_context: value }),
  readContext: (options) => (options as { experimental_context?: unknown }).experimental_context,
});
