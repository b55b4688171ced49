import { createAiSdkCodeModeTools, type LoadedTools } from '@sluice/ai-sdk';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { generateText, type LanguageModel, stepCountIs, tool } from 'ai';
import { z } from 'zod';

const crm__findCustomer = tool({
  description: 'Find a customer record by email address.',
  inputSchema: z.object({ email: z.string() }),
  execute: async ({ email }) => ({ email, name: 'Ada Lovelace', plan: 'team' }),
});

// `loadedTools` is the conversation's (`new LoadedTools()` once, then kept): what the model loads stays loaded.
export async function whoIs(model: LanguageModel, email: string, loadedTools: LoadedTools): Promise<string> {
  const runtime = createWorkerThreadCodeRuntime();
  try {
    const tools = await createAiSdkCodeModeTools({
      tools: { crm__findCustomer },
      runtime,
      namespaces: [{ name: 'crm', description: 'Customer records.', deferred: true }],
      loadedTools,
    });
    const { text } = await generateText({ model, tools, prompt: `Who is ${email}?`, stopWhen: stepCountIs(5) });
    return text;
  } finally {
    await runtime.dispose();
  }
}
