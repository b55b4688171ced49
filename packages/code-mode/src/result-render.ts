import {
  type CodeRunFailure,
  type CodeRunResult,
  cutUtf8,
  type HostCallRecord,
  type LogEntry,
  wellFormedText,
} from '@sluice/code-runtime';

/** The rendered sections of a result, before any budget is applied. */
export interface RenderedSections {
  /** One line: outcome and usage. Always kept whole. */
  readonly header: string;
  /** The failed host calls of an `ok` run, the logs, then the value; or the logs, the failure and the host calls. */
  readonly body: string;
}

/**
 * The full text of a result as the model reads it: a header line with the outcome and what the run
 * used; for an `ok` run the host calls that failed with their reasons (see {@link failedCallsSection}),
 * the logs, then the returned value as JSON; on failure the logs, the failure kind, its message, where
 * it happened, and every host call made, in order, with how it ended (neighbours that ended alike on
 * one line). Well-formed Unicode throughout: a lone surrogate in a log, a message or a reason is
 * shown as U+FFFD.
 */
export function renderSections(result: CodeRunResult): RenderedSections {
  const sections: string[] = [];
  const failedCalls = result.ok ? failedCallsSection(result.calls) : undefined;
  // First: a cut for the budget keeps the start, so a long log cannot push it out of sight.
  if (failedCalls !== undefined) sections.push(failedCalls);
  sections.push(logsSection(result.logs, result.logsTruncated));
  if (result.ok) {
    sections.push(
      result.value === undefined
        ? '--- value ---\n(the program returned nothing)'
        : `--- value (JSON) ---\n${JSON.stringify(result.value, null, 2)}`,
    );
  } else {
    sections.push(failureSection(result.failure), callsSection(result.calls));
  }
  // Logs, messages, stacks and reasons can hold half of a surrogate pair; model APIs refuse that.
  return { header: `[run_code] ${summaryLine(result)}`, body: wellFormedText(`${sections.join('\n')}\n`) };
}

/** The outcome and what the run used, on one line: `ok · 42 ms · 12 ms CPU · 3 host calls · 2 log lines`. */
export function summaryLine(result: CodeRunResult): string {
  const outcome = result.ok ? 'ok' : `failed: ${result.failure.kind}`;
  return `${outcome} · ${usageFacts(result)}`;
}

/** What the run used, without its outcome: `42 ms · 12 ms CPU · 3 host calls · 2 log lines`. */
export function usageFacts(result: CodeRunResult): string {
  const { usage } = result;
  const facts = [`${Math.round(usage.wallMs)} ms`];
  if (usage.cpuMs !== undefined) facts.push(`${Math.round(usage.cpuMs)} ms CPU`);
  if (usage.peakMemoryBytes !== undefined) facts.push(`${formatBytes(usage.peakMemoryBytes)} peak memory`);
  facts.push(plural(usage.hostCalls, 'host call'));
  const failed = result.calls.filter((call) => !call.ok).length;
  if (failed > 0) facts.push(`${failed} failed`);
  facts.push(plural(result.logs.length, 'log line'));
  if (result.logsTruncated) facts.push('logs truncated');
  return facts.join(' · ');
}

/** The logs as the model reads them: `warn`/`error`/`debug` lines marked with their level, a note when the log budget cut them. */
export function logsSection(logs: readonly LogEntry[], truncated: boolean, title = 'logs'): string {
  if (logs.length === 0) return `--- ${title} ---\n(none)`;
  const lines = logs.map((entry) =>
    entry.level === 'log' || entry.level === 'info' ? entry.text : `[${entry.level}] ${entry.text}`,
  );
  return `--- ${title}${truncated ? ' (truncated by the log budget)' : ''} ---\n${lines.join('\n')}`;
}

function failureSection(failure: CodeRunFailure): string {
  const lines = [`kind: ${failure.kind}`, `message: ${failure.message}`];
  switch (failure.kind) {
    case 'exception': {
      if (failure.name !== undefined) lines.push(`error: ${failure.name}`);
      if (failure.line !== undefined) {
        lines.push(`at: line ${failure.line}${failure.column === undefined ? '' : `, column ${failure.column}`}`);
      }
      if (failure.stack !== undefined && failure.stack.trim() !== '') lines.push(`stack:\n${failure.stack.trimEnd()}`);
      break;
    }
    case 'timeout':
      lines.push(`budget: ${failure.budget}, ${failure.limitMs} ms`);
      break;
    case 'memory':
      if (failure.limitBytes !== undefined) lines.push(`budget: ${formatBytes(failure.limitBytes)}`);
      break;
    case 'output-limit':
      lines.push(`budget: ${failure.limitBytes} bytes`);
      break;
    case 'abort':
      lines.push(`reason: ${failure.reason}`);
      break;
    case 'unavailable':
      lines.push(`waited: ${failure.limitMs} ms for the runtime; the program did not start`);
      break;
    default:
      break;
  }
  return `--- failure ---\n${lines.join('\n')}`;
}

/**
 * Every host call of a failed run, in order, with how it ended. Neighbours that ended alike (same
 * function, outcome and reason) share a line, so a fan-out of hundreds of calls stays a few lines
 * and cannot push the failure out of a result cut for its budget.
 */
function callsSection(calls: readonly HostCallRecord[]): string {
  if (calls.length === 0) return '--- host calls ---\n(none)';
  const lines: string[] = [];
  for (let start = 0; start < calls.length; ) {
    const first = calls[start]!;
    let end = start + 1;
    while (end < calls.length && endedAlike(calls[end]!, first)) end += 1;
    lines.push(callsLine(calls.slice(start, end)));
    start = end;
  }
  return `--- host calls (${calls.length}, in order) ---\n${lines.join('\n')}`;
}

function endedAlike(call: HostCallRecord, other: HostCallRecord): boolean {
  return (
    call.namespace === other.namespace && call.name === other.name && call.ok === other.ok && call.error === other.error
  );
}

/** `c1 issues.search: ok, 3 ms`, or for neighbours that ended alike `c1, c2, c3 … c40 issues.search (40 calls): ok, 1–9 ms`. */
function callsLine(run: readonly HostCallRecord[]): string {
  const first = run[0]!;
  let fastest = Number.POSITIVE_INFINITY;
  let slowest = 0;
  for (const call of run) {
    fastest = Math.min(fastest, Math.round(call.ms));
    slowest = Math.max(slowest, Math.round(call.ms));
  }
  const ms = fastest === slowest ? `${fastest} ms` : `${fastest}–${slowest} ms`;
  const outcome = first.ok ? `ok, ${ms}` : `error, ${ms}: ${cutUtf8(reasonOf(first), failureReasonBytes)}`;
  return `${callIdList(run.map((call) => call.callId))} ${first.namespace}.${first.name}${countNote(run.length)}: ${outcome}`;
}

function callIdList(callIds: readonly string[]): string {
  return callIds.length <= 4 ? callIds.join(', ') : `${callIds.slice(0, 3).join(', ')} … ${callIds.at(-1)}`;
}

function countNote(count: number): string {
  return count === 1 ? '' : ` (${count} calls)`;
}

/** Distinct failures (same function, same reason) listed in an `ok` run's text; the rest are counted. */
export const listedFailureGroups = 5;

/** UTF-8 bytes of a failure's reason shown; a longer reason is cut with a visible marker. */
export const failureReasonBytes = 400;

interface FailureGroup {
  readonly path: string;
  readonly reason: string;
  readonly callIds: string[];
}

/**
 * The host calls that failed in a run that still ended `ok` (the program caught the errors), so the
 * model sees why, not only how many: calls with the same function and reason share a line, in the
 * order they first failed. At most {@link listedFailureGroups} lines, each reason cut to
 * {@link failureReasonBytes}; a last line counts what is not listed. `undefined` when no call failed.
 */
export function failedCallsSection(calls: readonly HostCallRecord[]): string | undefined {
  const groups: FailureGroup[] = [];
  // Keyed by path, then by reason, so a long reason is hashed once rather than copied into a key.
  const index = new Map<string, Map<string, FailureGroup>>();
  let failed = 0;
  for (const call of calls) {
    if (call.ok) continue;
    failed += 1;
    const path = `${call.namespace}.${call.name}`;
    const reason = reasonOf(call);
    let byReason = index.get(path);
    if (byReason === undefined) {
      byReason = new Map();
      index.set(path, byReason);
    }
    let group = byReason.get(reason);
    if (group === undefined) {
      group = { path, reason, callIds: [] };
      byReason.set(reason, group);
      groups.push(group);
    }
    group.callIds.push(call.callId);
  }
  if (failed === 0) return undefined;
  const listed = groups.slice(0, listedFailureGroups);
  const lines = listed.map(groupLine);
  const unlisted = groups.slice(listedFailureGroups);
  if (unlisted.length > 0) {
    const count = unlisted.reduce((sum, group) => sum + group.callIds.length, 0);
    lines.push(
      `… ${plural(count, 'more failed call')} with ${plural(unlisted.length, 'other reason')} not listed; print the errors the program catches to see them all.`,
    );
  }
  return `--- failed host calls (${failed} of ${calls.length}; the run still ended ok) ---\n${lines.join('\n')}`;
}

function reasonOf(call: HostCallRecord): string {
  return call.error === undefined || call.error === '' ? '(no reason given)' : call.error;
}

function groupLine({ path, reason, callIds }: FailureGroup): string {
  return `${callIdList(callIds)} ${path}${countNote(callIds.length)}: ${cutUtf8(reason, failureReasonBytes)}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** `1536` → `1.5 KiB`, `67108864` → `64 MiB`; exact bytes below 1 KiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}
