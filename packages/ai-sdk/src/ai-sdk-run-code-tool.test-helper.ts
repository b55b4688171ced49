import { InvalidRequestError } from '@sluice/code-runtime';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import type { LanguageModel, ToolSet } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AiSdkRunCodeOutput, createAiSdkRunCodeTool } from './ai-sdk-run-code-tool.js';

/** A mock model scripted to make one tool call, then answer `Done.`, with what it was sent. */
export interface ScriptedModel {
  readonly model: LanguageModel;
  /** The prompt of each model call, as the provider received it. */
  prompts(): unknown[];
  /** The tools offered in the first model call. */
  offered(): readonly { readonly name: string; readonly description?: string }[];
}

/** One AI SDK major version, as the shared suite needs it. */
export interface AiSdkUnderTest {
  readonly label: string;
  /** The `ai` module; typed as ai 6, and the suite uses only what ai 6 and 7 share. */
  readonly ai: typeof import('ai');
  /** Wraps {@link scriptedResponses} in the version's mock language model. */
  scriptedModel(toolName: string, input: unknown): ScriptedModel;
  /** The `generateText` settings that give the `run_code` tool `value` as its context. */
  contextSettings(value: unknown): Record<string, unknown>;
  /** The context a tool's `execute` received, read from its execution options. */
  readContext(options: unknown): unknown;
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};

/** The generate results of a model that calls `toolName` with `input`, then says `Done.` (the same in ai 6 and 7). */
export function scriptedResponses(toolName: string, input: unknown) {
  return scriptedSteps([{ toolName, input }]);
}

/** The generate results of a model that makes each tool call in its own step, then says `Done.`. */
export function scriptedSteps(calls: readonly { readonly toolName: string; readonly input: unknown }[]) {
  return [
    ...calls.map(({ toolName, input }, index) => ({
      content: [
        { type: 'tool-call' as const, toolCallId: `call-${index + 1}`, toolName, input: JSON.stringify(input) },
      ],
      finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
      usage,
      warnings: [],
    })),
    {
      content: [{ type: 'text' as const, text: 'Done.' }],
      finishReason: { unified: 'stop' as const, raw: 'stop' },
      usage,
      warnings: [],
    },
  ];
}

/** The adapter's behaviour, run against one AI SDK version: its `tool`, `generateText` and mock model. */
export function describeAiSdkRunCodeTool(sdk: AiSdkUnderTest): void {
  const { ai } = sdk;
  const runtime = createWorkerThreadCodeRuntime({ wallTimeMs: 30_000 });
  afterAll(() => runtime.dispose());

  async function generate(toolSet: ToolSet, scripted: ScriptedModel, settings: Record<string, unknown> = {}) {
    return ai.generateText({
      model: scripted.model,
      tools: toolSet,
      prompt: 'Go.',
      stopWhen: ai.stepCountIs(2),
      ...settings,
    });
  }

  async function runProgram(toolSet: ToolSet, code: string, settings: Record<string, unknown> = {}) {
    const runCode = await createAiSdkRunCodeTool({ tools: toolSet, runtime });
    const scripted = sdk.scriptedModel('run_code', { code });
    const result = await generate({ run_code: runCode }, scripted, settings);
    return { output: result.steps[0]!.toolResults[0]!.output as AiSdkRunCodeOutput, scripted, result };
  }

  function weatherTools(calls: { city: string; toolCallId: string }[]): ToolSet {
    return {
      getWeather: ai.tool({
        description: 'The current weather in a city.',
        inputSchema: z.object({ city: z.string().describe('The city name.') }),
        execute: async ({ city }, { toolCallId }) => {
          calls.push({ city, toolCallId });
          return { city, celsius: city.length * 2, observedAt: new Date(0) };
        },
      }),
      deleteCity: ai.tool({
        description: 'Remove a city from the map.',
        inputSchema: ai.jsonSchema<{ city: string }>({
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        }),
        needsApproval: true,
        execute: async () => 'deleted',
      }),
      askUser: ai.tool({
        description: 'Answered by the client, so it has no execute.',
        inputSchema: z.object({ question: z.string() }),
      }),
    };
  }

  /** A tool whose schema refines, transforms and fills a default, recording what `execute` received. */
  function readFileTools(received: unknown[]): ToolSet {
    return {
      readFile: ai.tool({
        description: 'Reads a file.',
        inputSchema: z.object({
          path: z.string().refine((path) => path.startsWith('/'), 'must be an absolute path'),
          encoding: z.enum(['utf8', 'base64']).default('utf8'),
          tags: z
            .string()
            .transform((text) => text.split(','))
            .optional(),
        }),
        execute: async (input) => {
          received.push(input);
          return `read ${input.path}`;
        },
      }),
    };
  }

  describe(`createAiSdkRunCodeTool with ${sdk.label}`, () => {
    it('gives the model one run_code tool whose program calls the toolset', async () => {
      const calls: { city: string; toolCallId: string }[] = [];
      const { output, scripted, result } = await runProgram(
        weatherTools(calls),
        `const cities = ['Oslo', 'Lisbon', 'Nairobi'];
         const reports = await Promise.all(cities.map((city) => tools.getWeather({ city })));
         console.log('checked', reports.length, 'cities');
         return reports.map((report) => report.city + ': ' + report.celsius + ' C, ' + report.observedAt);`,
      );

      expect(result.text).toBe('Done.');
      const offered = scripted.offered();
      expect(offered.map((entry) => entry.name)).toEqual(['run_code']);
      const description = offered[0]!.description ?? '';
      expect(description).toContain('declare const tools');
      expect(description).toContain('getWeather(input: {');
      expect(description).toContain('deleteCity');
      expect(description).not.toContain('askUser');

      expect(calls.map((call) => call.city).sort()).toEqual(['Lisbon', 'Nairobi', 'Oslo']);
      expect(calls.every((call) => call.toolCallId.startsWith('call-1/'))).toBe(true);
      expect(output.text).toContain('[run_code] ok');
      expect(output.text).toContain('checked 3 cities');
      expect(output.text).toContain('"Oslo: 8 C, 1970-01-01T00:00:00.000Z"');
      // The model reads the rendered text as it is, not the structured output as JSON.
      const secondPrompt = JSON.stringify(scripted.prompts()[1]);
      expect(secondPrompt).toContain('"type":"text","value":"[run_code] ok');
      expect(secondPrompt).not.toContain('"calls"');
    });

    it('sends an image in the value to the model as file content after the text, as MCP sends it', async () => {
      // A 1×1 PNG, as a chart tool or a Python program's figure returns it.
      const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
      const { output, scripted } = await runProgram(
        {
          chart: ai.tool({
            description: 'Draws a chart.',
            inputSchema: z.object({}),
            execute: async () => ({ type: 'image', mimeType: 'image/png', data: png }),
          }),
        },
        `const image = await tools.chart({});
         return { title: 'Sales', image };`,
      );
      expect(output.ok).toBe(true);
      expect(output.images).toEqual([{ data: png, mediaType: 'image/png' }]);
      expect(output.text).toContain('(image 1: image/png');
      expect(output.text).not.toContain(png);
      const toolMessage = (scripted.prompts()[1] as { role: string; content: unknown[] }[]).find(
        (message) => message.role === 'tool',
      );
      const result = toolMessage?.content[0] as { output: { type: string; value: unknown[] } };
      expect(result.output.type).toBe('content');
      expect(result.output.value[0]).toMatchObject({ type: 'text', text: output.text });
      expect(JSON.stringify(result.output.value.slice(1))).toContain(png);
    });

    it('returns the value, logs and host calls next to the text', async () => {
      const { output } = await runProgram(
        weatherTools([]),
        `const report = await tools.getWeather({ city: 'Oslo' });
         console.log('got', report.city);
         try { await tools.deleteCity({ city: 'Oslo' }); } catch {}
         return { warmest: report.city, celsius: report.celsius };`,
      );
      expect(output.ok).toBe(true);
      expect(output.value).toEqual({ warmest: 'Oslo', celsius: 8 });
      expect(output.logs).toEqual([{ level: 'log', text: 'got Oslo' }]);
      expect(output.calls.map(({ namespace, name, ok }) => ({ namespace, name, ok }))).toEqual([
        { namespace: 'tools', name: 'getWeather', ok: true },
        { namespace: 'tools', name: 'deleteCity', ok: false },
      ]);
      expect(output.failure).toBeUndefined();
      expect(typeof output.runId).toBe('string');
      expect(output.usage?.hostCalls).toBe(2);
      // Plain JSON, so it survives UI messages and storage unchanged.
      expect(JSON.parse(JSON.stringify(output))).toEqual(output);
    });

    it('returns the failure, and the logs before it, when the program throws', async () => {
      const { output } = await runProgram(
        weatherTools([]),
        `console.warn('about to fail'); throw new Error('no cities');`,
      );
      expect(output.ok).toBe(false);
      expect(output.value).toBeUndefined();
      expect(output.failure).toMatchObject({ kind: 'exception', message: expect.stringContaining('no cities') });
      expect(output.logs).toEqual([{ level: 'warn', text: 'about to fail' }]);
      expect(output.text).toContain('no cities');
    });

    it('says why in the text, with no run data, when the input is refused before anything runs', async () => {
      const runCode = await createAiSdkRunCodeTool({ tools: weatherTools([]), runtime });
      const output = (await runCode.execute!(
        { code: '   ' },
        {
          toolCallId: 'call-0',
          messages: [],
        },
      )) as AiSdkRunCodeOutput;
      expect(output).toEqual({ text: expect.stringContaining('not run'), ok: false, logs: [], calls: [] });
    });

    it("parses each input with the tool's own schema: refinements refuse, defaults fill, transforms apply", async () => {
      const received: unknown[] = [];
      const { output } = await runProgram(
        readFileTools(received),
        `let refused;
         try { await tools.readFile({ path: 'relative' }); } catch (error) { refused = error.message; }
         const read = await tools.readFile({ path: '/etc/hosts', tags: 'a,b' });
         return { refused, read };`,
      );
      expect(output.ok).toBe(true);
      const value = output.value as { refused: string; read: string };
      expect(value.refused).toContain('tools.readFile');
      expect(value.refused).toContain('$.path: must be an absolute path');
      expect(value.read).toBe('read /etc/hosts');
      expect(received).toEqual([{ path: '/etc/hosts', encoding: 'utf8', tags: ['a', 'b'] }]);
    });

    it('strips, passes and refuses an extra key exactly as the AI SDK does when the model calls the tool directly', async () => {
      const received: unknown[] = [];
      const record =
        (name: string) =>
        async (input: unknown): Promise<string> => {
          received.push([name, input]);
          return name;
        };
      const toolSet: ToolSet = {
        zodObject: ai.tool({ inputSchema: z.object({ city: z.string() }), execute: record('zodObject') }),
        strictObject: ai.tool({ inputSchema: z.strictObject({ city: z.string() }), execute: record('strictObject') }),
        plainJsonSchema: ai.tool({
          inputSchema: ai.jsonSchema<{ city: string }>({
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          }),
          execute: record('plainJsonSchema'),
        }),
      };
      const extra = { city: 'Oslo', color: 'red' };
      // What the AI SDK itself does with { city, color } when the model calls each tool.
      const direct: unknown[] = [];
      for (const name of Object.keys(toolSet)) {
        received.length = 0;
        const result = await generate(toolSet, sdk.scriptedModel(name, extra));
        direct.push(result.steps[0]!.content.some((part) => part.type === 'tool-error') ? 'refused' : received[0]);
      }
      expect(direct).toEqual([
        ['zodObject', { city: 'Oslo' }],
        'refused',
        ['plainJsonSchema', { city: 'Oslo', color: 'red' }],
      ]);
      // The same through run_code.
      received.length = 0;
      const { output } = await runProgram(
        toolSet,
        `const input = { city: 'Oslo', color: 'red' };
         const outcomes = [];
         for (const name of ['zodObject', 'strictObject', 'plainJsonSchema']) {
           try { await tools[name](input); outcomes.push('ok'); } catch (error) { outcomes.push(error.message); }
         }
         return outcomes;`,
      );
      expect(output.ok).toBe(true);
      const outcomes = output.value as string[];
      expect(outcomes[0]).toBe('ok');
      expect(outcomes[1]).toContain('tools.strictObject');
      expect(outcomes[2]).toBe('ok');
      expect(received).toEqual(direct.filter((entry) => entry !== 'refused'));
    });

    it('refuses what the AI SDK refuses when the model calls the tool directly', async () => {
      const received: unknown[] = [];
      const direct = await generate(readFileTools(received), sdk.scriptedModel('readFile', { path: 'relative' }));
      expect(received).toEqual([]);
      expect(direct.steps[0]!.content.some((part) => part.type === 'tool-error')).toBe(true);

      const { output } = await runProgram(
        readFileTools(received),
        `return await tools.readFile({ path: 'relative' });`,
      );
      expect(received).toEqual([]);
      expect(output.ok).toBe(false);
      expect(output.failure?.message).toContain('$.path: must be an absolute path');
    });

    it('names the tool, the schema and the fix when a schema cannot be converted', async () => {
      const logEvent = ai.tool({
        description: 'Logs an event.',
        inputSchema: z.object({ name: z.string() }),
        outputSchema: z.object({ at: z.date() }),
        execute: async () => ({ at: new Date(0) }),
      });
      const outputError = await createAiSdkRunCodeTool({ tools: { logEvent }, runtime }).catch(
        (error: unknown) => error,
      );
      expect(InvalidRequestError.isInstance(outputError)).toBe(true);
      expect(outputError).toMatchObject({ field: 'tools.logEvent.outputSchema' });
      expect((outputError as Error).message).toMatch(/^Tool "logEvent": its outputSchema cannot be converted/);
      expect((outputError as Error).message).toContain('z.iso.datetime()');

      const schedule = ai.tool({
        description: 'Schedules a meeting.',
        inputSchema: z.object({ at: z.date() }),
        execute: async () => 'scheduled',
      });
      const inputError = await createAiSdkRunCodeTool({ tools: { schedule }, runtime }).catch(
        (error: unknown) => error,
      );
      expect(InvalidRequestError.isInstance(inputError)).toBe(true);
      expect(inputError).toMatchObject({ field: 'tools.schedule.inputSchema' });
      expect((inputError as Error).message).toContain('"schedule"');
    });

    it("passes the run_code call's context and messages to each tool", async () => {
      const seen: { context: unknown; messages: number }[] = [];
      const whoAmI = ai.tool({
        description: 'Who is asking.',
        inputSchema: z.object({}),
        execute: async (_input, options) => {
          seen.push({ context: sdk.readContext(options), messages: options.messages.length });
          return 'ok';
        },
      });
      await runProgram({ whoAmI }, 'return await tools.whoAmI({});', sdk.contextSettings({ user: 'ada' }));
      expect(seen).toEqual([{ context: { user: 'ada' }, messages: 1 }]);
    });

    it('asks before a needsApproval tool, and denies it when nobody can approve', async () => {
      const runCode = await createAiSdkRunCodeTool({ tools: weatherTools([]), runtime });
      const denied = (await runCode.execute!(
        { code: `try { return await tools.deleteCity({ city: 'Oslo' }); } catch (error) { return error.message; }` },
        { toolCallId: 'call-2', messages: [] },
      )) as AiSdkRunCodeOutput;
      expect(denied.ok).toBe(true);
      expect(denied.value).not.toBe('deleted');
      expect(denied.value).toMatch(/approv/i);

      const approving = await createAiSdkRunCodeTool({
        tools: weatherTools([]),
        runtime,
        permissions: { approve: () => ({ decision: 'allow' }) },
      });
      const approved = (await approving.execute!(
        { code: `return await tools.deleteCity({ city: 'Oslo' });` },
        {
          toolCallId: 'call-3',
          messages: [],
        },
      )) as AiSdkRunCodeOutput;
      expect(approved.value).toBe('deleted');
    });

    it('cancels the run when the generation is aborted', async () => {
      const controller = new AbortController();
      const runCode = await createAiSdkRunCodeTool({
        tools: {
          stall: ai.tool({
            description: 'Never answers until aborted.',
            inputSchema: z.object({}),
            execute: (_input, { abortSignal }) =>
              new Promise((resolve) => {
                abortSignal?.addEventListener('abort', () => resolve('aborted'));
                controller.abort('the user left');
              }),
          }),
        },
        runtime,
      });
      const output = (await runCode.execute!(
        { code: 'await tools.stall({}); return "finished";' },
        {
          toolCallId: 'call-4',
          messages: [],
          abortSignal: controller.signal,
        },
      )) as AiSdkRunCodeOutput;
      expect(output.ok).toBe(false);
      expect(output.failure?.kind).toBe('abort');
      expect(output.text).toContain('failed: abort');
      expect(output.text).toContain('the user left');
    });
  });
}
