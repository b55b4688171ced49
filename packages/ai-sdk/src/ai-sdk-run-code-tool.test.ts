import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAiSdkRunCodeTool } from './ai-sdk-run-code-tool.js';

const runtime = createWorkerThreadCodeRuntime({ wallTimeMs: 30_000 });
afterAll(() => runtime.dispose());

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};

/** A model that first calls run_code with `code`, then answers with text. */
function modelCalling(code: string): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'run_code', input: JSON.stringify({ code }) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      {
        content: [{ type: 'text', text: 'Done.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      },
    ],
  });
}

function weatherTools(calls: { city: string; toolCallId: string }[]) {
  return {
    getWeather: tool({
      description: 'The current weather in a city.',
      inputSchema: z.object({ city: z.string().describe('The city name.') }),
      execute: async ({ city }, { toolCallId }) => {
        calls.push({ city, toolCallId });
        return { city, celsius: city.length * 2, observedAt: new Date(0) };
      },
    }),
    deleteCity: tool({
      description: 'Remove a city from the map.',
      inputSchema: jsonSchema<{ city: string }>({
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      }),
      needsApproval: true,
      execute: async () => 'deleted',
    }),
    askUser: tool({
      description: 'Answered by the client, so it has no execute.',
      inputSchema: z.object({ question: z.string() }),
    }),
  };
}

describe('createAiSdkRunCodeTool', () => {
  it('gives the model one run_code tool whose program calls the toolset', async () => {
    const calls: { city: string; toolCallId: string }[] = [];
    const runCode = await createAiSdkRunCodeTool({ tools: weatherTools(calls), runtime });
    const model = modelCalling(
      `const cities = ['Oslo', 'Lisbon', 'Nairobi'];
       const reports = await Promise.all(cities.map((city) => tools.getWeather({ city })));
       console.log('checked', reports.length, 'cities');
       return reports.map((report) => report.city + ': ' + report.celsius + ' C, ' + report.observedAt);`,
    );
    const result = await generateText({
      model,
      tools: { run_code: runCode },
      prompt: 'How warm is it in Oslo, Lisbon and Nairobi?',
      stopWhen: stepCountIs(2),
    });

    expect(result.text).toBe('Done.');
    const offered = model.doGenerateCalls[0]!.tools ?? [];
    expect(offered.map((entry) => entry.name)).toEqual(['run_code']);
    const description = (offered[0] as { description?: string }).description ?? '';
    expect(description).toContain('declare const tools');
    expect(description).toContain('getWeather(input: {');
    expect(description).toContain('deleteCity');
    expect(description).not.toContain('askUser');

    expect(calls.map((call) => call.city).sort()).toEqual(['Lisbon', 'Nairobi', 'Oslo']);
    expect(calls.every((call) => call.toolCallId.startsWith('call-1/'))).toBe(true);
    const output = result.steps[0]!.toolResults[0]!.output as string;
    expect(output).toContain('[run_code] ok');
    expect(output).toContain('checked 3 cities');
    expect(output).toContain('"Oslo: 8 C, 1970-01-01T00:00:00.000Z"');
    // The model reads the rendered text as it is, not as a JSON string.
    const secondPrompt = JSON.stringify(model.doGenerateCalls[1]!.prompt);
    expect(secondPrompt).toContain('"type":"text","value":"[run_code] ok');
  });

  it('asks before a needsApproval tool, and denies it when nobody can approve', async () => {
    const runCode = await createAiSdkRunCodeTool({ tools: weatherTools([]), runtime });
    const output = (await runCode.execute!(
      { code: `try { return await tools.deleteCity({ city: 'Oslo' }); } catch (error) { return error.message; }` },
      { toolCallId: 'call-2', messages: [] },
    )) as string;
    expect(output).toContain('[run_code] ok');
    expect(output).not.toContain('"deleted"');
    expect(output).toMatch(/approv/i);

    const approving = await createAiSdkRunCodeTool({
      tools: weatherTools([]),
      runtime,
      permissions: { approve: () => ({ decision: 'allow' }) },
    });
    const approved = (await approving.execute!(
      { code: `return await tools.deleteCity({ city: 'Oslo' });` },
      { toolCallId: 'call-3', messages: [] },
    )) as string;
    expect(approved).toContain('"deleted"');
  });

  it('cancels the run when the generation is aborted', async () => {
    const controller = new AbortController();
    const runCode = await createAiSdkRunCodeTool({
      tools: {
        stall: tool({
          description: 'Never answers until aborted.',
          inputSchema: z.object({}),
          execute: (_input, { abortSignal }) =>
            new Promise((resolve) => {
              abortSignal?.addEventListener('abort', () => resolve('aborted'));
              setTimeout(() => controller.abort('the user left'), 100);
            }),
        }),
      },
      runtime,
    });
    const output = (await runCode.execute!(
      { code: 'await tools.stall({}); return "finished";' },
      { toolCallId: 'call-4', messages: [], abortSignal: controller.signal },
    )) as string;
    expect(output).toContain('failed: abort');
    expect(output).toContain('the user left');
  });
});
