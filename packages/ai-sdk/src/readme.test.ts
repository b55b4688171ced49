import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { compareWeather } from '../examples/compare-weather.js';

const packageDir = join(import.meta.dirname, '..');
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

describe('README', () => {
  it('quotes the example file exactly', () => {
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    const example = readFileSync(join(packageDir, 'examples/compare-weather.ts'), 'utf8').trimEnd();
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
});
