import type { JsonValue } from '@sluice/code-runtime';
import { compiledPolicy, type Policy } from './policy.js';
import type { PolicyEffect } from './policy-definition.js';
import { type PolicyNamingOptions, policyToolNames } from './policy-tool-names.js';

/** The rule that decided a call; absent from a verdict when the policy's default did. */
export interface MatchedRule {
  /** Position in `rules`, from 0. */
  readonly index: number;
  readonly description?: string;
}

/** What a policy says about one call. */
export interface PolicyVerdict {
  readonly effect: PolicyEffect;
  /** The first rule that matched; absent when no rule did and the default applied. */
  readonly rule?: MatchedRule;
  /** For `deny`: the rule's reason or the default reason, when the policy gives one. */
  readonly reason?: string;
  /**
   * When the default applied: why the first `allow` or `ask` rule naming this tool did not match
   * (`rule 0: argument "path": "/etc" is not within /srv/data`), so the model can correct the call.
   */
  readonly unmet?: string;
}

/**
 * Decides a call: the first rule whose tool pattern matches `toolName` and whose conditions all
 * hold for `input` gives the effect; when none does, the policy's default does. A pattern matches
 * the tool's own name (`everything__get-env`) or its binding, as the program writes it
 * (`everything.get_env`) or with `__` (`everything__get_env`); `options` are the naming options the
 * bindings were made with (`deriveBindings` passes its own), and `options.binding` the tool's binding
 * when its list gave it a suffix (two tools mapping to one name; see `toolBindingNames`).
 */
export function evaluatePolicy(
  policy: Policy,
  toolName: string,
  input: JsonValue,
  options: PolicyNamingOptions = {},
): PolicyVerdict {
  const { rules, defaultEffect, defaultReason } = compiledPolicy(policy);
  const names = policyToolNames(toolName, options);
  let unmet: string | undefined;
  for (const rule of rules) {
    if (!names.some((name) => rule.matchesTool(name))) continue;
    let problem: string | undefined;
    for (const check of rule.checks) {
      problem = check(input);
      if (problem !== undefined) break;
    }
    if (problem === undefined) {
      return {
        effect: rule.effect,
        rule:
          rule.description === undefined ? { index: rule.index } : { index: rule.index, description: rule.description },
        ...(rule.reason === undefined ? {} : { reason: rule.reason }),
      };
    }
    if (unmet === undefined && rule.effect !== 'deny') unmet = `rule ${rule.index}: ${problem}`;
  }
  return {
    effect: defaultEffect,
    ...(defaultReason === undefined ? {} : { reason: defaultReason }),
    ...(unmet === undefined ? {} : { unmet }),
  };
}

/**
 * Whether some call of `toolName` could be allowed (outright or after approval): false only when a
 * rule without conditions, or the default, denies it before any `allow` or `ask` rule could match.
 * Rules match the tool's names as in {@link evaluatePolicy}.
 */
export function mayBeAllowed(policy: Policy, toolName: string, options: PolicyNamingOptions = {}): boolean {
  const { rules, defaultEffect } = compiledPolicy(policy);
  const names = policyToolNames(toolName, options);
  for (const rule of rules) {
    if (!names.some((name) => rule.matchesTool(name))) continue;
    if (rule.effect !== 'deny') return true;
    if (rule.checks.length === 0) return false;
  }
  return defaultEffect !== 'deny';
}
