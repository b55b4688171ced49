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
  /**
   * Present when another tool of the list maps to the same binding and this one took a suffix
   * (see {@link toolBindingNames}): the `namespace.name` it would have had.
   */
  readonly shared?: string;
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
 * a `_` before it, and a namespace that is a reserved word of JavaScript or Python gets a `_` after
 * it (`class__get` → `class_.get`). A function keeps a reserved word as its name (`lab__delete` →
 * `lab.delete`, called `lab.delete(...)`); `deriveBindings` also binds it as `delete_`, which
 * Python programs need for its keywords (`lab.class` is a SyntaxError, `lab.class_` is not). Throws {@link InvalidRequestError} when the result is still not a valid binding name
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
    namespace = identifierPart(qualified.slice(0, match.index), 'namespace');
    rest = qualified.slice(match.index + match[0].length);
  }
  const name = identifierPart(rest, 'function');
  const problem = bindingNameProblem(namespace) ?? bindingNameProblem(name, 'function');
  if (problem !== undefined) return `maps to ${namespace}.${name}, which ${problem}`;
  return { namespace, name };
}

function identifierPart(text: string, role: 'namespace' | 'function'): string {
  let part = text.replace(/[^A-Za-z0-9_]+/g, '_');
  if (part === '' || part === '_') return part === '' ? '_' : part;
  if (/^[0-9]/.test(part)) part = `_${part}`;
  if (role === 'namespace' && isReservedWord(part)) part = `${part}_`;
  return part;
}

/** Whether `name` is a reserved word of JavaScript or Python: a function so named also answers to `<name>_`. */
export function isReservedWord(name: string): boolean {
  return javascriptReservedWords.has(name) || pythonReservedWords.has(name);
}

/**
 * The bindings of a whole tool list, by tool name: {@link mapToolName} for each, and when several
 * tools map to the same `namespace.name` (`get-x` and `get_x`), none is dropped: the one whose own
 * name is already that binding keeps it (else the first in code-point order of tool names), and the
 * others, in that order, take the first free `<name>_2`, `<name>_3`, … with `shared` set to the
 * binding they would have had. The same tools give the same bindings in any order. A tool whose
 * name cannot be bound maps to the problem, as in {@link mapToolName}.
 */
export function toolBindingNames(
  toolNames: readonly string[],
  options: ToolBindingNameOptions = {},
): Map<string, ToolBindingName | string> {
  const result = new Map<string, ToolBindingName | string>();
  const groups = new Map<string, { toolName: string; binding: ToolBindingName }[]>();
  for (const toolName of [...new Set(toolNames)].sort(codePointOrder)) {
    const mapped = mapToolName(toolName, options);
    result.set(toolName, mapped);
    if (typeof mapped === 'string') continue;
    const path = `${mapped.namespace}.${mapped.name}`;
    const group = groups.get(path) ?? [];
    group.push({ toolName, binding: mapped });
    groups.set(path, group);
  }
  const taken = new Set(groups.keys());
  for (const [path, group] of groups) {
    if (group.length < 2) continue;
    const keeper = group.find(({ toolName, binding }) => unchanged(toolName, binding)) ?? group[0]!;
    for (const { toolName, binding } of group) {
      if (toolName === keeper.toolName) continue;
      let suffix = 2;
      while (taken.has(`${binding.namespace}.${binding.name}_${suffix}`)) suffix += 1;
      const name = `${binding.name}_${suffix}`;
      const problem = bindingNameProblem(name);
      if (problem !== undefined) {
        result.set(
          toolName,
          `maps to ${path} like ${JSON.stringify(keeper.toolName)}, and ${binding.namespace}.${name} ${problem}`,
        );
        continue;
      }
      taken.add(`${binding.namespace}.${name}`);
      result.set(toolName, { namespace: binding.namespace, name, shared: path });
    }
  }
  return result;
}

/** Whether the tool's own name already reads as its binding's name (`get_x`, `lab__get_x`), not a changed spelling (`get-x`). */
function unchanged(toolName: string, binding: ToolBindingName): boolean {
  return (
    toolName === binding.name ||
    toolName.endsWith(`__${binding.name}`) ||
    toolName.endsWith(`.${binding.name}`) ||
    toolName.endsWith(`/${binding.name}`)
  );
}

function codePointOrder(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
