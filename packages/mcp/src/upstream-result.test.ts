import { describe, expect, it } from 'vitest';
import { toolResultValue } from './upstream-result.js';

const image = { type: 'image' as const, data: 'iVBORw0KGgo=', mimeType: 'image/png' };

describe('toolResultValue', () => {
  it('gives a schema tool its structured content', () => {
    expect(
      toolResultValue({ content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } }, 'lab.add', {
        outputSchema: true,
      }),
    ).toEqual({ sum: 3 });
  });

  it('gives a schema tool its value also when the result is an error', () => {
    const result = {
      content: [{ type: 'text' as const, text: 'exit code 2' }],
      structuredContent: { output: 'grep: no such file', exitCode: 2 },
      isError: true,
    };
    expect(toolResultValue(result, 'shell.run', { outputSchema: true })).toEqual({
      output: 'grep: no such file',
      exitCode: 2,
    });
  });

  it('rejects with the text when a schema tool errs without a value', () => {
    expect(() =>
      toolResultValue({ content: [{ type: 'text', text: 'disk full' }], isError: true }, 'shell.run', {
        outputSchema: true,
      }),
    ).toThrow('shell.run returned an error: disk full');
  });

  it('gives a tool without a schema its content, not structured content it sent anyway', () => {
    expect(
      toolResultValue({ content: [{ type: 'text', text: 'hi' }], structuredContent: { said: 'hi' } }, 'lab.echo'),
    ).toBe('hi');
  });

  it('gives one text item as a string, one image as its content, nothing as ""', () => {
    expect(toolResultValue({ content: [{ type: 'text', text: 'hi' }] }, 'lab.echo')).toBe('hi');
    expect(toolResultValue({ content: [image] }, 'lab.chart')).toEqual(image);
    expect(toolResultValue({ content: [] }, 'lab.echo')).toBe('');
  });

  it('gives anything else as the content list, several texts too', () => {
    const texts = [
      { type: 'text' as const, text: 'a' },
      { type: 'text' as const, text: 'b' },
    ];
    expect(toolResultValue({ content: texts }, 'lab.echo')).toEqual(texts);
    const mixed = [{ type: 'text' as const, text: 'a chart' }, image];
    expect(toolResultValue({ content: mixed }, 'lab.chart')).toEqual(mixed);
  });

  it('turns isError into an error carrying the tool text', () => {
    expect(() =>
      toolResultValue({ content: [{ type: 'text', text: 'no such repository' }], isError: true }, 'github.get_repo'),
    ).toThrow('github.get_repo returned an error: no such repository');
    expect(() =>
      toolResultValue(
        { content: [{ type: 'text', text: 'no' }], structuredContent: { said: 'no' }, isError: true },
        'lab.echo',
      ),
    ).toThrow('lab.echo returned an error: no');
    expect(() => toolResultValue({ content: [], isError: true }, 'lab.fail')).toThrow('(no message)');
  });
});
