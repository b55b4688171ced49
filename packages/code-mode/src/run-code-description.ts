import { type CodeRuntimeLanguage, wellFormedText } from '@sluice/code-runtime';
import { storedValueLimits } from '@sluice/run-store';
import type { ToolDeclarations } from './declarations.js';
import { describeLimits, type RuntimeLimits } from './runtime-limits.js';

/** What {@link runCodeDescription} builds the `run_code` description from. */
export interface RunCodeDescriptionInput {
  readonly language: CodeRuntimeLanguage;
  readonly declarations: ToolDeclarations;
  readonly limits: RuntimeLimits;
  /**
   * Whether programs have `sluice.store`/`sluice.load` (a durable tool with a conversation): the
   * description then says how to keep values for the conversation's next programs. Default `false`.
   */
  readonly storedValues?: boolean;
}

const guides: Record<
  CodeRuntimeLanguage,
  { intro: string; rules: (example: string) => readonly string[]; fence: string; none: string }
> = {
  typescript: {
    intro: 'Run a TypeScript program that calls the tools declared below as async functions',
    rules: (example) => [
      'The program is the body of an async function: `await` works at the top level; `return` the result, or end with an expression, whose value is the result. A lone async arrow or function (`async () => { … }`) is called for you; `export default` and a markdown fence are fine.',
      'Arguments and the result are JSON as `JSON.stringify` writes it, and a `Map` becomes an object, a `Set` or generator an array, an `Error` `{"error": "Name: message"}`. `NaN`, a function or a cycle fails, naming its path.',
      `Call a tool with one object: \`const result = await ${example}({ ... })\`; positional arguments work when they fill its required properties in order. Run independent calls at once with \`Promise.all\`.`,
      'A call that fails (denied by policy, invalid input, the tool’s own error) throws an `Error` whose message says why; catch it to carry on.',
      'Globals: the JavaScript built-ins, console, setTimeout, setInterval, queueMicrotask, URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa, structuredClone, crypto.randomUUID, crypto.getRandomValues, AbortController, AbortSignal, performance.now. No imports, `require`, `fetch` or `process`: the declared functions are the only way to reach anything outside the program.',
      '`console.log` lines come back with the result. Type annotations are allowed.',
    ],
    fence: 'ts',
    none: 'null',
  },
  python: {
    intro: 'Run a Python program that calls the tools declared below as async functions',
    rules: (example) => [
      'The program runs as a module (top-level names are globals) with top-level `await`: `return` the result at the top level, or end with an expression, whose value is the result. `asyncio.run(main())` and `if __name__ == "__main__":` work too.',
      'Arguments and the result are JSON as Python encoders write it: tuples, sets (sorted) and generators become lists, `datetime`/`date`/`time`, paths and `Decimal`s strings, exceptions `{"error": "Name: message"}`, int keys strings. `NaN`, bytes or a function fails, naming its path.',
      `Call a tool with keyword arguments or one dict: \`result = await ${example}(key=value)\`; positional arguments work when they fill its required properties in order. Run independent calls at once with \`await asyncio.gather(...)\` (\`asyncio\` is already imported).`,
      'A call that fails (denied by policy, invalid input, the tool’s own error) raises `HostCallError` whose message says why; catch it to carry on.',
      'The standard library can be imported; third-party packages cannot. The declared functions are the only way to reach anything outside the program.',
      '`print` output comes back with the result.',
    ],
    fence: 'python',
    none: 'None',
  },
};

/**
 * The `run_code` tool description: what the tool does, how to write a program in the runtime's
 * language, the limits the runtime publishes (never invented: a runtime that publishes none is
 * said to), and the declarations. Deterministic, so a prompt cache keeps hitting. Well-formed
 * Unicode: a lone surrogate in a tool's description shows as U+FFFD.
 */
export function runCodeDescription(input: RunCodeDescriptionInput): string {
  const guide = guides[input.language];
  const limits = describeLimits(input.limits);
  // The calling example names a tool the model can see: never a deferred one it has not loaded.
  const { inlined, paths, deferred } = input.declarations;
  const rules = guide.rules(inlined[0] ?? paths.find((path) => !deferred.includes(path)) ?? 'tools.search');
  const stored =
    input.storedValues === true
      ? [
          `\`await sluice.store(key, value)\` keeps a JSON value for the next programs of this conversation (only if this program succeeds; ${guide.none} deletes it), and \`await sluice.load(key)\` reads one back (${guide.none} when there is none): at most ${count(storedValueLimits.valueChars)} characters of JSON a value, ${count(storedValueLimits.totalChars)} in all.`,
        ]
      : [];
  const parts = [
    `${guide.intro}, and get back what it logged and returned. One program can do the work of many tool calls: loop, branch, filter and fan out in a single step. Only the logs and the returned value come back, so return just what you need.`,
    [...rules, ...stored].map((rule) => `- ${rule}`).join('\n'),
    limits.length > 0
      ? `Limits per run (going over one ends the run, and the result says which):\n${limits.join('\n')}`
      : 'Limits: this runtime does not publish its budgets; a run that exceeds one ends, and the result says which.',
    `Declarations:\n\`\`\`${guide.fence}\n${input.declarations.text.trimEnd()}\n\`\`\``,
  ];
  // Tool names and descriptions are foreign text: an MCP server's may hold half of a surrogate pair.
  return wellFormedText(parts.join('\n\n'));
}

/** A count of characters as a person says it: `256K`, `1M`. */
function count(characters: number): string {
  return characters % 1024 ** 2 === 0 ? `${characters / 1024 ** 2}M` : `${Math.floor(characters / 1024)}K`;
}
