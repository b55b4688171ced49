import { utf8ByteLength } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { LogBuffer, logTruncationNotice } from './log-buffer.js';

describe('LogBuffer', () => {
  it('keeps lines under the budget, counting one byte per line for the newline', () => {
    const buffer = new LogBuffer(100);
    expect(buffer.add('log', 'one')).toEqual([{ level: 'log', text: 'one' }]);
    expect(buffer.add('error', 'héllo')).toEqual([{ level: 'error', text: 'héllo' }]);
    expect(buffer.entries).toEqual([
      { level: 'log', text: 'one' },
      { level: 'error', text: 'héllo' },
    ]);
    expect(buffer.keptBytes).toBe(4 + 7);
    expect(buffer.truncated).toBe(false);
    expect(buffer.droppedBytes).toBe(0);
  });

  it('keeps a line that fills the budget exactly without truncating', () => {
    const buffer = new LogBuffer(4);
    buffer.add('log', 'abc');
    expect(buffer.truncated).toBe(false);
    expect(buffer.keptBytes).toBe(4);
  });

  it('cuts the line that crosses the budget on a character boundary and adds the notice', () => {
    const buffer = new LogBuffer(10);
    buffer.add('log', 'abc');
    // 5 bytes of room minus the newline leave 4: one whole wave, never half of its surrogate pair.
    const kept = buffer.add('info', '🌊🌊');
    expect(kept).toEqual([
      { level: 'info', text: '🌊' },
      { level: 'warn', text: logTruncationNotice(10) },
    ]);
    expect(buffer.entries.slice(-2)).toEqual(kept);
    expect(buffer.truncated).toBe(true);
    expect(buffer.keptBytes).toBe(4 + 5);
    expect(buffer.droppedBytes).toBe(4);
  });

  it('cuts multi-byte text to whole characters', () => {
    const buffer = new LogBuffer(8);
    const [cut] = buffer.add('log', 'ééééé');
    expect(cut?.text).toBe('ééé');
    expect(utf8ByteLength(cut?.text ?? '') + 1).toBeLessThanOrEqual(8);
  });

  it('adds only the notice when no room is left for any of the crossing line', () => {
    const buffer = new LogBuffer(5);
    buffer.add('log', 'abc');
    expect(buffer.add('log', 'xyz')).toEqual([{ level: 'warn', text: logTruncationNotice(5) }]);
    expect(buffer.droppedBytes).toBe(4);
  });

  it('never keeps an empty line that the program did not print', () => {
    const buffer = new LogBuffer(6);
    buffer.add('log', 'abc');
    // One byte of room, but the next character takes two.
    expect(buffer.add('log', 'éé')).toEqual([{ level: 'warn', text: logTruncationNotice(6) }]);
    expect(buffer.keptBytes).toBe(4);
    expect(buffer.droppedBytes).toBe(5);
  });

  it('drops and counts everything after the notice', () => {
    const buffer = new LogBuffer(5);
    buffer.add('log', 'abcdefgh');
    const entries = buffer.entries.length;
    expect(buffer.add('log', 'later')).toEqual([]);
    expect(buffer.add('error', 'é')).toEqual([]);
    expect(buffer.entries).toHaveLength(entries);
    expect(buffer.droppedBytes).toBe(9 - 5 + 6 + 3);
  });

  it('replaces a lone surrogate with U+FFFD, counting it as the three bytes it then takes', () => {
    const buffer = new LogBuffer(100);
    const launch = 'Launch 🚀 party'.slice(0, 8);
    expect(buffer.add('log', launch)).toEqual([{ level: 'log', text: 'Launch \uFFFD' }]);
    expect(buffer.add('warn', '\uDE80 low, \uD83D\uDE80 whole, high \uD83D')).toEqual([
      { level: 'warn', text: '\uFFFD low, 🚀 whole, high \uFFFD' },
    ]);
    expect(buffer.keptBytes).toBe(
      utf8ByteLength('Launch \uFFFD') + 1 + utf8ByteLength('\uFFFD low, 🚀 whole, high \uFFFD') + 1,
    );
  });

  it('leaves no lone surrogate in the line that crosses the budget', () => {
    const buffer = new LogBuffer(10);
    // 9 bytes of room after the newline: 'ab' (2), a lone high surrogate read as U+FFFD (3), the pair (4).
    const [cut] = buffer.add('log', 'ab\uD83D🚀cd');
    expect(cut?.text).toBe('ab\uFFFD🚀');
    expect(buffer.truncated).toBe(true);
    expect(buffer.keptBytes).toBe(10);
  });

  it('writes a notice that starts with [sluice] and names the budget', () => {
    expect(logTruncationNotice(4096)).toMatch(/^\[sluice\] /);
    expect(logTruncationNotice(4096)).toContain('4096');
  });
});
