import { describe, expect, it } from 'vitest';
import { toolResultValue } from './upstream-result.js';

describe('toolResultValue', () => {
  it('prefers structured content', () => {
    expect(
      toolResultValue({ content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } }, 'lab.add'),
    ).toEqual({
      sum: 3,
    });
  });

  it('gives one text item as a string, several as an array, none as null', () => {
    expect(toolResultValue({ content: [{ type: 'text', text: 'hi' }] }, 'lab.echo')).toBe('hi');
    expect(
      toolResultValue(
        {
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
        'lab.echo',
      ),
    ).toEqual(['a', 'b']);
    expect(toolResultValue({ content: [] }, 'lab.echo')).toBeNull();
  });

  it('gives mixed content as the content items', () => {
    const content = [
      { type: 'text' as const, text: 'a chart' },
      { type: 'image' as const, data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ];
    expect(toolResultValue({ content }, 'lab.chart')).toEqual(content);
  });

  it('turns isError into an error carrying the tool text', () => {
    expect(() =>
      toolResultValue({ content: [{ type: 'text', text: 'no such repository' }], isError: true }, 'github.get_repo'),
    ).toThrow('github.get_repo returned an error: no such repository');
    expect(() => toolResultValue({ content: [], isError: true }, 'lab.fail')).toThrow('(no message)');
  });
});
