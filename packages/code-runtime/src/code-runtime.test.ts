import { describe, expect, it } from 'vitest';
import { normalizeBindings } from './binding-name.js';
import type { CodeRunResult } from './code-run-result.js';
import { type CodeRun, type CodeRunRequest, type CodeRuntime, specificationVersion } from './code-runtime.js';
import { InvalidRequestError } from './errors/invalid-request-error.js';
import { RuntimeDisposedError } from './errors/runtime-disposed-error.js';
import type { JsonValue } from './json-value.js';
import { describeJsonViolation, findJsonViolation } from './lossless-json.js';

// A stub that implements the seam without a substrate. Its "programs" are one line each:
// `call <namespace>.<name> <json input>`, `throw <message>` or `return <json>`.
function createStubCodeRuntime(): CodeRuntime {
  let disposed = false;
  let runs = 0;
  const start = (request: CodeRunRequest): CodeRun => {
    if (disposed) throw new RuntimeDisposedError({ message: 'The stub runtime was disposed.' });
    if (typeof request.program !== 'string') {
      throw new InvalidRequestError({ message: 'program must be a string.', field: 'program' });
    }
    const bindings = normalizeBindings(request.bindings);
    const runId = `stub-${++runs}`;
    const controller = new AbortController();
    const base = {
      runId,
      logs: [],
      logsTruncated: false,
      calls: [],
      usage: { wallMs: 0, hostCalls: 0, outputBytes: 0 },
    };
    const [verb = '', target = '', ...rest] = request.program.split(' ');
    const execute = async (): Promise<CodeRunResult> => {
      if (verb === 'throw') return { ...base, ok: false, failure: { kind: 'exception', message: target } };
      if (verb === 'return') return { ...base, ok: true, value: JSON.parse(target) as JsonValue };
      const entry = bindings.get(target);
      if (entry === undefined)
        return { ...base, ok: false, failure: { kind: 'exception', message: `${target} is not granted` } };
      const value = await entry.fn(JSON.parse(rest.join(' ')) as JsonValue, {
        runId,
        callId: '1',
        signal: controller.signal,
      });
      const violation = findJsonViolation(value);
      if (violation !== undefined) {
        return { ...base, ok: false, failure: { kind: 'invalid-output', message: describeJsonViolation(violation) } };
      }
      return { ...base, ok: true, value };
    };
    const result = execute().finally(() => controller.abort());
    return { id: runId, result, cancel: () => controller.abort() };
  };
  return {
    specificationVersion,
    id: 'stub',
    language: 'typescript',
    isolation: 'None: the stub runs in the host process.',
    start,
    run: async (request) => start(request).result,
    dispose: async () => {
      disposed = true;
    },
  };
}

// The README's usage example, kept here so it compiles and runs.
async function answer(runtime: CodeRuntime, program: string): Promise<string> {
  const result = await runtime.run({
    program,
    bindings: { tools: { search: async (input) => [`result for ${String(input)}`] } },
  });
  if (result.ok) return JSON.stringify(result.value ?? null);
  switch (result.failure.kind) {
    case 'timeout':
      return `Stopped after ${result.failure.limitMs} ms of ${result.failure.budget}. Do less in one run.`;
    case 'exception':
      return `The program threw: ${result.failure.message}`;
    default:
      return `The run failed (${result.failure.kind}): ${result.failure.message}`;
  }
}

describe('CodeRuntime', () => {
  it('runs the README example against a stub that implements the seam', async () => {
    const runtime = createStubCodeRuntime();
    expect(await answer(runtime, 'call tools.search "sluice"')).toBe('["result for sluice"]');
    expect(await answer(runtime, 'throw boom')).toBe('The program threw: boom');
    expect(await answer(runtime, 'call tools.delete {}')).toBe('The program threw: tools.delete is not granted');
    await runtime.dispose();
  });

  it('reports a host function returning NaN as an invalid-output failure, not a throw', async () => {
    const runtime = createStubCodeRuntime();
    const result = await runtime.run({
      program: 'call tools.measure null',
      bindings: { tools: { measure: async () => Number.NaN } },
    });
    expect(result).toMatchObject({
      ok: false,
      failure: { kind: 'invalid-output', message: expect.stringContaining('$ is NaN') },
    });
  });

  it('throws for misuse: a malformed binding name, a non-string program, a disposed runtime', async () => {
    const runtime = createStubCodeRuntime();
    expect(() => runtime.start({ program: 'return 1', bindings: { class: {} } })).toThrow(InvalidRequestError);
    expect(() => runtime.start({ program: 1 } as unknown as CodeRunRequest)).toThrow(InvalidRequestError);
    await runtime.dispose();
    await runtime.dispose();
    expect(() => runtime.start({ program: 'return 1' })).toThrow(RuntimeDisposedError);
    await expect(runtime.run({ program: 'return 1' })).rejects.toSatisfy(RuntimeDisposedError.isInstance);
  });

  it('aborts the host-call signal once the run ends', async () => {
    const runtime = createStubCodeRuntime();
    let seen: AbortSignal | undefined;
    await runtime.run({
      program: 'call tools.peek null',
      bindings: {
        tools: {
          peek: async (_input, context) => {
            seen = context.signal;
            return context.signal.aborted;
          },
        },
      },
    });
    expect(seen?.aborted).toBe(true);
  });
});
