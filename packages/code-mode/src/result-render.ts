import type { CodeRunFailure, CodeRunResult, HostCallRecord, LogEntry } from '@sluice/code-runtime';

/** The rendered sections of a result, before any budget is applied. */
export interface RenderedSections {
  /** One line: outcome and usage. Always kept whole. */
  readonly header: string;
  /** Logs, then the value or the failure and the host calls. */
  readonly body: string;
}

/**
 * The full text of a result as the model reads it: a header line with the outcome and what the run
 * used, the logs, then the returned value as JSON or, on failure, the failure kind, its message,
 * where it happened, and every host call made with how it ended.
 */
export function renderSections(result: CodeRunResult): RenderedSections {
  const sections = [logsSection(result.logs, result.logsTruncated)];
  if (result.ok) {
    sections.push(
      result.value === undefined
        ? '--- value ---\n(the program returned nothing)'
        : `--- value (JSON) ---\n${JSON.stringify(result.value, null, 2)}`,
    );
  } else {
    sections.push(failureSection(result.failure), callsSection(result.calls));
  }
  return { header: `[run_code] ${summaryLine(result)}`, body: `${sections.join('\n')}\n` };
}

/** The outcome and what the run used, on one line: `ok · 42 ms · 12 ms CPU · 3 host calls · 2 log lines`. */
export function summaryLine(result: CodeRunResult): string {
  const { usage } = result;
  const facts = [`${Math.round(usage.wallMs)} ms`];
  if (usage.cpuMs !== undefined) facts.push(`${Math.round(usage.cpuMs)} ms CPU`);
  if (usage.peakMemoryBytes !== undefined) facts.push(`${formatBytes(usage.peakMemoryBytes)} peak memory`);
  facts.push(plural(usage.hostCalls, 'host call'));
  const failed = result.calls.filter((call) => !call.ok).length;
  if (failed > 0) facts.push(`${failed} failed`);
  facts.push(plural(result.logs.length, 'log line'));
  if (result.logsTruncated) facts.push('logs truncated');
  const outcome = result.ok ? 'ok' : `failed: ${result.failure.kind}`;
  return `${outcome} · ${facts.join(' · ')}`;
}

function logsSection(logs: readonly LogEntry[], truncated: boolean): string {
  if (logs.length === 0) return '--- logs ---\n(none)';
  const lines = logs.map((entry) =>
    entry.level === 'log' || entry.level === 'info' ? entry.text : `[${entry.level}] ${entry.text}`,
  );
  return `--- logs${truncated ? ' (truncated by the log budget)' : ''} ---\n${lines.join('\n')}`;
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
    default:
      break;
  }
  return `--- failure ---\n${lines.join('\n')}`;
}

function callsSection(calls: readonly HostCallRecord[]): string {
  if (calls.length === 0) return '--- host calls ---\n(none)';
  const lines = calls.map((call) => {
    const where = `${call.callId} ${call.namespace}.${call.name}`;
    return call.ok
      ? `${where}: ok, ${Math.round(call.ms)} ms`
      : `${where}: error, ${Math.round(call.ms)} ms: ${call.error ?? ''}`;
  });
  return `--- host calls (${calls.length}, in order) ---\n${lines.join('\n')}`;
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
