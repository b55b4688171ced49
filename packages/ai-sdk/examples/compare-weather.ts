import { createAiSdkRunCodeTool } from '@sluice/ai-sdk';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { generateText, type LanguageModel, stepCountIs, tool } from 'ai';
import { z } from 'zod';

const getWeather = tool({
  description: 'The current weather in a city.',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, celsius: city.length * 3 }),
});

export async function compareWeather(model: LanguageModel): Promise<string> {
  const runtime = createWorkerThreadCodeRuntime();
  try {
    const runCode = await createAiSdkRunCodeTool({ tools: { getWeather }, runtime });
    const { text } = await generateText({
      model,
      tools: { run_code: runCode },
      prompt: 'Which is warmest: Oslo, Lisbon or Nairobi?',
      stopWhen: stepCountIs(5),
    });
    return text;
  } finally {
    await runtime.dispose();
  }
}
