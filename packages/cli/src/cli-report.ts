import type { CodeRunFailure, CodeRunResult, CodeRuntime, HostCallRecord } from '@sluice/code-runtime';
import { budgetFlags } from './cli-budgets.js';

/**
 * The result as `--json` prints it: milliseconds (`usage.wallMs`, `usage.cpuMs`, each call's `ms`)
 * rounded to whole numbers, as every figure the project prints is. Everything else is unchanged.
 */
export function roundedResult(result: CodeRunResult): CodeRunResult {
  const { usage } = result;
  return {
    ...result,
    calls: result.calls.map((call): HostCallRecord => ({ ...call, ms: Math.round(call.ms) })),
    usage: {
      ...usage,
      wallMs: Math.round(usage.wallMs),
      ...(usage.cpuMs === undefined ? {} : { cpuMs: Math.round(usage.cpuMs) }),
    },
  };
}

/** `--verbose`, before the run: the budgets in effect (named as their flags) and what isolates the program. */
export function runtimeLines(runtime: CodeRuntime): string {
  const limits = runtime.limits;
  const budgets = budgetFlags.flatMap(({ flag, setting }) => {
    const value = limits?.[setting];
    return value === undefined ? [] : [`${flag} ${value}`];
  });
  return `sluice: ${runtime.id} runtime · ${budgets.join(' · ')}\nsluice: isolation: ${runtime.isolation}\n`;
}

/** `--verbose`, after the run: one line per host call, in order. */
export function callLines(calls: readonly HostCallRecord[]): string {
  return calls
    .map(
      (call) =>
        `sluice: ${call.callId} ${call.namespace}.${call.name}: ${call.ok ? 'ok' : 'error'}, ${Math.round(call.ms)} ms${call.ok || call.error === undefined ? '' : `: ${call.error}`}\n`,
    )
    .join('');
}

/** The failure for a person at a terminal: kind and message, then where and the stack when known. */
export function describeFailure(failure: CodeRunFailure): string {
  const lines = [`sluice: the program failed (${failure.kind}): ${failure.message}`];
  if (failure.kind === 'exception') {
    if (failure.line !== undefined) {
      lines.push(`  at line ${failure.line}${failure.column === undefined ? '' : `, column ${failure.column}`}`);
    }
    if (failure.stack !== undefined && failure.stack.trim() !== '') {
      lines.push(
        ...failure.stack
          .trimEnd()
          .split('\n')
          .map((line) => `  ${line}`),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
