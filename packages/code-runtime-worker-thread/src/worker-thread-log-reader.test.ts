import { describe, expect, it } from 'vitest';
import { LogReader, logBufferBytes } from './worker-thread-log-reader.js';

/** A log buffer as a worker of run `seq` leaves it after printing `lines` at level 1 (`log`). */
function written(seq: number, lines: readonly string[]): { buffer: SharedArrayBuffer; ends: number[] } {
  const buffer = new SharedArrayBuffer(logBufferBytes(1024, 4));
  const data = new Uint16Array(buffer, 16);
  const ends: number[] = [];
  let position = 0;
  for (const line of lines) {
    data[position] = 1;
    for (let index = 0; index < line.length; index += 1) data[position + 1 + index] = line.charCodeAt(index);
    data[position + 1 + line.length] = 10;
    position += line.length + 2;
    ends.push(position);
  }
  const header = new Int32Array(buffer, 0, 4);
  Atomics.store(header, 0, position);
  Atomics.store(header, 1, seq);
  return { buffer, ends };
}

describe('LogReader', () => {
  it('takes an end behind what a poll already read as nothing left to read, not as a breach', () => {
    const { buffer, ends } = written(3, ['first', 'second']);
    const reader = new LogReader(buffer);
    reader.reset(3);
    const texts: string[] = [];
    // The poll reads everything published; then the turn that printed only the first line reports its end.
    expect(reader.read((_level, text) => texts.push(text))).toBe(true);
    expect(reader.read((_level, text) => texts.push(text), ends[0])).toBe(true);
    expect(texts).toEqual(['first', 'second']);
  });

  it('refuses an end past the buffer or one that cuts a line', () => {
    const { buffer, ends } = written(3, ['first', 'second']);
    const reader = new LogReader(buffer);
    reader.reset(3);
    expect(reader.read(() => {}, Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(reader.read(() => {}, 1.5)).toBe(false);
    expect(reader.read(() => {}, ends[0]! + 2)).toBe(false);
  });
});
