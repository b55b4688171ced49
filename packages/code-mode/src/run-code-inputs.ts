import type { Bindings, HostFunction } from '@sluice/code-runtime';
import type { Tool, ToolBindingNameOptions } from '@sluice/permissions';
import { declareTools } from './declarations-entry.js';

/**
 * A program that calls a tool with nothing sends `null`. When every property of the tool's input
 * is optional, the declarations say the argument may be left out, so `null` is passed on as `{}`
 * (before the policy and the schema see it) rather than failing validation as "not an object".
 */
export function withEmptyInputs(bindings: Bindings, tools: readonly Tool[], naming: ToolBindingNameOptions): Bindings {
  const optional = new Set(
    declareTools(tools, naming)
      .entries.filter(({ input }) => input.kind === 'object' && input.properties.every((property) => property.optional))
      .map((entry) => entry.path),
  );
  const wrapped: Record<string, Record<string, HostFunction>> = {};
  for (const [namespace, functions] of Object.entries(bindings)) {
    wrapped[namespace] = {};
    for (const [name, fn] of Object.entries(functions)) {
      wrapped[namespace][name] = optional.has(`${namespace}.${name}`)
        ? (input, context) => fn(input === null ? {} : input, context)
        : fn;
    }
  }
  return wrapped;
}

/** Why a `run_code` input cannot run, in one sentence for the model; `undefined` when it can. */
export function inputProblem(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return 'the input must be an object like {"code": "..."}.';
  }
  const { code, description } = input as Record<string, unknown>;
  if (typeof code !== 'string' || code.trim() === '') return '`code` must be a non-empty string holding the program.';
  if (description !== undefined && typeof description !== 'string') return '`description` must be a string when given.';
  const extra = Object.keys(input).filter((key) => key !== 'code' && key !== 'description');
  if (extra.length > 0)
    return `unknown input field${extra.length === 1 ? '' : 's'} ${extra.join(', ')}; send only code and description.`;
  return undefined;
}
