import { type CodeRunResult, utf8ByteLength } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import {
  type ConformanceSuite,
  eventRecorder,
  failureOf,
  logTexts,
  successOf,
  useRuntime,
} from './conformance-harness.js';
import { caseTimeoutMs, conformanceBudgets } from './conformance-options.js';
import type { ConformanceProgramName } from './programs.js';

const { logBytes, valueBytes } = conformanceBudgets;

/** Asserts the logs were cut at the budget and end with the truncation notice; returns the entries kept before it. */
function expectTruncatedLogs(result: CodeRunResult): string[] {
  expect(result.logsTruncated).toBe(true);
  const texts = logTexts(result);
  // Only the notice's prefix is stable; its wording is for the model and may change.
  expect(texts.at(-1)).toMatch(/^\[sluice\]/);
  const kept = texts.slice(0, -1);
  const keptBytes = kept.reduce((total, text) => total + utf8ByteLength(text), 0);
  expect(keptBytes).toBeLessThanOrEqual(logBytes);
  return kept;
}

const nonJsonPrograms: ReadonlyArray<{ program: ConformanceProgramName; log: string }> = [
  { program: 'returnNaN', log: 'dividing' },
  { program: 'returnCycle', log: 'linking' },
  { program: 'returnExotic', log: 'counting' },
  { program: 'returnFunction', log: 'formatting' },
];

/** Output budgets (logs, value size, JSON) and the memory budget. */
export function describeLimitCases(suite: ConformanceSuite): void {
  describe('limits', () => {
    const runtime = useRuntime(suite, conformanceBudgets);
    const { programs } = suite;

    it(
      'cuts a log flood at the budget, marks the cut and flags it, streaming no more than it keeps',
      async () => {
        const recorder = eventRecorder();
        const result = await runtime().run({ program: programs.logFlood, onEvent: recorder.onEvent });
        const kept = expectTruncatedLogs(result);
        expect(kept.length).toBeGreaterThan(10);
        expect(kept.length).toBeLessThan(5000);
        kept.forEach((text, index) => {
          const line = `line ${index} ${'x'.repeat(40)}`;
          if (index < kept.length - 1) expect(text).toBe(line);
          else expect(line.startsWith(text)).toBe(true);
        });
        const streamed = recorder.events.flatMap((event) => (event.type === 'log' ? [event.text] : []));
        expect(streamed).toEqual(logTexts(result));
      },
      caseTimeoutMs,
    );

    it(
      'cuts a single long line on a character boundary',
      async () => {
        const result = await runtime().run({ program: programs.longLine });
        const kept = expectTruncatedLogs(result);
        for (const text of kept) expect(text).toMatch(/^(?:\u{1F30A})*$/u);
      },
      caseTimeoutMs,
    );

    it(
      'fails with output-limit for a value over the value budget, keeping logs',
      async () => {
        const result = await runtime().run({ program: programs.oversizedValue });
        const failure = failureOf(result, 'output-limit');
        expect(failure.limitBytes).toBe(valueBytes);
        expect(logTexts(result)).toEqual(['returning a lot']);
      },
      caseTimeoutMs,
    );

    it(
      'fails with invalid-output for a value that is not lossless JSON, keeping logs',
      async () => {
        for (const { program, log } of nonJsonPrograms) {
          const result = await runtime().run({ program: programs[program] });
          failureOf(result, 'invalid-output');
          expect(logTexts(result)).toEqual([log]);
        }
      },
      caseTimeoutMs,
    );

    it(
      'fails with memory for a program that exhausts its memory, keeping logs, and serves the next run',
      async () => {
        const result = await runtime().run({ program: programs.memoryBomb });
        const failure = failureOf(result, 'memory');
        if (failure.limitBytes !== undefined) expect(failure.limitBytes).toBeGreaterThan(0);
        expect(logTexts(result)).toEqual(['allocating']);
        const next = successOf(await runtime().run({ program: programs.returnValue }));
        expect(next.value).toMatchObject({ answer: 42 });
      },
      caseTimeoutMs,
    );
  });
}
