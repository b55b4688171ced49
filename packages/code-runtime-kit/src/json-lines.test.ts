import { describe, expect, it } from 'vitest';
import { JsonLineReader } from './json-lines.js';

function reader(maxLineBytes: number) {
  const values: unknown[] = [];
  const problems: string[] = [];
  const lines = new JsonLineReader(
    maxLineBytes,
    (value) => values.push(value),
    (problem) => problems.push(problem),
  );
  return { lines, values, problems };
}

describe('JsonLineReader', () => {
  it('delivers complete lines, however the bytes are split', () => {
    const { lines, values, problems } = reader(1024);
    const bytes = Buffer.from('{"a":"héllo 🌊"}\n[1,2]\n"three"\n');
    for (const byte of bytes) lines.push(Buffer.from([byte]));
    expect(values).toEqual([{ a: 'héllo 🌊' }, [1, 2], 'three']);
    expect(problems).toEqual([]);
  });

  it('refuses a line once it passes the limit, before holding the rest of it', () => {
    const { lines, values, problems } = reader(10);
    lines.push(Buffer.from('"12345'));
    expect(problems).toEqual([]);
    lines.push(Buffer.from('67890'));
    expect(problems).toEqual(['a line longer than 10 bytes']);
    lines.push(Buffer.from('"\n1\n'));
    expect(values).toEqual([]);
    expect(lines.stopped).toBe(true);
  });

  it('refuses invalid UTF-8 and text that is not JSON, and stops at the first problem', () => {
    const invalid = reader(100);
    invalid.lines.push(Buffer.from([0x22, 0xff, 0x22, 0x0a, 0x31, 0x0a]));
    expect(invalid.problems).toEqual(['a line that is not valid UTF-8']);
    expect(invalid.values).toEqual([]);
    const garbage = reader(100);
    garbage.lines.push(Buffer.from('1\nnot json\n2\n'));
    expect(garbage.values).toEqual([1]);
    expect(garbage.problems).toEqual(['a line that is not JSON']);
  });

  it('calls a partial line at the end of the stream a problem', () => {
    const { lines, problems } = reader(100);
    lines.push(Buffer.from('{"cut": '));
    lines.end();
    expect(problems).toEqual(['a partial line at the end of the stream']);
  });

  it('delivers nothing after stop', () => {
    const { lines, values } = reader(100);
    lines.push(Buffer.from('1\n2'));
    lines.stop();
    lines.push(Buffer.from('\n3\n'));
    expect(values).toEqual([1]);
  });
});
