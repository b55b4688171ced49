import type { Tool } from '@sluice/permissions';
import { describe, expect, it } from 'vitest';
import { estimateTokens, generateDeclarations } from './declarations.js';
import { runCodeDescription } from './run-code-description.js';

const forecast: Tool = {
  name: 'weather.forecast',
  description: 'Chance of rain tomorrow for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: () => null,
};

function describeFor(language: 'typescript' | 'python', limits = { wallTimeMs: 30_000, hostCalls: 50 }) {
  const declarations = generateDeclarations([forecast], { language });
  return { text: runCodeDescription({ language, declarations, limits }), declarations };
}

describe('runCodeDescription', () => {
  it.each(['typescript', 'python'] as const)('reads as pinned for %s', async (language) => {
    await expect(describeFor(language).text).toMatchFileSnapshot(`./__snapshots__/description.${language}.txt`);
  });

  it.each(['typescript', 'python'] as const)(
    'costs under 450 estimated tokens for %s beyond the declarations',
    (language) => {
      // Sent on every model turn: a sentence added here is paid for in every conversation.
      const { text, declarations } = describeFor(language);
      expect(estimateTokens(text) - estimateTokens(declarations.text)).toBeLessThan(450);
    },
  );

  it('names the first declared tool in the calling example, and says what a program may use', () => {
    const typescript = describeFor('typescript').text;
    expect(typescript).toContain('await weather.forecast({ ... })');
    expect(typescript).toContain('`JSON.stringify`');
    expect(typescript).toMatch(/Globals: the JavaScript built-ins/);
    const python = describeFor('python').text;
    expect(python).toContain('await weather.forecast(key=value)');
    expect(python).toContain('The standard library can be imported; third-party packages cannot.');
  });

  it('never names a deferred tool the model cannot see in the calling example', () => {
    const declarations = generateDeclarations([{ ...forecast, deferred: true }], { language: 'typescript' });
    expect(declarations.deferred).toEqual(['weather.forecast']);
    const text = runCodeDescription({ language: 'typescript', declarations, limits: {} });
    expect(text).not.toContain('weather.forecast');
  });

  it('is well-formed Unicode when a tool description holds half of a surrogate pair', () => {
    const broken: Tool = { ...forecast, description: `Rain for a city ${'🌧️'.slice(0, 1)} (an upstream cut this)` };
    for (const language of ['typescript', 'python'] as const) {
      const declarations = generateDeclarations([broken], { language });
      const text = runCodeDescription({ language, declarations, limits: {} });
      expect(text).toContain('Rain for a city \uFFFD (an upstream cut this)');
      expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });
});
