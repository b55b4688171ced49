import * as ai7 from 'ai-v7';
import { MockLanguageModelV4 } from 'ai-v7/test';
import { vi } from 'vitest';
import { describeAiSdkSearchTools } from './ai-sdk-search-tools.test-helper.js';

// The adapter imports `ai`; in this file that name means ai 7 (see ai-sdk-run-code-tool-v7.test.ts).
vi.mock('ai', () => import('ai-v7'));

describeAiSdkSearchTools({
  label: 'ai 7',
  ai: ai7 as unknown as typeof import('ai'),
  steppedModel(responses) {
    const model = new MockLanguageModelV4({ doGenerate: responses });
    return {
      // Typed as ai 6's LanguageModel: the suite is typed against ai 6 and uses only what both share.
      model: model as never,
      prompts: () => model.doGenerateCalls.map((call) => call.prompt),
      offered: () =>
        model.doGenerateCalls.map((call) => (call.tools ?? []) as { name: string; description?: string }[]),
    };
  },
});
