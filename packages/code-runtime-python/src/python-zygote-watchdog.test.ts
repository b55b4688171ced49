import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Zygote } from './python-zygote.js';
import type { ZygoteReport } from './wire-frames.js';

const fixture = fileURLToPath(new URL('./__fixtures__/zygote_slow_answers.py', import.meta.url));

/** Sends `forks` forks at once to a stand-in zygote answering one every `delayMs`; what it answered, and any death. */
async function burst(forks: number, delayMs: number, responseMs: number) {
  const answered: number[] = [];
  let death: string | undefined;
  let settle!: () => void;
  const over = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const zygote = new Zygote(
    { executable: 'python3', env: {}, flags: [], script: fixture, config: { delay: delayMs / 1000 } },
    (report: ZygoteReport) => {
      if (report.type === 'exit') answered.push(report.run);
      if (answered.length === forks) settle();
    },
    (message) => {
      death ??= message;
      settle();
    },
    responseMs,
  );
  expect('failure' in (await zygote.ready)).toBe(false);
  for (let run = 1; run <= forks; run += 1) zygote.fork(run, '0'.repeat(32), '/nonexistent');
  await over;
  const seen = death; // stopping it below is a death of its own
  await zygote.stop();
  return { answered, death: seen };
}

describe('the zygote watchdog', () => {
  it('takes a zygote answering a burst slowly but steadily for a live one', { timeout: 20_000 }, async () => {
    // Eight forks answered 150 ms apart: the last comes 1.2 s after it was asked for, each 150 ms after the one before.
    const { answered, death } = await burst(8, 150, 600);
    expect(death).toBeUndefined();
    expect(answered).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('replaces a zygote that answers none of its forks, saying how long it waited', { timeout: 20_000 }, async () => {
    const { answered, death } = await burst(3, 0, 300);
    expect(answered).toEqual([]);
    expect(death).toBe('the Python zygote did not answer any of the 3 forks waiting on it for 300 ms');
  });
});
