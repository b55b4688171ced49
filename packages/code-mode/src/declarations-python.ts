import { pythonReservedWords } from '@sluice/code-runtime';
import type { DeclaredEntry } from './declarations-entry.js';
import type { PropertyNode, TypeNode } from './schema-model.js';

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The header every Python declaration set starts with, so readers know the stubs are documentation. */
export const pythonPreamble =
  '# These stubs describe the objects your program can call. They are documentation, not a module:\n' +
  '# TypedDicts do not exist at run time. Pass keyword arguments (or one dict), and read results as\n' +
  '# plain dicts and lists.\n' +
  'from typing import Any, Literal, NotRequired, TypedDict\n';

/** One tool inside its namespace's class: an `async def` stub with keyword parameters and a docstring. */
export function pythonMember(entry: DeclaredEntry): string {
  const types = pythonTypes;
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
  const name = pythonName(entry.binding.name);
  if (name !== entry.binding.name) {
    if (docLines.length > 0) docLines.push('');
    docLines.push(
      `Named ${name}: \`${entry.binding.namespace}.${entry.binding.name}\` is a SyntaxError, "${entry.binding.name}" being a Python keyword.`,
    );
  }
  if (argumentDocs.length > 0) {
    if (docLines.length > 0) docLines.push('');
    docLines.push('Args:', ...argumentDocs.map((line) => `    ${line}`));
  }
  const signature = `    @staticmethod\n    async def ${name}(${parameters.join(', ')}) -> ${types.type(entry.output)}:\n`;
  return `${signature}${pythonDocstring(docLines, '        ')}`;
}

/**
 * How Python programs call a function: its binding name, or for a Python keyword (`class`, `import`,
 * `from`) that name with `_` after it (`lab.class_`), an alias every binding of that name also has.
 */
export function pythonName(name: string): string {
  return pythonReservedWords.has(name) ? `${name}_` : name;
}

/** A docstring at `indent`, or `...` when there is nothing to say. Backslashes and `"""` cannot end it early. */
export function pythonDocstring(lines: readonly string[], indent: string): string {
  if (lines.length === 0) return `${indent}...\n`;
  const escaped = lines.map((line) => line.replaceAll('\\', '\\\\').replaceAll('"""', '\\"\\"\\"'));
  if (escaped.length === 1 && !escaped[0]!.endsWith('"')) return `${indent}"""${escaped[0]}"""\n`;
  const rest = escaped.slice(1).map((line) => (line === '' ? '' : `${indent}${line}`));
  return `${indent}"""${escaped[0]}\n${rest.join('\n')}\n${indent}"""\n`;
}

function isPythonName(name: string): boolean {
  return identifier.test(name) && !pythonReservedWords.has(name);
}

/** One named type: a `TypedDict` class (the functional form when a key is not a Python name) or an alias. */
export function pythonDefinition(name: string, type: TypeNode): string {
  if (type.kind !== 'object' || type.properties.length === 0) return `${name} = ${pythonTypes.type(type)}\n`;
  const functional = !type.properties.every((property) => isPythonName(property.name));
  const fields = type.properties.map((property) => field(property, functional));
  if (type.additional !== undefined) fields.push(`    # Other keys: ${pythonTypes.type(type.additional)}\n`);
  const body = fields.join('');
  return functional
    ? `${name} = TypedDict(${JSON.stringify(name)}, {\n${body}})\n`
    : `class ${name}(TypedDict):\n${body}`;
}

function field(property: PropertyNode, functional: boolean): string {
  const comment = property.doc === undefined ? '' : `    # ${property.doc}\n`;
  const type = pythonTypes.type(property.type);
  const annotated = property.optional ? `NotRequired[${type}]` : type;
  return functional
    ? `${comment}    ${JSON.stringify(property.name)}: ${annotated},\n`
    : `${comment}    ${property.name}: ${annotated}\n`;
}

/** Python spellings of {@link TypeNode}s. Object types with properties arrive named (see `shareShapes`). */
const pythonTypes = {
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
        return `dict[str, ${node.additional === undefined || node.properties.length > 0 ? 'Any' : this.type(node.additional)}]`;
    }
  },
};

function pythonLiteral(value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}
