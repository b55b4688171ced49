import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spyServerPath } from './__fixtures__/http-upstream.js';
import { resultText, runValue, type SluiceProcess, startSluice } from './__fixtures__/sluice-process.js';

interface Notification {
  readonly method: string;
  readonly params: { requestId?: number | string; reason?: string };
}

const spy = { command: process.execPath, args: [spyServerPath] };
const received = async (sluice: SluiceProcess): Promise<Notification[]> =>
  ((await runValue(sluice.client, 'return (await spy.notifications({})).notifications;')) ?? []) as Notification[];

describe('sluice mcp keeps the MCP protocol with its upstreams', () => {
  let sluice: SluiceProcess;

  beforeAll(async () => {
    sluice = await startSluice({ mcpServers: { spy }, sluice: { runtime: { wallTimeMs: 60_000 } } });
  });

  afterAll(async () => {
    await sluice?.close();
  });

  it('sends no notifications/cancelled for calls that completed, and no listener warning past ten calls', async () => {
    const value = await runValue(
      sluice.client,
      `const parallel = await Promise.all(Array.from({ length: 12 }, (_, index) => spy.echo({ text: 'p' + index })));
       const sequential = [];
       for (let index = 0; index < 12; index += 1) sequential.push(await spy.echo({ text: 's' + index }));
       return [parallel.length, sequential.length];`,
    );
    expect(value).toEqual([12, 12]);
    const notifications = await received(sluice);
    expect(notifications.map((notification) => notification.method)).toEqual(['notifications/initialized']);
    expect(sluice.stderr()).not.toContain('MaxListenersExceededWarning');
  });

  it('sends notifications/cancelled once, for the call still in flight when the run ends', async () => {
    const before = (await received(sluice)).length;
    const result = await sluice.client.callTool({
      name: 'run_code',
      arguments: {
        code: `await spy.echo({ text: 'done first' });
               spy.wait({ ms: 60000 }).catch(() => {});
               await spy.echo({ text: 'sent after the wait, so the wait is in flight' });
               throw new Error('stop with a call in flight');`,
      },
    });
    expect(resultText(result)).toContain('stop with a call in flight');
    await vi.waitFor(async () => {
      const cancelled = (await received(sluice))
        .slice(before)
        .filter((item) => item.method !== 'notifications/initialized');
      expect(cancelled).toHaveLength(1);
      expect(cancelled[0]!.method).toBe('notifications/cancelled');
    });
  });
});

describe('sluice mcp with an upstream that misbehaves', () => {
  let sluice: SluiceProcess;
  let listChanged = 0;
  const logged: string[] = [];

  beforeAll(async () => {
    sluice = await startSluice({
      mcpServers: { spy },
      sluice: { restart: { initialDelayMs: 100, maxDelayMs: 1_000 }, runtime: { wallTimeMs: 60_000 } },
    });
    sluice.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged += 1;
    });
    sluice.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logged.push(String(notification.params.data));
    });
  });

  afterAll(async () => {
    await sluice?.close();
  });

  const pid = async () => runValue(sluice.client, 'return await spy.pid({});');
  const backAfter = async (previous: unknown) =>
    vi.waitFor(async () => expect(await pid()).not.toBe(previous), { timeout: 30_000, interval: 200 });

  it('follows tools/list_changed from an upstream: the new tool is declared and callable', async () => {
    const seen = listChanged;
    const added = await runValue(sluice.client, 'return await spy.grow({});');
    await vi.waitFor(() => expect(listChanged).toBeGreaterThan(seen));
    const { tools } = await sluice.client.listTools();
    expect(tools[0]!.description).toContain(String(added));
    expect(await runValue(sluice.client, `return await spy.${String(added)}({});`)).toBe(`${String(added)} ran`);
  });

  it('refuses a tool listing that pages forever, keeping the tools it had and serving on', async () => {
    await runValue(sluice.client, 'return await spy.page_forever({});');
    await vi.waitFor(
      () =>
        expect(sluice.stderr()).toContain(
          '[spy] could not list its changed tools: it sent the tools/list cursor "again" twice',
        ),
      { timeout: 30_000 },
    );
    expect(await runValue(sluice.client, "return await spy.echo({ text: 'still here' });")).toBe('still here');
  });

  it('restarts an upstream that exits, saying so to the program and the client meanwhile', async () => {
    const first = await pid();
    const seen = listChanged;
    const message = await runValue(
      sluice.client,
      `try { await spy.crash({}); } catch (error) { return error.message; }`,
    );
    expect(message).toContain('The spy server exited while crash was running.');
    expect(message).toContain('spy: crashing on purpose');
    await vi.waitFor(() => expect(logged.some((line) => line.includes('Sluice is restarting it'))).toBe(true));
    await backAfter(first);
    expect(listChanged).toBeGreaterThan(seen);
    expect(sluice.stderr()).toMatch(/\[spy\] exited; restarting in 100 ms \(attempt 1\)/);
    expect(sluice.stderr()).toContain('[spy] ready with');
  });

  it('ends an upstream that sends a line over 10 MiB with a clear stderr line, and restarts it', async () => {
    const first = await pid();
    const message = await runValue(
      sluice.client,
      `try { await spy.flood({}); } catch (error) { return error.message; }`,
    );
    expect(message).toContain('The spy server sent a message larger than the 10 MiB limit and was stopped');
    expect(sluice.stderr()).toContain('[spy] sent a message larger than the 10 MiB limit and was stopped');
    await backAfter(first);
  });

  it('ends an upstream that sends a line that is not JSON-RPC, instead of waiting for an answer forever', async () => {
    const first = await pid();
    const message = await runValue(
      sluice.client,
      `try { await spy.garble({}); } catch (error) { return error.message; }`,
    );
    expect(message).toContain('The spy server sent a message that is not valid JSON-RPC and was stopped');
    expect(sluice.stderr()).toMatch(
      /\[spy\] sent a message that is not valid JSON-RPC and was stopped \(.*not valid JSON/,
    );
    await backAfter(first);
  });
});
