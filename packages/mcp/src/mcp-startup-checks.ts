import { type CodeRuntime, foreignText, InvalidSettingsError } from '@sluice/code-runtime';
import { type Policy, toolBindingName, unmatchedToolPatterns } from '@sluice/permissions';
import type { UpstreamServer } from './upstream-server.js';
import { upstreamToolName } from './upstream-tools.js';

/** What {@link checkPolicyNames} needs. */
export interface PolicyNamesCheck {
  readonly policy: Policy;
  /** The upstreams after starting: the ready ones with their tools, the failed ones without. */
  readonly upstreams: readonly UpstreamServer[];
  /** Whether a pattern naming no tool is an error (`--strict-policy`) rather than a warning. */
  readonly strict: boolean;
  readonly log: (line: string) => void;
}

/**
 * Checks that every tool-name pattern in the policy names at least one upstream tool, by its policy
 * name (`notes__delete-note`) or as the program calls it (`notes.delete_note`). A pattern that names
 * none is a warning through `log`, or with `strict` an {@link InvalidSettingsError} naming each one.
 * A pattern that could name a tool of an upstream that did not start cannot be checked: it is noted
 * and never an error, so one broken server does not stop the others.
 */
export function checkPolicyNames(check: PolicyNamesCheck): void {
  const { policy, upstreams, strict, log } = check;
  const names = upstreams.flatMap((upstream) =>
    upstream.tools.map((tool) => upstreamToolName(upstream.name, tool.name)),
  );
  const missing: string[] = [];
  for (const { pattern, setting } of unmatchedToolPatterns(policy, names)) {
    const where = `sluice.policy.${setting} ${JSON.stringify(pattern)}`;
    const down = upstreams.find((upstream) => upstream.status !== 'ready' && mayNameToolOf(pattern, upstream.name));
    if (down === undefined) missing.push(where);
    else log(`${where} cannot be checked: the ${down.name} server did not start, so its tools are unknown`);
  }
  if (missing.length === 0) return;
  const hint =
    'Name tools as <server>__<tool> (the upstream tool name) or as programs call them, <server>.<tool>; search_tools lists them.';
  if (strict) {
    throw new InvalidSettingsError({
      message: `${missing.map((where) => `${where} names no upstream tool`).join('; ')}. --strict-policy makes this an error. ${hint}`,
      setting: 'sluice.policy',
    });
  }
  for (const where of missing) log(`warning: ${where} names no upstream tool, so its rule never applies`);
  log(`${hint} Run with --strict-policy to refuse to start instead.`);
}

/** Whether some name of a tool of `server` (`server__x`, `namespace.x`, `namespace__x`) could match `pattern`. */
function mayNameToolOf(pattern: string, server: string): boolean {
  const { namespace } = toolBindingName(upstreamToolName(server, 'tool'));
  return [`${server}__`, `${namespace}.`, `${namespace}__`].some((prefix) => mayStartWith(pattern, prefix));
}

/** Whether `pattern` (`*` any run, `?` one character) can match some name that starts with `prefix`. */
function mayStartWith(pattern: string, prefix: string): boolean {
  const characters = [...pattern];
  let index = 0;
  for (const character of prefix) {
    const wanted = characters[index];
    if (wanted === undefined) return false;
    if (wanted === '*') return true;
    if (wanted !== '?' && wanted !== character) return false;
    index += 1;
  }
  return true;
}

/**
 * Starts the runtime's substrate (its pool, the compile thread, Python's zygote) before the server
 * connects, so the first `run_code` is not slowed by it, and a runtime that cannot run any program
 * (no Python interpreter, a containment layer that was required but is missing) stops the server at
 * start-up with the provider's own explanation and the config setting that fixes it, instead of
 * failing every run. A runtime without `ready()` starts at its first run, as before.
 */
export async function checkRuntimeReady(runtime: CodeRuntime): Promise<void> {
  const readiness = await runtime.ready?.();
  if (readiness === undefined || readiness.ok) return;
  const fix =
    runtime.language === 'python'
      ? ' In the config file that setting is sluice.runtime.pythonExecutable; or set sluice.language to "typescript".'
      : '';
  throw new InvalidSettingsError({
    message: `sluice.language is "${runtime.language}", but no program can run: ${foreignText(readiness.message, 2048)}${fix}`,
    setting: 'sluice.language',
  });
}
