import * as ai from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describeAiSdkSearchTools } from './ai-sdk-search-tools.test-helper.js';

describeAiSdkSearchTools({
  label: 'ai 6',
  ai,
  steppedModel(responses) {
    const model = new MockLanguageModelV3({ doGenerate: responses });
    return {
      model,
      prompts: () => model.doGenerateCalls.map((call) => call.prompt),
      offered: () =>
        model.doGenerateCalls.map((call) => (call.tools ?? []) as { name: string; description?: string }[]),
    };
  },
});
