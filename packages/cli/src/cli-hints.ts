import type { CodeRunFailure, CodeRuntimeLanguage } from '@sluice/code-runtime';
import { isPolicy, type Policy, type PolicyDefinition, unmatchedToolPatterns } from '@sluice/permissions';

/**
 * Hints `sluice run` adds on stderr below a failure it printed as it was, for the mistakes a
 * newcomer makes first. They read the failure's message, which is written for people and not
 * stable: a message they do not recognise gets no hint, never a wrong one.
 */

/**
 * For a program run without `--tools` that names an undefined identifier (`ReferenceError: issues
 * is not defined`, Python's `NameError: name 'issues' is not defined`): the line saying no tools
 * were given. Empty otherwise.
 */
export function noToolsHint(failure: CodeRunFailure): string {
  const name = undefinedName(failure);
  if (name === undefined) return '';
  return `sluice: ${name} is not defined: no tools were given (--tools <module> provides them).\n`;
}

/** The identifier a `ReferenceError`/`NameError` says is not defined, when the failure is one. */
function undefinedName(failure: CodeRunFailure): string | undefined {
  if (failure.kind !== 'exception' || (failure.name !== 'ReferenceError' && failure.name !== 'NameError')) {
    return undefined;
  }
  const match =
    /^(?:ReferenceError: '?([\p{L}\p{N}_$]+)'? is not defined|NameError: name '([\p{L}\p{N}_]+)' is not defined)/u.exec(
      failure.message,
    );
  return match?.[1] ?? match?.[2];
}

/**
 * For a program read from stdin as TypeScript (no `--language`) that did not compile (or called an
 * undefined `print`) and reads like Python: the line naming `--language python`. Empty otherwise.
 */
export function pythonOnStdinHint(
  failure: CodeRunFailure,
  program: { readonly path: string; readonly language: CodeRuntimeLanguage | undefined; readonly code: string },
): string {
  if (program.path !== '-' || program.language !== undefined) return '';
  // `print('hi')` compiles as TypeScript and fails as a call of something undefined.
  const failedAsTypeScript =
    failure.kind === 'exception' && (failure.name === 'SyntaxError' || undefinedName(failure) === 'print');
  if (!failedAsTypeScript) return '';
  if (!looksLikePython(program.code)) return '';
  return 'sluice: the program on stdin looks like Python; sluice run - reads TypeScript unless told: add --language python.\n';
}

const pythonLines = [
  // def f(x):  async def f():
  /^\s*(?:async\s+)?def\s+[\p{L}_][\p{L}\p{N}_]*\s*\(/u,
  // import json  import os.path as p  (TypeScript's imports have `from '…'` or a quoted module)
  /^import\s+[\p{L}_][\p{L}\p{N}_.]*(?:\s+as\s+[\p{L}_][\p{L}\p{N}_]*)?(?:\s*,\s*[\p{L}_][\p{L}\p{N}_.]*)*\s*$/u,
  // from collections import Counter
  /^from\s+[\p{L}_.][\p{L}\p{N}_.]*\s+import\s/u,
  // A block line ending in a colon: if x:  for i in range(3):  else:  try:  class A:
  /^\s*(?:if|elif|else|for|while|try|except|finally|with|class|async\s+for|async\s+with)\b.*:\s*(?:#.*)?$/,
];

/** Whether `code` reads like Python: one of {@link pythonLines}, or `print(` in a program with no semicolons. */
export function looksLikePython(code: string): boolean {
  const lines = code.split('\n');
  if (lines.some((line) => pythonLines.some((pattern) => pattern.test(line)))) return true;
  return !code.includes(';') && lines.some((line) => /^\s*print\(/.test(line));
}

/**
 * Warnings for the tool-name patterns of a policy that name no tool of the tools module, the check
 * `sluice mcp` makes (`unmatchedToolPatterns` of `@sluice/permissions`): such a rule never applies,
 * usually a typo. One line each, naming the files as they were given; empty when every pattern names a tool.
 */
export function policyNameWarnings(
  policy: Policy | PolicyDefinition,
  toolNames: readonly string[],
  files: { readonly policy: string; readonly tools: string },
): string {
  // A plain definition is the built-in allow-everything, which has no rules to check.
  const unmatched = isPolicy(policy) ? unmatchedToolPatterns(policy, toolNames) : [];
  if (unmatched.length === 0) return '';
  const lines = unmatched.map(
    ({ pattern, setting }) =>
      `sluice: warning: ${files.policy} ${setting} ${JSON.stringify(pattern)} names no tool of ${files.tools}, so its rule never applies\n`,
  );
  return `${lines.join('')}sluice: name tools as programs call them (issues.list) or by their own names; sluice declarations --tools ${files.tools} lists them.\n`;
}

/** The hint for a failed `sluice run` ({@link pythonOnStdinHint}, else {@link noToolsHint}), or `''`. */
export function failureHints(
  failure: CodeRunFailure,
  options: {
    readonly program: string;
    readonly language: CodeRuntimeLanguage | undefined;
    readonly tools: string | undefined;
  },
  code: string,
): string {
  const python = pythonOnStdinHint(failure, { path: options.program, language: options.language, code });
  if (python !== '') return python;
  return options.tools === undefined ? noToolsHint(failure) : '';
}
