import { compiledPolicy, type Policy } from './policy.js';
import { policyToolNames } from './policy-tool-names.js';
import { type ToolBindingNameOptions, toolBindingNames } from './tool-binding-name.js';

/** A tool-name pattern of a policy rule that names none of the tools it was checked against. */
export interface UnmatchedToolPattern {
  /** The rule's position in `rules`, from 0. */
  readonly rule: number;
  /** The pattern as written. */
  readonly pattern: string;
  /** Where it is written: `rules[2].tool`, or `rules[2].tool[1]` when `tool` is an array. */
  readonly setting: string;
}

/**
 * The tool-name patterns of `policy` that match none of `toolNames` by any name a rule may use for a
 * tool (its own name, or its binding as `github.create_issue` or `github__create_issue`), in rule
 * order. Such a pattern is usually a typo or a renamed tool: the rule never applies, so a call it was
 * meant to deny goes to a later rule or the default. Pass the same naming options as to `deriveBindings`.
 */
export function unmatchedToolPatterns(
  policy: Policy,
  toolNames: readonly string[],
  options: ToolBindingNameOptions = {},
): UnmatchedToolPattern[] {
  // The bindings the tools get together: a tool renamed for a collision (`get_x_2`) answers to that.
  const bindings = toolBindingNames(toolNames, options);
  const names = toolNames.flatMap((toolName) => {
    const binding = bindings.get(toolName);
    return policyToolNames(toolName, typeof binding === 'object' ? { ...options, binding } : options);
  });
  const unmatched: UnmatchedToolPattern[] = [];
  for (const rule of compiledPolicy(policy).rules) {
    for (const { pattern, setting, test } of rule.patterns) {
      if (!names.some((name) => test(name))) unmatched.push({ rule: rule.index, pattern, setting });
    }
  }
  return unmatched;
}
