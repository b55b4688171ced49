import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { compareWeather } from '../examples/compare-weather.js';
import { whoIs } from '../examples/find-customer.js';
import { scriptedSteps } from './ai-sdk-run-code-tool.test-helper.js';
import { LoadedTools } from './index.js';

const packageDir = join(import.meta.dirname, '..');
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

describe('README', () => {
  it.each(['compare-weather.ts', 'find-customer.ts'])('quotes the example file %s exactly', (file) => {
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    const example = readFileSync(join(packageDir, 'examples', file), 'utf8').trimEnd();
    expect(readme).toContain(`\`\`\`ts\n${example}\n\`\`\``);
  });

  it('runs the example with a model that writes one program', async () => {
    const code = `const reports = await Promise.all(['Oslo', 'Lisbon', 'Nairobi'].map((city) => tools.getWeather({ city })));
return reports.sort((a, b) => b.celsius - a.celsius)[0].city;`;
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'run_code', input: JSON.stringify({ code }) }],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        },
        {
          content: [{ type: 'text', text: 'Nairobi is warmest.' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        },
      ],
    });
    expect(await compareWeather(model)).toBe('Nairobi is warmest.');
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toContain('\\"Nairobi\\"');
  });

  it('runs the search example with a model that searches, then writes a program', async () => {
    const loadedTools = new LoadedTools();
    const model = new MockLanguageModelV3({
      doGenerate: scriptedSteps([
        { toolName: 'search_tools', input: { query: 'customer by email' } },
        { toolName: 'run_code', input: { code: `return await crm.findCustomer({ email: 'ada@example.com' });` } },
      ]),
    });
    expect(await whoIs(model, 'ada@example.com', loadedTools)).toBe('Done.');
    expect(loadedTools.values()).toEqual(['crm.findCustomer']);
    const runCode = (step: number) =>
      (model.doGenerateCalls[step]!.tools ?? []).find((entry) => entry.name === 'run_code') as { description: string };
    expect(runCode(0).description).not.toContain('findCustomer(input');
    expect(runCode(1).description).toContain('findCustomer(input: {');
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toContain(
      'crm.findCustomer: Find a customer record by email address. (loaded now)',
    );
    expect(JSON.stringify(model.doGenerateCalls[2]!.prompt)).toContain('Ada Lovelace');
  });
});
