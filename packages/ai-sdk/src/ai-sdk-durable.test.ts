import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createPGliteRunStore } from '@sluice/run-store';
import { generateText, type ModelMessage, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AiSdkRunCodeOutput, createAiSdkDurableCodeMode } from './index.js';

const runtime = createQuickJsCodeRuntime({ poolSize: 1 });
const store = createPGliteRunStore();
beforeAll(async () => {
  // The embedded database and the engine load on first use (seconds on a busy machine).
  await Promise.all([store.readValues('warm-up'), runtime.run({ program: 'return 1' })]);
}, 120_000);

afterAll(async () => {
  await runtime.dispose();
  await store.close();
});

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};
const call = (toolCallId: string, toolName: string, input: unknown) => ({
  content: [{ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
  usage,
  warnings: [],
});
const done = {
  content: [{ type: 'text' as const, text: 'Done.' }],
  finishReason: { unified: 'stop' as const, raw: 'stop' },
  usage,
  warnings: [],
};

describe('durable code mode for the AI SDK', () => {
  it('pauses on a needsApproval tool, and resume_run goes through the AI SDK approval flow to finish the run', async () => {
    const paid: unknown[] = [];
    const tools = {
      pay: tool({
        description: 'Pays an invoice.',
        inputSchema: z.object({ invoice: z.string() }),
        needsApproval: true,
        execute: async ({ invoice }) => {
          paid.push(invoice);
          return { paid: invoice };
        },
      }),
    };
    const mode = await createAiSdkDurableCodeMode({ tools, runtime, durable: { store } });
    let runId = '';
    // The model runs a program, then asks to resume the run its paused result names.
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        const seen = JSON.stringify(options.prompt);
        runId = /The run id is (durable_[0-9a-f-]+)/.exec(seen)?.[1] ?? runId;
        if (!seen.includes('"toolName":"run_code"')) {
          return call('call-1', 'run_code', {
            code: 'console.log("paying"); return await tools.pay({ invoice: "inv-7" });',
          });
        }
        if (!seen.includes('"toolName":"resume_run"')) return call('call-2', 'resume_run', { run_id: runId });
        return done;
      },
    });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Pay inv-7.' }];
    const first = await generateText({ model, tools: mode.tools, messages, stopWhen: stepCountIs(5) });
    const paused = first.steps[0]!.toolResults[0]!.output as AiSdkRunCodeOutput;
    expect(paused.durable).toEqual({ status: 'paused', runId });
    expect(paused.text).toMatch(/waiting for a person to approve tools\.pay\(\{"invoice":"inv-7"\}\)/);
    expect(paused.text).not.toMatch(/pause_/);
    expect(paid).toEqual([]);

    // The AI SDK stops to ask the person about resume_run; the application shows the waiting call.
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toBeDefined();
    expect(await mode.pendingApproval(runId)).toMatchObject({ tool: 'pay', input: { invoice: 'inv-7' } });

    messages.push(...first.response.messages, {
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approvalId: (request as { approvalId: string }).approvalId, approved: true },
      ],
    });
    const second = await generateText({ model, tools: mode.tools, messages, stopWhen: stepCountIs(5) });
    // The approved resume_run ran before the model's next step: its result is in the response's tool message.
    const toolMessage = second.response.messages.find((message) => message.role === 'tool');
    const resumedText = JSON.stringify(toolMessage?.content);
    expect(resumedText).toMatch(/resume_run/);
    expect(resumedText).toMatch(/\[run_code\] ok/);
    expect(resumedText).toMatch(/paying/);
    expect(resumedText).toMatch(/\\"paid\\": \\"inv-7\\"/);
    expect((await store.getRun(runId))?.status).toBe('finished');
    expect(paid).toEqual(['inv-7']);
    expect(await mode.pendingApproval(runId)).toBeUndefined();
  }, 60_000);

  it('lets the application deny the waiting call, which the program reads as an error', async () => {
    const tools = {
      pay: tool({
        description: 'Pays an invoice.',
        inputSchema: z.object({ invoice: z.string() }),
        needsApproval: true,
        execute: async () => ({ paid: true }),
      }),
    };
    const mode = await createAiSdkDurableCodeMode({ tools, runtime, durable: { store } });
    const output = (await mode.tools.run_code.execute!(
      { code: 'try { await tools.pay({ invoice: "x" }); return "paid"; } catch (error) { return error.message; }' },
      { toolCallId: 'c1', messages: [] },
    )) as AiSdkRunCodeOutput;
    expect(output.durable?.status).toBe('paused');
    const denied = await mode.deny(output.durable!.runId, 'not this month');
    expect(denied).toMatchObject({ ok: true, value: expect.stringMatching(/not this month/) });
    expect(await mode.deny('durable_nope')).toMatchObject({
      ok: false,
      text: expect.stringMatching(/waits for no decision/),
    });
  }, 60_000);

  it('keeps a run resumable when its host closes the code mode mid-call; resume_run of a new one continues it', async () => {
    let started: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => {
      started = resolve;
    });
    const tools = {
      wait: tool({
        description: 'Waits until its run ends.',
        inputSchema: z.object({}),
        execute: (_input, { abortSignal }) =>
          new Promise((resolve) => {
            started();
            abortSignal?.addEventListener('abort', () => resolve('aborted'));
          }),
      }),
    };
    const first = await createAiSdkDurableCodeMode({ tools, runtime, durable: { store } });
    const execution = { toolCallId: 'call-1', messages: [] };
    const running = first.tools.run_code.execute!(
      {
        code: `try { await tools.wait({}); return 'waited'; } catch (error) { return String(error.message).split(':')[0]; }`,
      },
      execution,
    ) as Promise<AiSdkRunCodeOutput>;
    await inFlight;
    await first.close();
    const stopped = await running;
    expect(stopped.durable?.status).toBe('stopped');
    expect(stopped.text).toContain(
      `The run id is ${stopped.durable?.runId}: call resume_run with it to continue the run`,
    );

    const second = await createAiSdkDurableCodeMode({ tools, runtime, durable: { store } });
    const resumed = (await second.tools.resume_run.execute!(
      { run_id: stopped.durable!.runId },
      execution,
    )) as AiSdkRunCodeOutput;
    // As after a crash: the call in flight is not run again blind, and the program reads why.
    expect(resumed).toMatchObject({ ok: true, value: 'interrupted', durable: { status: 'finished' } });
  }, 60_000);
});
