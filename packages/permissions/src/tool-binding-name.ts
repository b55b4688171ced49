import {
  bindingNameProblem,
  InvalidRequestError,
  javascriptReservedWords,
  pythonReservedWords,
} from '@sluice/code-runtime';

/** How tool names become binding names. Code generators that declare the bindings must pass the same options. */
export interface ToolBindingNameOptions {
  /** The namespace of a tool whose name has no namespace prefix. Default `'tools'`. */
  readonly defaultNamespace?: string;
  /**
   * Whether a prefix before the first `__`, `.` or `/` becomes the namespace (`github__create_issue`
   * → `github.create_issue`). Default `true`. When `false`, every tool goes into `defaultNamespace`
   * (`tools.github__create_issue`).
   */
  readonly splitNamespaces?: boolean;
}

/** Where a tool appears in the program: `namespace.name`. */
export interface ToolBindingName {
  readonly namespace: string;
  readonly name: string;
}

const separator = /__|[./]/;
/** `mcp__<server>__<tool>`: the name an MCP client gives a server's tool. */
const mcpPrefix = /^mcp__[^_].*__./;

/**
 * The binding a tool is called by. A prefix before the first `__`, `.` or `/` is the namespace
 * (`fs.read-file` → `fs.read_file`, `github__create_issue` → `github.create_issue`); the `mcp__`
 * prefix MCP clients put before a server's name is dropped, so each server is its own namespace
 * (`mcp__github__create_issue` → `github.create_issue`);
 * a name without one goes into `defaultNamespace` (`search` → `tools.search`). In each part every
 * run of characters other than ASCII letters, digits and `_` becomes one `_`, a leading digit gets
 * a `_` before it, and a reserved word of JavaScript or Python gets a `_` after it (`delete` →
 * `delete_`). Throws {@link InvalidRequestError} when the result is still not a valid binding name
 * (longer than 64 characters, a `__dunder__`) or the default namespace is not one.
 */
export function toolBindingName(toolName: string, options: ToolBindingNameOptions = {}): ToolBindingName {
  const mapped = mapToolName(toolName, options);
  if (typeof mapped === 'string') {
    throw new InvalidRequestError({ message: `Tool name ${JSON.stringify(toolName)} ${mapped}.`, field: 'name' });
  }
  return mapped;
}

/** {@link toolBindingName}, returning the problem instead of throwing it. */
export function mapToolName(toolName: string, options: ToolBindingNameOptions = {}): ToolBindingName | string {
  const defaultNamespace = options.defaultNamespace ?? 'tools';
  const namespaceProblem = bindingNameProblem(defaultNamespace);
  if (namespaceProblem !== undefined) return `the default namespace ${namespaceProblem}`;
  let namespace = defaultNamespace;
  let rest = toolName;
  const split = options.splitNamespaces !== false;
  const qualified = split && mcpPrefix.test(toolName) ? toolName.slice('mcp__'.length) : toolName;
  const match = split ? separator.exec(qualified) : null;
  if (match !== null && match.index > 0 && match.index + match[0].length < qualified.length) {
    namespace = identifierPart(qualified.slice(0, match.index));
    rest = qualified.slice(match.index + match[0].length);
  }
  const name = identifierPart(rest);
  const problem = bindingNameProblem(namespace) ?? bindingNameProblem(name);
  if (problem !== undefined) return `maps to ${namespace}.${name}, which ${problem}`;
  return { namespace, name };
}

function identifierPart(text: string): string {
  let part = text.replace(/[^A-Za-z0-9_]+/g, '_');
  if (part === '' || part === '_') return part === '' ? '_' : part;
  if (/^[0-9]/.test(part)) part = `_${part}`;
  if (javascriptReservedWords.has(part) || pythonReservedWords.has(part)) part = `${part}_`;
  return part;
}
