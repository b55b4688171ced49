import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAiSdkRunCodeTool } from './ai-sdk-run-code-tool.js';
import { scriptedResponses } from './ai-sdk-run-code-tool.test-helper.js';
import { LoadedTools } from './index.js';

const runtime = createWorkerThreadCodeRuntime({ wallTimeMs: 30_000 });
afterAll(() => runtime.dispose());

const toolSet = {
  getWeather: tool({
    description: 'The current weather in a city.',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, celsius: 21 }),
  }),
  crm__findCustomer: tool({
    description: 'Find a customer record by email address.',
    inputSchema: z.object({ email: z.string() }),
    execute: async ({ email }) => ({ email, name: 'Ada' }),
  }),
};

const namespaces = [
  { name: 'crm', description: 'Customer records.', instructions: 'Look customers up by email.', deferred: true },
];

/** The `run_code` description the model was offered in each of its calls. */
function offeredDescriptions(model: MockLanguageModelV3): string[] {
  return model.doGenerateCalls.map(
    (call) => (call.tools?.[0] as { description?: string } | undefined)?.description ?? '',
  );
}

describe('createAiSdkRunCodeTool with deferred tools', () => {
  it('declares a deferred tool only from the step after a program loads it', async () => {
    const loadedTools = new LoadedTools();
    const runCode = await createAiSdkRunCodeTool({ tools: toolSet, runtime, namespaces, loadedTools });
    expect(runCode.description).toContain('getWeather(input:');
    expect(runCode.description).not.toContain('findCustomer');

    const code = `await sluice.loadTools(['crm.findCustomer']); return await crm.findCustomer({ email: 'ada@example.com' });`;
    const model = new MockLanguageModelV3({ doGenerate: scriptedResponses('run_code', { code }) });
    await generateText({ model, tools: { run_code: runCode }, prompt: 'Go.', stopWhen: stepCountIs(2) });

    const [first, second] = offeredDescriptions(model);
    expect(first).not.toContain('findCustomer');
    expect(second).toContain('findCustomer(input: {');
    expect(second).toContain('Look customers up by email.');
    expect(loadedTools.values()).toEqual(['crm.findCustomer']);
  });

  it('keeps what the conversation loaded in a tool made later with the same set', async () => {
    const loadedTools = new LoadedTools({ paths: ['crm.findCustomer'] });
    const runCode = await createAiSdkRunCodeTool({ tools: toolSet, runtime, namespaces, loadedTools });
    expect(runCode.description).toContain('findCustomer(input: {');
    const fresh = await createAiSdkRunCodeTool({ tools: toolSet, runtime, namespaces });
    expect(fresh.description).not.toContain('findCustomer');
  });
});
