import { pythonReservedWords } from '@sluice/code-runtime';
import type { DeclaredEntry } from './declarations-entry.js';
import { compare, groupByNamespace } from './declarations-typescript.js';
import type { ObjectNode, PropertyNode, TypeNode } from './schema-model.js';
import { reservedTypeNames } from './schema-registry.js';

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The header every Python declaration set starts with, so readers know the stubs are documentation. */
export const pythonPreamble =
  '# These stubs describe the objects your program can call. They are documentation, not a module:\n' +
  '# TypedDicts do not exist at run time. Pass keyword arguments (or one dict), and read results as\n' +
  '# plain dicts and lists.\n' +
  'from typing import Any, Literal, NotRequired, TypedDict\n';

/** Typed async stubs: the preamble and `note`, TypedDicts for object types (named once, shared when identical), then one class per namespace. */
export function pythonDeclarations(
  entries: readonly DeclaredEntry[],
  definitions: ReadonlyMap<string, TypeNode>,
  options: { readonly preamble?: boolean; readonly note?: string } = {},
): string {
  const types = new PythonTypes(definitions);
  const namespaces = groupByNamespace(entries).map(([namespace, members]) => {
    const body = members.map((entry) => pythonMember(entry, types)).join('\n');
    return `class ${namespace}:\n${body}`;
  });
  return [
    ...(options.preamble === false ? [] : [pythonPreamble]),
    ...(options.note === undefined ? [] : [`${options.note}\n`]),
    ...types.blocks,
    ...namespaces,
  ].join('\n');
}

function pythonMember(entry: DeclaredEntry, types: PythonTypes): string {
  const input = entry.input;
  const parameters: string[] = [];
  const argumentDocs: string[] = [];
  const keywords = input.kind === 'object' && input.properties.every((property) => isPythonName(property.name));
  if (input.kind === 'unknown') {
    parameters.push('**arguments: Any');
  } else if (keywords) {
    if (input.properties.length > 0) parameters.push('*');
    for (const property of input.properties) {
      parameters.push(`${property.name}: ${types.type(property.type)}${property.optional ? ' = ...' : ''}`);
      if (property.doc !== undefined) argumentDocs.push(`${property.name}: ${property.doc}`);
    }
    if (input.additional !== undefined) {
      parameters.push(`**${input.properties.length > 0 ? 'other' : 'arguments'}: ${types.type(input.additional)}`);
    }
  } else {
    parameters.push(`input: ${types.type(input)}`, '/');
  }
  const docLines = entry.doc === '' ? [] : entry.doc.split(/\r?\n/);
  if (argumentDocs.length > 0) {
    if (docLines.length > 0) docLines.push('');
    docLines.push('Args:', ...argumentDocs.map((line) => `    ${line}`));
  }
  const signature = `    @staticmethod\n    async def ${entry.binding.name}(${parameters.join(', ')}) -> ${types.type(entry.output)}:\n`;
  return `${signature}${pythonDocstring(docLines, '        ')}`;
}

/** A docstring at `indent`, or `...` when there is nothing to say. Backslashes and `"""` cannot end it early. */
function pythonDocstring(lines: readonly string[], indent: string): string {
  if (lines.length === 0) return `${indent}...\n`;
  const escaped = lines.map((line) => line.replaceAll('\\', '\\\\').replaceAll('"""', '\\"\\"\\"'));
  if (escaped.length === 1 && !escaped[0]!.endsWith('"')) return `${indent}"""${escaped[0]}"""\n`;
  const rest = escaped.slice(1).map((line) => (line === '' ? '' : `${indent}${line}`));
  return `${indent}"""${escaped[0]}\n${rest.join('\n')}\n${indent}"""\n`;
}

function isPythonName(name: string): boolean {
  return identifier.test(name) && !pythonReservedWords.has(name);
}

/** Python spellings of {@link TypeNode}s; object types become named TypedDict blocks. */
class PythonTypes {
  readonly #blocks = new Map<string, string>();
  readonly #bodies = new Map<string, string>();

  constructor(definitions: ReadonlyMap<string, TypeNode>) {
    const sorted = [...definitions].sort(([left], [right]) => compare(left, right));
    for (const [name] of sorted) this.#bodies.set(name, '');
    for (const [name, type] of sorted) {
      if (type.kind === 'object' && type.properties.length > 0) this.#typedDict(type, name);
      else this.#blocks.set(name, `${name} = ${this.type(type)}\n`);
    }
  }

  /** Class and alias definitions in dependency order (forward references only through recursion). */
  get blocks(): string[] {
    return [...this.#blocks.values()];
  }

  type(node: TypeNode): string {
    switch (node.kind) {
      case 'unknown':
      case 'intersection':
        return 'Any';
      case 'never':
        return 'NoReturn';
      case 'primitive':
        return { string: 'str', number: 'float', integer: 'int', boolean: 'bool', null: 'None' }[node.name];
      case 'literal':
        return node.value === null ? 'None' : `Literal[${pythonLiteral(node.value)}]`;
      case 'reference':
        return node.name;
      case 'array':
        return `list[${this.type(node.items)}]`;
      case 'tuple': {
        const items = node.items.map((item) => this.type(item));
        if (node.rest !== undefined) items.push(`*tuple[${this.type(node.rest)}, ...]`);
        return items.length === 0 ? 'tuple[()]' : `tuple[${items.join(', ')}]`;
      }
      case 'union': {
        const literals = node.members.flatMap((member) =>
          member.kind === 'literal' && member.value !== null ? [pythonLiteral(member.value)] : [],
        );
        const others = node.members
          .filter((member) => !(member.kind === 'literal' && member.value !== null))
          .map((member) => this.type(member));
        return [...(literals.length > 0 ? [`Literal[${literals.join(', ')}]`] : []), ...others].join(' | ');
      }
      case 'object':
        if (node.properties.length === 0)
          return `dict[str, ${node.additional === undefined ? 'Any' : this.type(node.additional)}]`;
        return this.#typedDict(node);
    }
  }

  #typedDict(node: ObjectNode, fixedName?: string): string {
    const functional = !node.properties.every((property) => isPythonName(property.name));
    const fields = node.properties.map((property) => this.#field(property, functional));
    if (node.additional !== undefined) fields.push(`    # Other keys: ${this.type(node.additional)}\n`);
    const body = fields.join('');
    const name = fixedName ?? this.#nameFor(node.hint, body);
    if (!this.#blocks.has(name)) {
      this.#bodies.set(name, body);
      this.#blocks.set(
        name,
        functional
          ? `${name} = TypedDict(${JSON.stringify(name)}, {\n${body}})\n`
          : `class ${name}(TypedDict):\n${body}`,
      );
    }
    return name;
  }

  #field(property: PropertyNode, functional: boolean): string {
    const comment = property.doc === undefined ? '' : `    # ${property.doc}\n`;
    const type = this.type(property.type);
    const annotated = property.optional ? `NotRequired[${type}]` : type;
    return functional
      ? `${comment}    ${JSON.stringify(property.name)}: ${annotated},\n`
      : `${comment}    ${property.name}: ${annotated}\n`;
  }

  #nameFor(hint: string, body: string): string {
    for (let suffix = 1; ; suffix += 1) {
      const name = suffix === 1 ? hint : `${hint}${suffix}`;
      if (reservedTypeNames.has(name)) continue;
      const existing = this.#bodies.get(name);
      if (existing === undefined || existing === body) return name;
    }
  }
}

function pythonLiteral(value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}
