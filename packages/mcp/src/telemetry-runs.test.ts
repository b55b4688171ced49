import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { CodeRuntime, JsonValue } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installTestTelemetry, type TestTelemetry } from './telemetry.test-helper.js';

// The span of a run and of its host calls, from every provider: started in the caller's context,
// with the host function invoked inside its call's span, and the run metrics.

const javascript = {
  calls: 'const sum = await tools.add({ a: 1, b: 2 });\ntry { await tools.boom({}); } catch {}\nreturn sum;',
  huge: 'await tools.add({ a: "x".repeat(500000), b: 0 });\nthrow new Error("after the call");',
};
const python = {
  calls: 'total = await tools.add(a=1, b=2)\ntry:\n    await tools.boom()\nexcept Exception:\n    pass\nreturn total',
  huge: 'await tools.add(a="x" * 500000, b=0)\nraise ValueError("after the call")',
};

const providers: Array<[string, () => CodeRuntime, typeof javascript]> = [
  ['worker-thread', () => createWorkerThreadCodeRuntime({ poolSize: 1 }), javascript],
  ['quickjs', () => createQuickJsCodeRuntime({ poolSize: 1 }), javascript],
  ['python', () => createPythonCodeRuntime({ poolSize: 1 }), python],
];

describe.each(providers)('run telemetry on the %s provider', (id, create, programs) => {
  const runtime = create();
  let telemetry: TestTelemetry;
  beforeEach(() => {
    telemetry = installTestTelemetry();
  });
  afterEach(async () => {
    await telemetry.uninstall();
  });
  afterAll(() => runtime.dispose());

  const bindings = (seen: Array<string | undefined>) => ({
    tools: {
      add: (input: JsonValue) => {
        seen.push(trace.getActiveSpan()?.spanContext().spanId);
        const { a, b } = input as { a: unknown; b: unknown };
        return typeof a === 'number' && typeof b === 'number' ? a + b : 0;
      },
      boom: () => {
        throw new Error('the tool broke');
      },
    },
  });

  it('makes a run span under the caller span with a child execute_tool span per host call', async () => {
    const seen: Array<string | undefined> = [];
    const tracer = trace.getTracer('test');
    const result = await tracer.startActiveSpan('agent', async (parent) => {
      try {
        return await runtime.run({ program: programs.calls, bindings: bindings(seen) });
      } finally {
        parent.end();
      }
    });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    const spans = telemetry.spans();
    const agent = spans.find((span) => span.name === 'agent')!;
    const run = spans.find((span) => span.name === 'sluice.run')!;
    expect(run.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
    expect(run.spanContext().traceId).toBe(agent.spanContext().traceId);
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.attributes).toMatchObject({
      'sluice.run.id': result.runId,
      'sluice.runtime.id': id,
      'sluice.runtime.language': id === 'python' ? 'python' : 'typescript',
      'sluice.run.outcome': 'ok',
      'sluice.run.usage.host_calls': 2,
    });
    expect(run.status.code).not.toBe(SpanStatusCode.ERROR);
    const add = spans.find((span) => span.name === 'execute_tool tools.add')!;
    const boom = spans.find((span) => span.name === 'execute_tool tools.boom')!;
    for (const call of [add, boom]) expect(call.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(add.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'tools.add',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
    });
    expect(add.attributes['error.type']).toBeUndefined();
    expect(boom.attributes['error.type']).toBe('tool_error');
    expect(boom.status.code).toBe(SpanStatusCode.ERROR);
    // The host function ran with its call's span active.
    expect(seen).toEqual([add.spanContext().spanId]);
  }, 60_000);

  it('keeps attributes small when an argument is huge, and marks a failed run', async () => {
    const result = await runtime.run({ program: programs.huge, bindings: bindings([]) });
    expect(result.ok).toBe(false);
    const spans = telemetry.spans();
    const run = spans.find((span) => span.name === 'sluice.run')!;
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(run.attributes['error.type']).toBe(result.ok ? undefined : result.failure.kind);
    const call = spans.find((span) => span.name === 'execute_tool tools.add')!;
    expect(call.attributes['error.type']).toBeUndefined();
    for (const span of spans) {
      for (const value of Object.values(span.attributes)) expect(String(value).length).toBeLessThan(200);
    }
    expect(await telemetry.points('sluice.host_call.count')).toEqual([
      {
        attributes: {
          'sluice.runtime.id': id,
          'gen_ai.tool.name': 'tools.add',
          'sluice.host_call.outcome': 'ok',
        },
        value: 1,
      },
    ]);
  }, 60_000);
});
