import { describe, expect, it } from 'vitest';
import type { CliStream } from './cli-io.js';
import { ProgressLine } from './cli-progress.js';

function stream(isTTY: boolean): CliStream & { text: string } {
  return {
    isTTY,
    text: '',
    write(chunk: string) {
      this.text += chunk;
    },
  };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('ProgressLine', () => {
  it('draws elapsed time and host calls on a terminal, and clears it at the end', async () => {
    const stderr = stream(true);
    const progress = new ProgressLine(stderr, { delayMs: 0, intervalMs: 5 });
    progress.hostCall();
    progress.hostCall();
    await until(() => stderr.text.includes('running ·'));
    progress.stop();
    expect(stderr.text).toMatch(/\r\x1b\[2Krunning · \d+\.\d s · 2 host calls/);
    expect(stderr.text.endsWith('\r\x1b[2K')).toBe(true);
  });

  it('clears the line before a log line and draws it again after', async () => {
    const stderr = stream(true);
    const stdout = stream(true);
    const progress = new ProgressLine(stderr, { delayMs: 0, intervalMs: 5 });
    await until(() => stderr.text.includes('running ·'));
    const before = stderr.text.length;
    progress.print(stdout, 'hello\n');
    progress.stop();
    expect(stdout.text).toBe('hello\n');
    expect(stderr.text.slice(before)).toMatch(/^\r\x1b\[2K\r\x1b\[2Krunning · /);
  });

  it('draws nothing when the stream is not a terminal', async () => {
    const stderr = stream(false);
    const stdout = stream(false);
    const progress = new ProgressLine(stderr, { delayMs: 0, intervalMs: 5 });
    progress.hostCall();
    await new Promise((resolve) => setTimeout(resolve, 60));
    progress.print(stdout, 'line\n');
    progress.stop();
    expect(stderr.text).toBe('');
    expect(stdout.text).toBe('line\n');
  });
});
