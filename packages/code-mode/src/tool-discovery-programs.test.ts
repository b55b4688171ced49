import type { CodeRuntime } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import type { Tool } from '@sluice/permissions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolPlacement } from './declarations-entry.js';
import { countTokens } from './declarations-tokens.js';
import { LoadedTools } from './loaded-tools.js';
import { createRunCodeTool } from './run-code-tool.js';

const tool = (name: string, description: string, extra: Partial<Tool & ToolPlacement> = {}): Tool & ToolPlacement => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  execute: (input) => ({ tool: name, input }),
  ...extra,
});

const tools = [
  tool('weather.forecast', 'Chance of rain tomorrow for a city.'),
  tool('weather.history', 'Rain measured in past years for a city.'),
  tool('billing.refund_payment', 'Refund a payment to a customer.', { deferred: true }),
];
const namespaces = [
  { name: 'weather', description: 'Forecasts and history.', instructions: 'Cities by English name.' },
];

const runtimes: CodeRuntime[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.dispose();
});

describe.each([
  ['typescript', () => createWorkerThreadCodeRuntime({ wallTimeMs: 10_000 })],
  ['python', () => createPythonCodeRuntime({ wallTimeMs: 10_000 })],
] as const)('discovery in %s programs', (language, create) => {
  const programs = {
    typescript: {
      namespace: 'return await sluice.describeNamespace("weather");',
      filtered:
        'return (await sluice.searchTools("rain city", { namespace: "weather", limit: 1 })).map((hit) => hit.name);',
      load: 'const hits = await sluice.searchTools("refund payment"); const text = await sluice.loadTools(["billing.refund_payment"]); return [hits[0].name, text.includes("refund_payment("), (await billing.refund_payment({})).tool];',
    },
    python: {
      namespace: 'return await sluice.describeNamespace("weather")',
      filtered: 'return [hit["name"] for hit in await sluice.searchTools("rain city", namespace="weather", limit=1)]',
      load: 'hits = await sluice.searchTools("refund payment")\ntext = await sluice.loadTools(["billing.refund_payment"])\nreturn [hits[0]["name"], "refund_payment(" in text, (await billing.refund_payment())["tool"]]',
    },
  }[language];

  let runtime: CodeRuntime;
  // A runtime's cold start (a pool of workers, or Python's zygote) and the tokenizer's first load
  // take seconds on a loaded machine: they happen here, so the test's own time is the discovery it checks.
  beforeAll(async () => {
    runtime = create();
    runtimes.push(runtime);
    countTokens('warm the tokenizer');
    await runtime.ready?.();
  }, 120_000);

  it('describes a namespace, searches within one, and loads a deferred tool into the next description', async () => {
    const loaded = new LoadedTools();
    const runCode = createRunCodeTool({
      context: { codeRuntime: runtime },
      tools,
      namespaces,
      loadedTools: loaded,
      policy: { default: 'allow', rules: [] },
    });
    expect(runCode.description).toContain('Forecasts and history.');
    expect(runCode.description).toContain('Cities by English name.');
    expect(runCode.description).not.toContain('refund_payment');
    const value = async (code: string) => {
      const outcome = await runCode.run({ code });
      expect(outcome.result?.ok, outcome.rendered.text).toBe(true);
      return outcome.result?.ok ? outcome.result.value : undefined;
    };
    expect(await value(programs.namespace)).toMatchObject({
      name: 'weather',
      description: 'Forecasts and history.',
      instructions: 'Cities by English name.',
      tools: [{ name: 'weather.forecast' }, { name: 'weather.history' }],
    });
    expect(await value(programs.filtered)).toEqual(['weather.forecast']);
    expect(await value(programs.load)).toEqual(['billing.refund_payment', true, 'billing.refund_payment']);
    expect(loaded.values()).toEqual(['billing.refund_payment']);
    expect(runCode.description).toContain('refund_payment(');
  });
});

describe('discovery in Python programs under snake_case names', () => {
  it('answers sluice.search_tools, describe_tool, describe_namespace and load_tools as the camelCase ones', async () => {
    const runtime = createPythonCodeRuntime({ wallTimeMs: 10_000 });
    runtimes.push(runtime);
    const runCode = createRunCodeTool({
      context: { codeRuntime: runtime },
      tools,
      namespaces,
      policy: { default: 'allow', rules: [] },
    });
    const outcome = await runCode.run({
      code: [
        'hits = sluice.search_tools("rain city", namespace="weather", limit=1)',
        'declaration = sluice.describe_tool(hits[0]["name"])',
        'guide = sluice.describe_namespace("weather")',
        'loaded = await sluice.load_tools(["billing.refund_payment"])',
        'return [hits[0]["name"], "def forecast(" in declaration, guide["instructions"], "refund_payment(" in loaded]',
      ].join('\n'),
    });
    expect(outcome.result?.ok, outcome.rendered.text).toBe(true);
    expect(outcome.result?.ok && outcome.result.value).toEqual([
      'weather.forecast',
      true,
      'Cities by English name.',
      true,
    ]);
    expect(outcome.result?.calls.map((call) => call.name)).toEqual([
      'search_tools',
      'describe_tool',
      'describe_namespace',
      'load_tools',
    ]);
  });

  it('are Python’s only: a TypeScript program’s sluice has the camelCase names', async () => {
    const runtime = createWorkerThreadCodeRuntime({ wallTimeMs: 10_000 });
    runtimes.push(runtime);
    const runCode = createRunCodeTool({
      context: { codeRuntime: runtime },
      tools,
      policy: { default: 'allow', rules: [] },
    });
    const outcome = await runCode.run({ code: 'return Object.keys(sluice).sort();' });
    expect(outcome.result?.ok && outcome.result.value).toEqual([
      'describeNamespace',
      'describeTool',
      'loadTools',
      'searchTools',
    ]);
  });
});
