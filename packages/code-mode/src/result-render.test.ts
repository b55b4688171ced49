import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeRunFailed, CodeRunResult, CodeRunSuccess } from '@sluice/code-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { estimateTokens } from './declarations.js';
import { renderResult } from './result-budget.js';
import { renderSections } from './result-render.js';

const base = {
  runId: 'run_0123456789abcdef',
  logsTruncated: false,
  usage: { wallMs: 41.6, cpuMs: 12.2, hostCalls: 3, outputBytes: 120 },
};

const success: CodeRunSuccess = {
  ...base,
  ok: true,
  logs: [
    { level: 'log', text: 'fetched 3 forecasts' },
    { level: 'warn', text: 'Lima has no data for day 3' },
  ],
  calls: [],
  value: { wettest: 'Oslo', rain: 0.8 },
};

const failure: CodeRunFailed = {
  ...base,
  ok: false,
  logs: [{ level: 'log', text: 'deleting 2 stale issues' }],
  calls: [
    { callId: 'c1', namespace: 'issues', name: 'search', ok: true, ms: 3.4 },
    {
      callId: 'c2',
      namespace: 'issues',
      name: 'delete_',
      ok: false,
      ms: 0.2,
      error: 'Permission denied: issues.delete_ is not allowed: deleting is off in the demo.',
    },
  ],
  failure: {
    kind: 'exception',
    name: 'Error',
    message: 'Permission denied: issues.delete_ is not allowed: deleting is off in the demo.',
    line: 4,
    column: 9,
    stack: 'Error: Permission denied\n    at program:4:9',
  },
};

const directories: string[] = [];
function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), 'sluice-render-test-'));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function floodOfLogs(lines: number): CodeRunResult {
  const logs = Array.from({ length: lines }, (_, index) => ({
    level: 'log' as const,
    text: `line ${index} ${'x'.repeat(60)}`,
  }));
  return { ...success, logs, value: { done: true, lines } };
}

describe('renderSections', () => {
  it('renders a success as header, logs and the value as JSON', () => {
    const { header, body } = renderSections(success);
    expect(`${header}\n${body}`).toBe(
      [
        '[run_code] ok · 42 ms · 12 ms CPU · 3 host calls · 2 log lines',
        '--- logs ---',
        'fetched 3 forecasts',
        '[warn] Lima has no data for day 3',
        '--- value (JSON) ---',
        '{',
        '  "wettest": "Oslo",',
        '  "rain": 0.8',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('renders a failure with its kind, message, place, stack and every host call made', () => {
    const { header, body } = renderSections(failure);
    expect(`${header}\n${body}`).toBe(
      [
        '[run_code] failed: exception · 42 ms · 12 ms CPU · 3 host calls · 1 failed · 1 log line',
        '--- logs ---',
        'deleting 2 stale issues',
        '--- failure ---',
        'kind: exception',
        'message: Permission denied: issues.delete_ is not allowed: deleting is off in the demo.',
        'error: Error',
        'at: line 4, column 9',
        'stack:',
        'Error: Permission denied',
        '    at program:4:9',
        '--- host calls (2, in order) ---',
        'c1 issues.search: ok, 3 ms',
        'c2 issues.delete_: error, 0 ms: Permission denied: issues.delete_ is not allowed: deleting is off in the demo.',
        '',
      ].join('\n'),
    );
  });

  it('names the budget of a timeout and says when there were no logs, no calls or no value', () => {
    const timeout: CodeRunFailed = {
      ...base,
      ok: false,
      logs: [],
      calls: [],
      failure: { kind: 'timeout', budget: 'wall-time', limitMs: 1500, message: 'The program ran past its budget.' },
    };
    const text = Object.values(renderSections(timeout)).join('\n');
    expect(text).toContain('budget: wall-time, 1500 ms');
    expect(text).toContain('--- logs ---\n(none)');
    expect(text).toContain('--- host calls ---\n(none)');
    const nothing = Object.values(renderSections({ ...success, value: undefined })).join('\n');
    expect(nothing).toContain('(the program returned nothing)');
  });

  it('says of an unavailable run how long it waited and that its program did not start', () => {
    const unavailable: CodeRunFailed = {
      ...base,
      ok: false,
      logs: [],
      calls: [],
      failure: { kind: 'unavailable', limitMs: 30_000, message: 'The runtime had no free substrate.' },
    };
    const { header, body } = renderSections(unavailable);
    expect(header).toContain('failed: unavailable');
    expect(body).toContain('waited: 30000 ms for the runtime; the program did not start');
  });

  it('says in the header and the logs heading when the log budget cut the logs', () => {
    const { header, body } = renderSections({ ...success, logsTruncated: true });
    expect(header).toContain('logs truncated');
    expect(body).toContain('--- logs (truncated by the log budget) ---');
  });
});

describe('renderSections, host calls of a failed run', () => {
  it('puts neighbours that ended alike on one line, in order, so a fan-out cannot crowd out the failure', () => {
    const search = (index: number, ms: number) => ({
      callId: `c${index}`,
      namespace: 'issues',
      name: 'search',
      ok: true,
      ms,
    });
    const calls = [
      ...Array.from({ length: 400 }, (_, index) => search(index + 1, 1 + (index % 9))),
      { callId: 'c401', namespace: 'issues', name: 'close', ok: false, ms: 0.4, error: 'Issue 7 is locked.' },
      { callId: 'c402', namespace: 'issues', name: 'close', ok: false, ms: 0.6, error: 'Issue 7 is locked.' },
      { callId: 'c403', namespace: 'issues', name: 'close', ok: false, ms: 0.2, error: 'Issue 9 is locked.' },
      search(404, 3),
      { callId: 'c405', namespace: 'issues', name: 'close', ok: false, ms: 1 },
    ] as CodeRunFailed['calls'];
    const body = renderSections({ ...failure, calls }).body;
    expect(body.split('--- host calls')[1]!.split('\n')).toEqual([
      ' (405, in order) ---',
      'c1, c2, c3 … c400 issues.search (400 calls): ok, 1–9 ms',
      'c401, c402 issues.close (2 calls): error, 0–1 ms: Issue 7 is locked.',
      'c403 issues.close: error, 0 ms: Issue 9 is locked.',
      'c404 issues.search: ok, 3 ms',
      'c405 issues.close: error, 1 ms: (no reason given)',
      '',
    ]);
    const flooded = renderResult(
      { ...failure, calls, logs: floodOfLogs(2_000).logs },
      { tokenBudget: 1_000, spillDirectory: scratch() },
    );
    expect(flooded.cut).toBe(true);
    expect(flooded.text).toContain(`message: ${failure.failure.message}`);
  });
});

describe('renderSections, failed host calls of an ok run', () => {
  const call = (index: number, name: string, error?: string) => ({
    callId: `c${index}`,
    namespace: 'weather',
    name,
    ms: 1,
    ...(error === undefined ? { ok: true } : { ok: false, error }),
  });

  it('lists each failed call with its name and reason before the logs, and says the run still ended ok', () => {
    const calls = [
      call(1, 'forecast'),
      call(2, 'forecast', 'Lima is not a city this service covers.'),
      call(3, 'delete_station', 'Permission denied: weather.delete_station is not allowed.'),
    ] as CodeRunSuccess['calls'];
    const { header, body } = renderSections({ ...success, calls });
    expect(header).toContain('3 host calls · 2 failed');
    expect(body.split('\n').slice(0, 4)).toEqual([
      '--- failed host calls (2 of 3; the run still ended ok) ---',
      'c2 weather.forecast: Lima is not a city this service covers.',
      'c3 weather.delete_station: Permission denied: weather.delete_station is not allowed.',
      '--- logs ---',
    ]);
  });

  it('adds no section when every call succeeded', () => {
    const calls = [call(1, 'forecast')] as CodeRunSuccess['calls'];
    expect(renderSections({ ...success, calls }).body).not.toContain('failed host calls');
  });

  it('groups calls that failed alike, lists the first few reasons and counts the rest', () => {
    const calls = [
      ...Array.from({ length: 40 }, (_, index) => call(index + 1, 'forecast', 'Rate limited: retry in 2 s.')),
      ...Array.from({ length: 9 }, (_, index) => call(41 + index, `station_${index}`, `Station ${index} is offline.`)),
      call(50, 'forecast', ''),
    ] as CodeRunSuccess['calls'];
    const section = renderSections({ ...success, calls }).body.split('\n--- logs ---')[0]!;
    expect(section.split('\n')).toEqual([
      '--- failed host calls (50 of 50; the run still ended ok) ---',
      'c1, c2, c3 … c40 weather.forecast (40 calls): Rate limited: retry in 2 s.',
      'c41 weather.station_0: Station 0 is offline.',
      'c42 weather.station_1: Station 1 is offline.',
      'c43 weather.station_2: Station 2 is offline.',
      'c44 weather.station_3: Station 3 is offline.',
      '… 6 more failed calls with 6 other reasons not listed; print the errors the program catches to see them all.',
    ]);
    const few = [call(1, 'forecast', 'down'), call(2, 'forecast', 'down'), call(3, 'forecast')];
    expect(renderSections({ ...success, calls: few as CodeRunSuccess['calls'] }).body).toContain(
      'c1, c2 weather.forecast (2 calls): down',
    );
  });

  it('cuts a long reason with a visible marker, so the section stays small', () => {
    const calls = Array.from({ length: 20 }, (_, index) =>
      call(index + 1, `tool_${index}`, `${index}: ${'upstream said no. '.repeat(50_000)}`),
    ) as CodeRunSuccess['calls'];
    const section = renderSections({ ...success, calls }).body.split('\n--- logs ---')[0]!;
    expect(Buffer.byteLength(section)).toBeLessThan(3_000);
    expect(section).toContain('c1 weather.tool_0: 0: upstream said no.');
    expect(section).toMatch(/ … \[cut: \d+ characters in all\]\n/);
    expect(section).toContain('15 more failed calls with 15 other reasons not listed');
  });

  it('keeps the failed calls in a result cut for its budget', () => {
    const calls = [call(1, 'forecast', 'Lima is not a city this service covers.')] as CodeRunSuccess['calls'];
    const rendered = renderResult({ ...floodOfLogs(2_000), calls }, { tokenBudget: 1_000, spillDirectory: scratch() });
    expect(rendered.cut).toBe(true);
    expect(rendered.text).toContain('c1 weather.forecast: Lima is not a city this service covers.');
  });
});

describe('renderSections, well-formed Unicode', () => {
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  const launch = 'Launch 🚀 party'.slice(0, 8);

  it('shows a lone surrogate in a log, a reason or a value as U+FFFD or a JSON escape, never bare', () => {
    const calls = [
      { callId: 'c1', namespace: 'tools', name: 'post', ok: false, ms: 1, error: `refused: ${launch}` },
    ] as CodeRunSuccess['calls'];
    const text = Object.values(
      renderSections({ ...success, logs: [{ level: 'log', text: launch }], calls, value: launch }),
    ).join('\n');
    expect(text).not.toMatch(lone);
    expect(text).toContain('Launch \uFFFD\n');
    expect(text).toContain('c1 tools.post: refused: Launch \uFFFD');
    expect(text).toContain('"Launch \\ud83d"');
  });

  it('shows a lone surrogate in a failure message, stack, reason and host call as U+FFFD, keeping whole pairs', () => {
    const broken: CodeRunFailed = {
      ...failure,
      calls: [{ callId: 'c1', namespace: 'tools', name: 'post', ok: false, ms: 1, error: `\uDE80 ${launch}` }],
      failure: { kind: 'exception', message: `Error: ${launch} 🚀`, stack: `Error: ${launch}\n    at program.ts:1:7` },
    };
    const text = Object.values(renderSections(broken)).join('\n');
    expect(text).not.toMatch(lone);
    expect(text).toContain('message: Error: Launch \uFFFD 🚀');
    expect(text).toContain('stack:\nError: Launch \uFFFD\n');
    expect(text).toContain('c1 tools.post: error, 1 ms: \uFFFD Launch \uFFFD');
    const aborted = renderSections({ ...failure, failure: { kind: 'abort', message: 'cancelled', reason: launch } });
    expect(aborted.body).toContain('reason: Launch \uFFFD');
  });
});

describe('renderResult', () => {
  it('leaves a result within budget whole and writes no file', () => {
    const directory = scratch();
    const rendered = renderResult(success, { spillDirectory: directory });
    expect(rendered.cut).toBe(false);
    expect(rendered.spillPath).toBeUndefined();
    expect(rendered.text).toBe(Object.values(renderSections(success)).join('\n'));
  });

  it('cuts a result over budget with a visible marker, keeping the header, the start and the end', () => {
    const result = floodOfLogs(2_000);
    const rendered = renderResult(result, { tokenBudget: 1_000, spillDirectory: scratch() });
    expect(rendered.cut).toBe(true);
    expect(rendered.estimatedTokens).toBeLessThanOrEqual(1_000);
    const lines = rendered.text.split('\n');
    expect(lines[0]).toMatch(/^\[run_code\] ok · .* · cut to fit 1000 tokens$/);
    expect(lines[1]).toBe('--- logs ---');
    expect(lines[2]).toBe(`line 0 ${'x'.repeat(60)}`);
    expect(rendered.text).toMatch(
      /\[sluice\] ✂ \d+ bytes \(about \d+ tokens\) were cut here to keep this result under 1000 tokens\./,
    );
    expect(rendered.text.endsWith('  "lines": 2000\n}\n')).toBe(true);
  });

  it('writes the full text to the spill file and never shows the model its path', () => {
    const result = floodOfLogs(2_000);
    const directory = scratch();
    const rendered = renderResult(result, { tokenBudget: 1_000, spillDirectory: directory });
    expect(rendered.spillPath).toMatch(
      new RegExp(`^${directory}/sluice-results-${process.pid}-[A-Za-z0-9]{6}/sluice-output-${result.runId}\\.txt$`),
    );
    expect(rendered.text).not.toContain(directory);
    expect(rendered.text).toContain('Print less, or return a smaller value, to see it all.');
    expect(rendered.outputId).toBeUndefined();
    const full = readFileSync(rendered.spillPath!, 'utf8');
    expect(full).toBe(Object.values(renderSections(result)).join('\n'));
    expect(full).toContain(`line 1999 ${'x'.repeat(60)}`);
  });

  it('names the output id and the byte offset of the cut when the model has a paging tool', () => {
    const result = floodOfLogs(2_000);
    const directory = scratch();
    const rendered = renderResult(result, {
      tokenBudget: 1_000,
      spillDirectory: directory,
      readOutputTool: 'read_output',
    });
    expect(rendered.outputId).toBe(result.runId);
    const [, id, offset] = /call read_output with \{"id": "([^"]+)", "offset": (\d+)\} to read on from the cut\./.exec(
      rendered.text,
    )!;
    expect(id).toBe(result.runId);
    expect(rendered.text).toContain('is kept for 1 hour');
    expect(rendered.text).not.toContain(directory);
    const full = Buffer.from(readFileSync(rendered.spillPath!));
    const shown = rendered.text.split('\n[sluice] ✂')[0]!.split('\n').slice(1).join('\n');
    // What the model saw before the marker ends exactly where the offset points.
    expect(full.subarray(0, Number(offset)).toString('utf8').endsWith(`${shown}\n`)).toBe(true);
  });

  it('says so in the marker when the spill file cannot be written, naming no path, and still cuts visibly', () => {
    const blocker = join(scratch(), 'not-a-directory');
    writeFileSync(blocker, 'a file where the directory should be');
    const rendered = renderResult(floodOfLogs(2_000), {
      tokenBudget: 1_000,
      spillDirectory: blocker,
      readOutputTool: 'read_output',
    });
    expect(rendered.cut).toBe(true);
    expect(rendered.spillPath).toBeUndefined();
    expect(rendered.outputId).toBeUndefined();
    expect(rendered.text).toMatch(/\[sluice\] ✂ .* The full text could not be kept; print less/);
    expect(rendered.text).not.toContain(blocker);
  });

  it('accounts for every byte: what is shown plus what the marker says was cut is the whole body', () => {
    const result = floodOfLogs(500);
    const rendered = renderResult(result, { tokenBudget: 600, spillDirectory: scratch() });
    const full = Object.values(renderSections(result)).join('\n');
    const cutBytes = Number(/✂ (\d+) bytes/.exec(rendered.text)![1]);
    const markerLine = rendered.text.split('\n').find((line) => line.startsWith('[sluice] ✂'))!;
    const shownBody = rendered.text.split('\n').slice(1).join('\n').replace(`${markerLine}\n`, '');
    const header = full.split('\n')[0]!;
    expect(Buffer.byteLength(shownBody) + cutBytes).toBe(Buffer.byteLength(full) - Buffer.byteLength(header) - 1);
  });

  it('never splits a multi-byte character at either cut', () => {
    const logs = Array.from({ length: 300 }, () => ({ level: 'log' as const, text: '🌧️'.repeat(40) }));
    const rendered = renderResult({ ...success, logs }, { tokenBudget: 300, spillDirectory: scratch() });
    expect(rendered.text).not.toContain('\uFFFD');
    expect(rendered.text).toBe(Buffer.from(rendered.text, 'utf8').toString('utf8'));
    expect(estimateTokens(rendered.text)).toBeLessThanOrEqual(300);
  });

  it('refuses a budget too small to hold the marker', () => {
    expect(() => renderResult(success, { tokenBudget: 10 })).toThrow(/at least 200/);
  });
});
