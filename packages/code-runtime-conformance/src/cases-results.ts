import type { CodeRuntimeLanguage, LogEntry } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { type ConformanceSuite, echo, failureOf, logTexts, successOf, useRuntime } from './conformance-harness.js';
import { caseTimeoutMs, conformanceBudgets } from './conformance-options.js';
import { lineOf } from './program-lines.js';

const expectedLogs: Record<CodeRuntimeLanguage, LogEntry[]> = {
  typescript: [
    { level: 'log', text: 'one' },
    { level: 'info', text: 'two' },
    { level: 'warn', text: 'three' },
    { level: 'error', text: 'four' },
    { level: 'debug', text: 'five' },
    { level: 'log', text: 'count 3' },
    { level: 'log', text: 'first line' },
    { level: 'log', text: 'second line' },
  ],
  python: [
    { level: 'log', text: 'one' },
    { level: 'error', text: 'two' },
    { level: 'log', text: 'count 3' },
    { level: 'log', text: 'first line' },
    { level: 'log', text: 'second line' },
    { level: 'log', text: 'three' },
  ],
};

const thrownErrorName: Record<CodeRuntimeLanguage, string> = { typescript: 'Error', python: 'ValueError' };

/** Values, logs, and programs that throw or do not compile. */
export function describeResultCases(suite: ConformanceSuite): void {
  describe('results', () => {
    const runtime = useRuntime(suite, conformanceBudgets);
    const { programs } = suite;

    it(
      'returns the value the program returned',
      async () => {
        const result = successOf(await runtime().run({ program: programs.returnValue }));
        expect(result.value).toEqual({
          answer: 42,
          list: [1, 'two', true, null],
          nested: { text: 'héllo ✓ 🌊', ratio: -1.5 },
        });
        expect(result).toMatchObject({ logs: [], logsTruncated: false, calls: [], usage: { hostCalls: 0 } });
        expect(typeof result.runId).toBe('string');
        expect(result.usage.wallMs).toBeGreaterThanOrEqual(0);
      },
      caseTimeoutMs,
    );

    it(
      'has no value when the program returns nothing',
      async () => {
        const result = successOf(await runtime().run({ program: programs.returnNothing }));
        expect('value' in result).toBe(false);
      },
      caseTimeoutMs,
    );

    it(
      'returns null when the program returns null',
      async () => {
        const result = successOf(await runtime().run({ program: programs.returnNull }));
        expect('value' in result).toBe(true);
        expect(result.value).toBeNull();
      },
      caseTimeoutMs,
    );

    it(
      'keeps log lines in order, with their levels, one entry per line',
      async () => {
        const result = successOf(await runtime().run({ program: programs.logLines }));
        expect(result.logs).toEqual(expectedLogs[suite.language]);
        expect(result.logsTruncated).toBe(false);
      },
      caseTimeoutMs,
    );

    it(
      'reports a throw as an exception at the line it was thrown from, keeping earlier logs',
      async () => {
        const result = await runtime().run({ program: programs.throwError });
        const failure = failureOf(result, 'exception');
        expect(failure.name).toBe(thrownErrorName[suite.language]);
        expect(failure.line).toBe(lineOf(programs.throwError, 'boom'));
        expect(failure.message).toContain('boom');
        expect(logTexts(result)).toEqual([suite.language === 'python' ? 'before the raise' : 'before the throw']);
      },
      caseTimeoutMs,
    );

    it(
      'reports a syntax error as an exception and runs none of the program',
      async () => {
        const tool = echo();
        const result = await runtime().run({ program: programs.syntaxError, bindings: { tools: { echo: tool } } });
        const failure = failureOf(result, 'exception');
        // A line is optional for a syntax error, but a wrong one would send the model to the wrong place.
        if (failure.line !== undefined) expect(failure.line).toBe(lineOf(programs.syntaxError, 'broken ='));
        expect(result.logs).toEqual([]);
        expect(result.calls).toEqual([]);
        expect(tool.invocations).toEqual([]);
      },
      caseTimeoutMs,
    );
  });
}
