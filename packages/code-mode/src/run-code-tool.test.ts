import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeRuntime, JsonValue } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { createContext } from '@sluice/context';
import type { PolicyDefinition, Tool } from '@sluice/permissions';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunCodeTool } from './run-code-tool.js';

const allowAll: PolicyDefinition = { default: 'allow', rules: [] };

const forecast: Tool = {
  name: 'weather.forecast',
  description: 'Chance of rain tomorrow for a city.',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, rain: { type: 'number' } },
    required: ['city', 'rain'],
  },
  execute: (input) => ({ city: (input as { city: string }).city, rain: (input as { city: string }).city.length / 10 }),
};
const cities: Tool = {
  name: 'weather.cities',
  description: 'Every city the service covers.',
  inputSchema: { type: 'object', properties: { region: { type: 'string' } }, additionalProperties: false },
  execute: () => ['Oslo', 'Lima', 'Reykjavik'],
};
const remove: Tool = {
  name: 'weather.delete_station',
  description: 'Remove a weather station.',
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  execute: () => {
    throw new Error('must never run');
  },
};

const runtime = createWorkerThreadCodeRuntime({ wallTimeMs: 20_000, cpuTimeMs: 9_000, hostCalls: 77 });
const ctx = createContext();
ctx.provide('codeRuntime', runtime);
const spillDirectory = mkdtempSync(join(tmpdir(), 'sluice-run-code-test-'));
afterAll(async () => {
  await ctx.dispose();
  rmSync(spillDirectory, { recursive: true, force: true });
});

describe('createRunCodeTool', () => {
  it('declares a tool that a rule allows by the binding the program sees, under the naming options given', () => {
    const runCode = createRunCodeTool({
      context: ctx,
      tools: [cities],
      policy: { default: 'deny', rules: [{ tool: 'tools.weather_cities', effect: 'allow' }] },
      permissions: { splitNamespaces: false },
    });
    expect(runCode.declarations.text).toContain('weather_cities');
  });

  it('describes the program language, the limits the runtime really has, and the declarations', () => {
    const runCode = createRunCodeTool({ context: ctx, tools: [forecast, cities], policy: allowAll });
    expect(runCode.name).toBe('run_code');
    expect(runCode.description).toContain('Run a TypeScript program');
    expect(runCode.description).toContain('- Wall clock: 20 s per run');
    expect(runCode.description).toContain('- CPU time: 9 s per run.');
    expect(runCode.description).toContain('- Tool calls: 77 per run.');
    expect(runCode.description).toContain('declare const weather: {');
    expect(runCode.inputSchema).toMatchObject({ required: ['code'], additionalProperties: false });
  });

  it('states the limits of the runtime provided now, after it was replaced by one of the same language', async () => {
    const swapped = createContext();
    swapped.provide('codeRuntime', createWorkerThreadCodeRuntime({ wallTimeMs: 20_000 }));
    const runCode = createRunCodeTool({ context: swapped, tools: [forecast], policy: allowAll });
    expect(runCode.description).toContain('- Wall clock: 20 s per run');
    swapped.provide('codeRuntime', createWorkerThreadCodeRuntime({ wallTimeMs: 5_000 }), { replace: true });
    expect(runCode.description).toContain('- Wall clock: 5 s per run');
    await swapped.dispose();
  });

  it('says the runtime publishes no limits rather than inventing them', () => {
    const opaque: CodeRuntime = {
      specificationVersion: runtime.specificationVersion,
      id: runtime.id,
      language: runtime.language,
      isolation: runtime.isolation,
      start: (request) => runtime.start(request),
      run: (request) => runtime.run(request),
      dispose: async () => {},
    };
    const runCode = createRunCodeTool({ context: { codeRuntime: opaque }, tools: [forecast], policy: allowAll });
    expect(runCode.description).toContain('Limits: this runtime does not publish its budgets');
    expect(runCode.description).not.toMatch(/Wall clock: \d/);
  });

  it('runs a program that fans out and aggregates, and renders what it returned', async () => {
    const runCode = createRunCodeTool({ context: ctx, tools: [forecast, cities], policy: allowAll });
    const code = `
      const names = await weather.cities();
      const all = await Promise.all(names.map((city) => weather.forecast({ city })));
      console.log(\`checked \${all.length} cities\`);
      return all.filter((entry) => entry.rain > 0.5).map((entry) => entry.city);`;
    const { result, rendered } = await runCode.run({ code, description: 'rainy cities' });
    expect(result?.ok).toBe(true);
    expect(result?.calls).toHaveLength(4);
    expect(rendered.text).toMatch(/^\[run_code\] ok · .* · 4 host calls · 1 log line\n/);
    expect(rendered.text).toContain('--- logs ---\nchecked 3 cities\n--- value (JSON) ---\n[\n  "Reykjavik"\n]\n');
  });

  it('passes {} for a call without an argument when every input property is optional', async () => {
    const runCode = createRunCodeTool({ context: ctx, tools: [cities], policy: allowAll });
    const text = await runCode.execute({ code: 'return await weather.cities();' });
    // Without the substitution, schema validation refuses null as "must be object".
    expect(text).toContain('--- value (JSON) ---\n[\n  "Oslo",');
  });

  it('leaves tools the policy never allows out of the declarations, and refuses them when called anyway', async () => {
    const policy: PolicyDefinition = {
      default: 'allow',
      rules: [{ tool: 'weather.delete_station', effect: 'deny', reason: 'stations are managed by operations' }],
    };
    const runCode = createRunCodeTool({ context: ctx, tools: [forecast, remove], policy });
    expect(runCode.description).not.toContain('delete_station');
    const { result, rendered } = await runCode.run({ code: "await weather.delete_station({ id: 'x' }); return 1;" });
    expect(result?.ok).toBe(false);
    expect(rendered.text).toContain('--- failure ---\nkind: exception\n');
    expect(rendered.text).toContain('stations are managed by operations');
    expect(rendered.text).toMatch(/c1 weather\.delete_station: error, \d+ ms: Permission denied: /);
  });

  it('gives programs searchTools and describeTool when the declarations are over budget', async () => {
    const runCode = createRunCodeTool({
      context: ctx,
      tools: [forecast, cities],
      policy: allowAll,
      declarationsTokenBudget: 50,
    });
    expect(runCode.declarations.mode).not.toBe('full');
    expect(runCode.description).toContain('declare const sluice: {');
    const code = `
      const hits = await sluice.searchTools('rain city');
      const declaration = await sluice.describeTool(hits[0].name);
      return { first: hits[0].name, declares: declaration.includes('forecast(input: {') };`;
    const text = await runCode.execute({ code });
    expect(text).toContain('"first": "weather.forecast"');
    expect(text).toContain('"declares": true');
  });

  it('answers input the model got wrong with text, not a throw', async () => {
    const runCode = createRunCodeTool({ context: ctx, tools: [], policy: allowAll });
    const cases: [JsonValue, string][] = [
      [null, 'the input must be an object'],
      [{ code: '   ' }, '`code` must be a non-empty string'],
      [{ code: 'return 1', timeoutMs: 99 }, 'unknown input field timeoutMs'],
    ];
    for (const [input, problem] of cases) {
      const outcome = await runCode.run(input);
      expect(outcome.result).toBeUndefined();
      expect(outcome.rendered.text).toContain(`[run_code] not run: ${problem}`);
    }
  });

  it('cuts a flood of output visibly and writes all of it to the spill file', async () => {
    const runCode = createRunCodeTool({
      context: ctx,
      tools: [],
      policy: allowAll,
      result: { tokenBudget: 300, spillDirectory },
    });
    const { result, rendered } = await runCode.run({
      code: "for (let i = 0; i < 400; i++) console.log('line ' + i + ' ' + 'x'.repeat(40)); return 'done';",
    });
    expect(rendered.cut).toBe(true);
    expect(rendered.text).toContain('[sluice] ✂');
    expect(rendered.text).toContain('"done"');
    expect(readFileSync(rendered.spillPath!, 'utf8')).toContain(`line 399 ${'x'.repeat(40)}`);
    expect(rendered.spillPath).toMatch(
      new RegExp(
        `^${spillDirectory}/sluice-results-${process.pid}-[A-Za-z0-9]{6}/sluice-output-${result?.runId}\\.txt$`,
      ),
    );
    expect(rendered.text).not.toContain(spillDirectory);
  });
});

describe('createRunCodeTool on the Python runtime', () => {
  const pythonContext = createContext();
  pythonContext.provide('codeRuntime', createPythonCodeRuntime({ wallTimeMs: 20_000 }));
  afterAll(() => pythonContext.dispose());

  it('describes Python programs with typed stubs and the runtime’s limits', () => {
    const runCode = createRunCodeTool({ context: pythonContext, tools: [forecast, cities], policy: allowAll });
    expect(runCode.description).toContain('Run a Python program');
    expect(runCode.description).toContain('async def forecast(*, city: str) -> ForecastOutput:');
    expect(runCode.description).toContain('- Wall clock: 20 s per run');
  });

  it('runs a Python program that fans out with asyncio.gather, calling a tool with no argument', async () => {
    const runCode = createRunCodeTool({ context: pythonContext, tools: [forecast, cities], policy: allowAll });
    const code = [
      'names = await weather.cities()',
      'results = await asyncio.gather(*(weather.forecast(city=name) for name in names))',
      'print("checked", len(results))',
      'return [entry["city"] for entry in results if entry["rain"] > 0.5]',
    ].join('\n');
    const text = await runCode.execute({ code });
    expect(text).toMatch(/^\[run_code\] ok · .* · 4 host calls · 1 log line\n/);
    expect(text).toContain('checked 3\n--- value (JSON) ---\n[\n  "Reykjavik"\n]\n');
  });

  it('gives Python programs the discovery functions, called with a plain string', async () => {
    const runCode = createRunCodeTool({
      context: pythonContext,
      tools: [forecast, cities],
      policy: allowAll,
      declarationsTokenBudget: 50,
    });
    expect(runCode.description).toContain('class sluice:');
    const code = 'hits = await sluice.searchTools("rain city")\nreturn await sluice.describeTool(hits[0]["name"])';
    const text = await runCode.execute({ code });
    expect(text).toContain('async def forecast(*, city: str)');
  });
});
