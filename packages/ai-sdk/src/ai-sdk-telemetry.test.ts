import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAiSdkRunCodeTool } from './ai-sdk-run-code-tool.js';
import { scriptedResponses } from './ai-sdk-run-code-tool.test-helper.js';

// With the AI SDK's telemetry on, a run_code call's run joins the AI SDK's trace: the run span's
// parent is the AI SDK's span of the tool call, and a tool the program calls runs in its own span.

const exporter = new InMemorySpanExporter();
const runtime = createWorkerThreadCodeRuntime({ poolSize: 1 });
let provider: TracerProvider;

beforeEach(() => {
  provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
});

afterEach(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
  exporter.reset();
});

afterAll(() => runtime.dispose());

describe('the run_code tool with AI SDK telemetry', () => {
  it('makes the AI SDK tool-call span the parent of the run span', async () => {
    const seen: Array<string | undefined> = [];
    const weather = tool({
      description: 'The weather in a city.',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        seen.push(trace.getActiveSpan()?.spanContext().spanId);
        return { city, celsius: 21 };
      },
    });
    const runCode = await createAiSdkRunCodeTool({ tools: { getWeather: weather }, runtime });
    const code = 'return (await tools.getWeather({ city: "Oslo" })).celsius;';
    const model = new MockLanguageModelV3({ doGenerate: scriptedResponses('run_code', { code }) });
    const result = await generateText({
      model,
      tools: { run_code: runCode },
      prompt: 'Go.',
      stopWhen: stepCountIs(2),
      experimental_telemetry: { isEnabled: true },
    });
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({ ok: true, value: 21 });
    const spans = exporter.getFinishedSpans();
    const toolCall = spans.find((span) => span.name === 'ai.toolCall');
    const run = spans.find((span) => span.name === 'sluice.run');
    const call = spans.find((span) => span.name === 'execute_tool tools.getWeather');
    expect(toolCall).toBeDefined();
    expect(run?.parentSpanContext?.spanId).toBe(toolCall?.spanContext().spanId);
    expect(run?.spanContext().traceId).toBe(toolCall?.spanContext().traceId);
    expect(call?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
    expect(seen).toEqual([call?.spanContext().spanId]);
  }, 60_000);
});
