import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectClient, freePort, serveInProcess } from './__fixtures__/serve.js';
import { labServer, resultValue } from './__fixtures__/sluice-process.js';
import { parseMcpConfig } from './mcp-config.js';
import { hashServeToken } from './mcp-serve-config.js';
import { sdkRequested } from './serve-telemetry.js';
import { installTestTelemetry, type TestPoint } from './telemetry.test-helper.js';

// Telemetry through `sluice serve`: a tools/call whose _meta carries W3C trace context runs under
// the caller's span, the upstream call carries the host call's context on, the SDK is started
// from the OTEL_* variables and flushed on close, and /metrics serves Prometheus text.

const token = 'metrics-token-0123456789abcdef';
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const callerSpanId = '00f067aa0ba902b7';
const traceparent = `00-${traceId}-${callerSpanId}-01`;
const program = 'const { sum } = await lab.add({ a: 2, b: 3 });\nreturn sum;';
let directory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'sluice-telemetry-'));
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

afterEach(() => {
  vi.unstubAllEnvs();
});

function config(port: number, serve: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  return {
    mcpServers: { lab: labServer(env) },
    sluice: {
      runtime: { provider: 'quickjs', wallTimeMs: 20_000 },
      serve: { port, auth: { tokens: [{ principal: 'alice', sha256: hashServeToken(token) }] }, ...serve },
    },
  };
}

function ledger(path: string): Array<{ name: string; traceparent: string | null }> {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('sluice serve telemetry', () => {
  it('runs a tools/call with _meta.traceparent under the caller span and passes the host call span upstream', async () => {
    const telemetry = installTestTelemetry();
    const trail = join(directory, 'trace-ledger.jsonl');
    const served = await serveInProcess(config(await freePort(), {}, { LAB_TRACE_LEDGER: trail }), directory);
    try {
      const client = await connectClient(served.url, token);
      const result = await client.callTool({ name: 'run_code', arguments: { code: program }, _meta: { traceparent } });
      await client.close();
      expect(resultValue(result)).toBe(5);
      const spans = telemetry.spans();
      const run = spans.find((span) => span.name === 'sluice.run')!;
      expect(run.spanContext().traceId).toBe(traceId);
      expect(run.parentSpanContext?.spanId).toBe(callerSpanId);
      const call = spans.find((span) => span.name === 'execute_tool lab.add')!;
      expect(call.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
      // The upstream got the host call's span as its parent.
      expect(ledger(trail)).toEqual([{ name: 'add', traceparent: `00-${traceId}-${call.spanContext().spanId}-01` }]);
    } finally {
      await served.close();
      await telemetry.uninstall();
    }
  }, 60_000);

  it('starts the SDK from OTEL_* variables, exports over OTLP and flushes on close', async () => {
    const received: unknown[] = [];
    const sink: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.url === '/v1/traces') received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const { port } = sink.address() as { port: number };
    vi.stubEnv('OTEL_TRACES_EXPORTER', 'otlp');
    vi.stubEnv('OTEL_METRICS_EXPORTER', 'none');
    vi.stubEnv('OTEL_LOGS_EXPORTER', 'none');
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', `http://127.0.0.1:${port}`);
    const served = await serveInProcess(config(await freePort()), directory);
    try {
      const client = await connectClient(served.url, token);
      const result = await client.callTool({ name: 'run_code', arguments: { code: program }, _meta: { traceparent } });
      await client.close();
      expect(resultValue(result)).toBe(5);
    } finally {
      await served.close();
      await new Promise((resolve) => sink.close(resolve));
    }
    expect(served.logs).toContain('OpenTelemetry SDK started from the OTEL_* environment variables');
    type Exported = { name: string; traceId: string; spanId: string; parentSpanId?: string };
    const spans = received.flatMap((body) =>
      (body as { resourceSpans: { scopeSpans: { spans: Exported[] }[] }[] }).resourceSpans.flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) => scope.spans),
      ),
    );
    const run = spans.find((span) => span.name === 'sluice.run');
    const call = spans.find((span) => span.name === 'execute_tool lab.add');
    expect(run).toMatchObject({ traceId, parentSpanId: callerSpanId });
    expect(call).toMatchObject({ traceId, parentSpanId: run?.spanId });
  }, 60_000);

  it('counts a pause as waiting while the person is asked, and not once they answered', async () => {
    const telemetry = installTestTelemetry();
    const base = config(await freePort());
    const policy = { default: 'allow', rules: [{ tool: 'lab__echo', effect: 'ask' }] };
    const durable = { ...base, sluice: { ...base.sluice, policy, durable: { store: 'runs' } } };
    const served = await serveInProcess(durable, directory);
    try {
      const client = await connectClient(served.url, token, { elicitation: {} });
      const whileAsked: TestPoint[][] = [];
      client.setRequestHandler(ElicitRequestSchema, async () => {
        whileAsked.push(await telemetry.points('sluice.pause.waiting'));
        return { action: 'accept', content: {} };
      });
      const code = 'return await lab.echo({ text: "approved" });';
      const result = await client.callTool({ name: 'run_code', arguments: { code } }, undefined, { timeout: 60_000 });
      await client.close();
      expect(resultValue(result)).toBe('approved');
      expect(whileAsked).toEqual([[{ attributes: {}, value: 1 }]]);
      expect(await telemetry.points('sluice.pause.waiting')).toEqual([{ attributes: {}, value: 0 }]);
      // The answer given through elicitation records who gave it, as a console decision does.
      const store = served.server.service.store!;
      const [run] = await store.listRuns({ limit: 1 });
      expect((await store.listPauses(run!.start.runId)).map((pause) => pause.decision)).toEqual([
        { decision: 'allow', by: 'alice' },
      ]);
    } finally {
      await served.close();
      await telemetry.uninstall();
    }
  }, 60_000);

  it('serves Prometheus text at /metrics behind the bearer token', async () => {
    const served = await serveInProcess(config(await freePort(), { metrics: {} }), directory);
    try {
      const client = await connectClient(served.url, token);
      await client.callTool({ name: 'run_code', arguments: { code: program } });
      await client.close();
      const metricsUrl = new URL('/metrics', served.url);
      expect((await fetch(metricsUrl)).status).toBe(401);
      const response = await fetch(metricsUrl, { headers: { Authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toMatch(/^sluice_run_count_total\{[^}]*sluice_run_outcome="ok"[^}]*\} 1$/m);
      expect(text).toMatch(/^sluice_host_call_count_total\{[^}]*gen_ai_tool_name="lab\.add"[^}]*\} 1$/m);
      expect(text).toMatch(/^sluice_run_duration_count\{[^}]*\} 1$/m);
      expect(text).toMatch(/^sluice_run_duration_bucket\{[^}]*le="0\.005"\} /m);
      expect(text).toContain('sluice_run_active');
    } finally {
      await served.close();
    }
  }, 60_000);

  it('serves the calls waiting for a person across the store as sluice_pause_pending', async () => {
    const base = config(await freePort(), { metrics: { auth: false } });
    const policy = { default: 'allow', rules: [{ tool: 'lab__echo', effect: 'ask' }] };
    const durable = { ...base, sluice: { ...base.sluice, policy, durable: { store: 'pending-runs' } } };
    const served = await serveInProcess(durable, directory);
    const pending = async () => {
      const text = await (await fetch(new URL('/metrics', served.url))).text();
      return text.match(/^sluice_pause_pending(?:\{[^}]*\})? (\d+)/m)?.[1];
    };
    try {
      expect(await pending()).toBe('0');
      // A client that cannot be asked leaves the run paused, waiting for a person.
      const client = await connectClient(served.url, token);
      const code = 'return await lab.echo({ text: "later" });';
      await client.callTool({ name: 'run_code', arguments: { code } }, undefined, { timeout: 60_000 });
      await client.close();
      expect(await pending()).toBe('1');
    } finally {
      await served.close();
    }
  }, 60_000);

  it('serves /metrics without authentication when metrics.auth is false', async () => {
    const served = await serveInProcess(config(await freePort(), { metrics: { auth: false } }), directory);
    try {
      const response = await fetch(new URL('/metrics', served.url));
      expect(response.status).toBe(200);
    } finally {
      await served.close();
    }
  }, 60_000);
});

describe('sluice.serve.metrics', () => {
  const parse = (metrics: unknown) =>
    parseMcpConfig(
      { mcpServers: { lab: labServer() }, sluice: { serve: { auth: { none: true }, metrics } } },
      directory,
      {},
    );

  it('defaults to /metrics behind authentication and refuses a path the server serves or a bad shape', async () => {
    expect((await parse({})).serve?.metrics).toEqual({ path: '/metrics', auth: true });
    expect((await parse({ path: '/stats', auth: false })).serve?.metrics).toEqual({ path: '/stats', auth: false });
    await expect(parse({ path: '/mcp' })).rejects.toThrow(/sluice\.serve\.metrics\.path is "\/mcp"/);
    await expect(parse({ path: '/.well-known/x' })).rejects.toThrow(/sluice\.serve\.metrics\.path/);
    // The console's pages: /console/ would answer with its sign-in page, never the metrics.
    await expect(parse({ path: '/console' })).rejects.toThrow(/sluice\.serve\.metrics\.path is "\/console"/);
    await expect(parse({ path: '/console/' })).rejects.toThrow(/sluice\.serve\.metrics\.path/);
    await expect(parse({ path: 'metrics' })).rejects.toThrow(/sluice\.serve\.metrics\.path/);
    await expect(parse({ auth: 'yes' })).rejects.toThrow(/sluice\.serve\.metrics\.auth/);
  });
});

describe('sdkRequested', () => {
  it('asks for the SDK only when a standard OTEL_* variable does and OTEL_SDK_DISABLED is not true', () => {
    expect(sdkRequested({})).toBe(false);
    expect(sdkRequested({ OTEL_SERVICE_NAME: 'sluice' })).toBe(false);
    expect(sdkRequested({ OTEL_TRACES_EXPORTER: ' ' })).toBe(false);
    expect(sdkRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(sdkRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(sdkRequested({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
  });
});
