import * as ai7 from 'ai-v7';
import { MockLanguageModelV4 } from 'ai-v7/test';
import { describe, expect, it, vi } from 'vitest';
import { compareWeather } from '../examples/compare-weather.js';
import { describeAiSdkRunCodeTool, scriptedResponses } from './ai-sdk-run-code-tool.test-helper.js';

// The adapter and the example import `ai`; in this file that name means ai 7, as it does in an
// application that installed ai 7 (the devDependency `ai-v7` is `ai@7` under another name).
vi.mock('ai', () => import('ai-v7'));

function scriptedModel(toolName: string, input: unknown) {
  const model = new MockLanguageModelV4({ doGenerate: scriptedResponses(toolName, input) });
  return {
    // Typed as ai 6's LanguageModel: the suite is typed against ai 6 and uses only what both share.
    model: model as never,
    prompts: () => model.doGenerateCalls.map((call) => call.prompt),
    offered: () => (model.doGenerateCalls[0]?.tools ?? []) as { name: string; description?: string }[],
  };
}

describe('the ai 7 test setup', () => {
  it('resolves the adapter’s `ai` import to ai 7', async () => {
    const resolved = await import('ai');
    expect(resolved.generateText).toBe(ai7.generateText);
    expect(resolved.asSchema).toBe(ai7.asSchema);
  });

  it('runs the README example', async () => {
    const code = `const reports = await Promise.all(['Oslo', 'Lisbon', 'Nairobi'].map((city) => tools.getWeather({ city })));
return reports.sort((a, b) => b.celsius - a.celsius)[0].city;`;
    const scripted = scriptedModel('run_code', { code });
    expect(await compareWeather(scripted.model)).toBe('Done.');
    expect(JSON.stringify(scripted.prompts()[1])).toContain('\\"Nairobi\\"');
  });
});

describeAiSdkRunCodeTool({
  label: 'ai 7',
  ai: ai7 as unknown as typeof import('ai'),
  scriptedModel,
  // ai 7 gives each tool its own context, from `toolsContext` by tool name.
  contextSettings: (value) => ({ toolsContext: { run_code: value } }),
  readContext: (options) => (options as { context?: unknown }).context,
});
