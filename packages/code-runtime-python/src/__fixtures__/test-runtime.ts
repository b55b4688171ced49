import { readdirSync, readFileSync } from 'node:fs';
import type { CodeRunResult, HostFunction, JsonValue } from '@sluice/code-runtime';
import { expect } from 'vitest';
import type { PoolOptions } from '../python-child-pool.js';
import { PythonCodeRuntime } from '../python-code-runtime.js';
import { type PythonCodeRuntimeSettings, resolvePythonSettings } from '../python-settings.js';

/** A runtime with generous budgets for a loaded 2-core machine, and the test-only pool options. */
export function testRuntime(settings: PythonCodeRuntimeSettings = {}, options: PoolOptions = {}): PythonCodeRuntime {
  return new PythonCodeRuntime(resolvePythonSettings({ wallTimeMs: 20_000, ...settings }, process.env), options);
}

/** The program body from lines, so tests read like the Python they run. */
export function python(...lines: string[]): string {
  return lines.join('\n');
}

/** A host function resolving with `{ echoed: input }`. */
export const echo: HostFunction = (input) => ({ echoed: input });

/** Asserts success and returns the value. */
export function successValue(result: CodeRunResult): JsonValue | undefined {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.failure)}`);
  return result.value;
}

/** Asserts a failure of `kind` and returns it. */
export function failureOf(result: CodeRunResult, kind: string): Extract<CodeRunResult, { ok: false }>['failure'] {
  expect(result.ok, JSON.stringify(result)).toBe(false);
  if (result.ok) throw new Error('unreachable');
  expect(result.failure.kind, result.failure.message).toBe(kind);
  return result.failure;
}

/** Whether a process with this pid exists (a zombie counts as gone: it runs nothing). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Polls `check` until it holds or `timeoutMs` passes; returns whether it held. Waiting, never timing. */
export async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

/** The pids of zygotes this process started. */
export function zygotePids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== process.pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('sluice_zygote.py')) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}
