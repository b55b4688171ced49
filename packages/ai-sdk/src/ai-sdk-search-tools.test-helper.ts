import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import type { LanguageModel, ToolSet } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AiSdkRunCodeOutput, createAiSdkCodeModeTools } from './ai-sdk-run-code-tool.js';
import { scriptedSteps } from './ai-sdk-run-code-tool.test-helper.js';
import type { AiSdkSearchToolsOutput } from './ai-sdk-search-tools.js';
import { LoadedTools } from './index.js';

/** A mock model scripted with {@link scriptedSteps}, and the tools it was offered at each call. */
export interface SteppedModel {
  readonly model: LanguageModel;
  /** The prompt of each model call, as the provider received it. */
  prompts(): unknown[];
  /** The tools offered in each model call, in order. */
  offered(): (readonly { readonly name: string; readonly description?: string }[])[];
}

/** One AI SDK major version, as the search suite needs it. */
export interface SearchSdkUnderTest {
  readonly label: string;
  /** The `ai` module; typed as ai 6, and the suite uses only what ai 6 and 7 share. */
  readonly ai: typeof import('ai');
  /** The version's mock language model, answering with `responses` in turn. */
  steppedModel(responses: ReturnType<typeof scriptedSteps>): SteppedModel;
}

/** `search_tools` beside `run_code`, run against one AI SDK version: its `tool`, `generateText` and mock model. */
export function describeAiSdkSearchTools(sdk: SearchSdkUnderTest): void {
  const { ai } = sdk;
  const runtime = createWorkerThreadCodeRuntime({ wallTimeMs: 30_000 });
  afterAll(() => runtime.dispose());

  const toolSet: ToolSet = {
    getWeather: ai.tool({
      description: 'The current weather in a city.',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, celsius: 21 }),
    }),
    crm__findCustomer: ai.tool({
      description: 'Find a customer record by email address.',
      inputSchema: z.object({ email: z.string() }),
      execute: async ({ email }) => ({ email, name: 'Ada' }),
    }),
    crm__exportInvoices: ai.tool({
      description: 'Export every invoice of a month as CSV.',
      inputSchema: z.object({ month: z.string() }),
      execute: async () => 'id,total',
    }),
  };
  const namespaces = [
    { name: 'crm', description: 'Customer records.', instructions: 'Look customers up by email.', deferred: true },
  ];

  function runCodeDescriptions(model: SteppedModel): string[] {
    return model.offered().map((tools) => tools.find((entry) => entry.name === 'run_code')?.description ?? '');
  }

  async function searchOnce(input: unknown, loadedTools = new LoadedTools()) {
    const tools = await createAiSdkCodeModeTools({ tools: toolSet, runtime, namespaces, loadedTools });
    const output = (await tools.search_tools.execute!(input as never, {
      toolCallId: 'call-0',
      messages: [],
    })) as AiSdkSearchToolsOutput;
    return { output, tools, loadedTools };
  }

  describe(`search_tools with ${sdk.label}`, () => {
    it('loads the deferred tool the model found, and run_code declares it from the next step', async () => {
      const loadedTools = new LoadedTools();
      const tools = await createAiSdkCodeModeTools({ tools: toolSet, runtime, namespaces, loadedTools });
      const code = `return await crm.findCustomer({ email: 'ada@example.com' });`;
      const stepped = sdk.steppedModel(
        scriptedSteps([
          { toolName: 'search_tools', input: { query: 'find a customer by email', namespace: 'crm', limit: 1 } },
          { toolName: 'run_code', input: { code } },
        ]),
      );
      const result = await ai.generateText({
        model: stepped.model,
        tools,
        prompt: 'Who is ada@example.com?',
        stopWhen: ai.stepCountIs(3),
      });

      expect(stepped.offered()[0]!.map((entry) => entry.name)).toEqual(['run_code', 'search_tools']);
      const [first, second, third] = runCodeDescriptions(stepped);
      expect(first).not.toContain('findCustomer');
      expect(first).not.toContain('exportInvoices');
      expect(second).toContain('findCustomer(input: {');
      expect(second).toContain('Look customers up by email.');
      // Deferred and not found: still left out, here and in the step after.
      expect(second).not.toContain('exportInvoices');
      expect(third).toContain('findCustomer(input: {');
      expect(third).not.toContain('exportInvoices');

      const search = result.steps[0]!.toolResults[0]!.output as AiSdkSearchToolsOutput;
      expect(search).toMatchObject({
        ok: true,
        hits: [{ name: 'crm.findCustomer', summary: 'Find a customer record by email address.', loaded: true }],
        loaded: ['crm.findCustomer'],
      });
      expect(search.text).toContain('crm.findCustomer: Find a customer record by email address. (loaded now)');
      // The model reads the text, not the structured output.
      expect(JSON.stringify(stepped.prompts()[1])).toContain('"type":"text","value":"crm.findCustomer: Find');
      const run = result.steps[1]!.toolResults[0]!.output as AiSdkRunCodeOutput;
      expect(run.value).toEqual({ email: 'ada@example.com', name: 'Ada' });
      expect(loadedTools.values()).toEqual(['crm.findCustomer']);
      expect(result.text).toBe('Done.');
    });

    it('keeps what a search loaded for tools made later with the same set', async () => {
      const { loadedTools } = await searchOnce({ query: 'invoices' });
      expect(loadedTools.values()).toEqual(['crm.exportInvoices']);
      const later = await createAiSdkCodeModeTools({ tools: toolSet, runtime, namespaces, loadedTools });
      expect(later.run_code.description).toContain('exportInvoices(input: {');
      expect(later.run_code.description).not.toContain('findCustomer');
    });

    it('finds tools that are not deferred without loading anything', async () => {
      const { output, loadedTools } = await searchOnce({ query: 'weather' });
      expect(output).toEqual({
        text: 'tools.getWeather: The current weather in a city.',
        ok: true,
        hits: [{ name: 'tools.getWeather', summary: 'The current weather in a city.' }],
        loaded: [],
      });
      expect(loadedTools.values()).toEqual([]);
    });

    it('says in a sentence when nothing matches, and loads nothing', async () => {
      const { output, loadedTools } = await searchOnce({ query: 'zyxwvu', namespace: 'crm' });
      expect(output).toEqual({
        text: '[search_tools] No tool matches "zyxwvu" in namespace "crm". Try fewer or other words, or leave `namespace` out.',
        ok: true,
        hits: [],
        loaded: [],
      });
      expect(loadedTools.values()).toEqual([]);
    });

    it('names the namespaces when asked for one that does not exist', async () => {
      const { output } = await searchOnce({ query: 'customer', namespace: 'billing' });
      expect(output).toEqual({
        text: '[search_tools] not run: no namespace is named "billing". Namespaces: crm, tools. Leave `namespace` out to search them all.',
        ok: false,
        hits: [],
        loaded: [],
      });
    });

    it('names at most 30 namespaces, counting the rest', async () => {
      const many: ToolSet = Object.fromEntries(
        Array.from({ length: 40 }, (_, index) => [
          `service${String(index).padStart(2, '0')}__ping`,
          ai.tool({ description: 'Ping.', inputSchema: z.object({}), execute: async () => 'pong' }),
        ]),
      );
      const tools = await createAiSdkCodeModeTools({ tools: many, runtime });
      const output = (await tools.search_tools.execute!(
        { query: 'ping', namespace: 'billing' },
        { toolCallId: 'call-0', messages: [] },
      )) as AiSdkSearchToolsOutput;
      expect(output.text).toContain('Namespaces: service00, service01,');
      expect(output.text).toContain('service29 and 10 more.');
      expect(output.text).not.toContain('service30');
    });

    it.each([
      ['a string', 'customer', 'the input must be an object like {"query": "find customer by email"}.'],
      ['no query', {}, '`query` must be a string of words to look for, like {"query": "find customer by email"}.'],
      ['a number as query', { query: 5 }, '`query` must be a string of words'],
      ['a number as namespace', { query: 'customer', namespace: 3 }, '`namespace` must be a string naming one'],
      ['a limit of 0', { query: 'customer', limit: 0 }, '`limit` must be a whole number from 1 to 25 when given.'],
      ['a fractional limit', { query: 'customer', limit: 2.5 }, '`limit` must be a whole number from 1 to 25'],
      ['an unknown field', { query: 'customer', names: ['crm.findCustomer'] }, 'unknown input field "names"; send'],
    ])('refuses %s, saying what to send', async (_label, input, message) => {
      const { output, loadedTools } = await searchOnce(input);
      expect(output.ok).toBe(false);
      expect(output.text).toContain(`[search_tools] not run: ${message}`);
      expect(output).toMatchObject({ hits: [], loaded: [] });
      expect(loadedTools.values()).toEqual([]);
    });

    it('hands the model the refusal when its call does not fit the schema', async () => {
      const tools = await createAiSdkCodeModeTools({ tools: toolSet, runtime, namespaces });
      const stepped = sdk.steppedModel(scriptedSteps([{ toolName: 'search_tools', input: { query: 42 } }]));
      const result = await ai.generateText({ model: stepped.model, tools, prompt: 'Go.', stopWhen: ai.stepCountIs(2) });
      expect(result.steps[0]!.toolResults[0]!.output).toMatchObject({ ok: false });
      expect(JSON.stringify(stepped.prompts()[1])).toContain('[search_tools] not run: `query` must be a string');
    });
  });
}
