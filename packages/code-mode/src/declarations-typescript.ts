import type { DeclaredEntry } from './declarations-entry.js';
import type { TypeNode } from './schema-model.js';

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A doc comment at `indent`, or nothing for empty text. `*\/` in the text cannot close it early. */
export function typescriptDocComment(text: string | undefined, indent: string): string {
  if (text === undefined || text.trim() === '') return '';
  const lines = text
    .trim()
    .replaceAll('*/', '*\\/')
    .split(/\r?\n/)
    .map((line) => line.trimEnd());
  if (lines.length === 1 && lines[0]!.length <= 100) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line === '' ? '' : ` ${line}`}`).join('\n')}\n${indent} */\n`;
}

/** A TypeScript type expression for `node`, with nested object types laid out one property per line. */
export function typescriptType(node: TypeNode, indent = ''): string {
  switch (node.kind) {
    case 'unknown':
      return 'unknown';
    case 'never':
      return 'never';
    case 'primitive':
      return node.name === 'integer' ? 'number' : node.name;
    case 'literal':
      return JSON.stringify(node.value);
    case 'reference':
      return node.name;
    case 'array': {
      const items = typescriptType(node.items, indent);
      return node.items.kind === 'union' || node.items.kind === 'intersection' ? `(${items})[]` : `${items}[]`;
    }
    case 'tuple': {
      const items = node.items.map((item) => typescriptType(item, indent));
      if (node.rest !== undefined) items.push(`...${typescriptType({ kind: 'array', items: node.rest }, indent)}`);
      return `[${items.join(', ')}]`;
    }
    case 'union':
      return node.members
        .map((member) => {
          const text = typescriptType(member, indent);
          return member.kind === 'intersection' ? `(${text})` : text;
        })
        .join(' | ');
    case 'intersection':
      return node.members
        .map((member) => {
          const text = typescriptType(member, indent);
          return member.kind === 'union' ? `(${text})` : text;
        })
        .join(' & ');
    case 'object': {
      if (node.properties.length === 0) {
        // An index signature rather than Record<...>, which a recursive type alias may not reference.
        return `{ [key: string]: ${node.additional === undefined ? 'never' : typescriptType(node.additional, indent)} }`;
      }
      const inner = `${indent}  `;
      const lines = node.properties.map((property) => {
        const doc =
          property.type.kind === 'primitive' && property.type.name === 'integer'
            ? `${property.doc ?? ''} Integer.`.trim()
            : property.doc;
        const key = identifier.test(property.name) ? property.name : JSON.stringify(property.name);
        return `${typescriptDocComment(doc, inner)}${inner}${key}${property.optional ? '?' : ''}: ${typescriptType(property.type, inner)};\n`;
      });
      if (node.additional !== undefined)
        lines.push(`${inner}[key: string]: ${typescriptType(node.additional, inner)};\n`);
      return `{\n${lines.join('')}${indent}}`;
    }
  }
}

/** One named type: `type Name = …;`. */
export function typescriptDefinition(name: string, type: TypeNode): string {
  return `type ${name} = ${typescriptType(type)};\n`;
}

/** One tool inside its namespace's `declare const` block: doc comment and signature. */
export function typescriptMember(entry: DeclaredEntry): string {
  const indent = '  ';
  const input = entry.input;
  const optional = input.kind === 'unknown' || (input.kind === 'object' && input.properties.every((p) => p.optional));
  const parameter = `input${optional ? '?' : ''}: ${typescriptType(input, indent)}`;
  return `${typescriptDocComment(entry.doc, indent)}${indent}${entry.binding.name}(${parameter}): Promise<${typescriptType(entry.output, indent)}>;\n`;
}

/** Entries grouped by namespace, both levels in code-point order. */
export function groupByNamespace(entries: readonly DeclaredEntry[]): [string, DeclaredEntry[]][] {
  const groups = new Map<string, DeclaredEntry[]>();
  for (const entry of entries) {
    const group = groups.get(entry.binding.namespace) ?? [];
    group.push(entry);
    groups.set(entry.binding.namespace, group);
  }
  return [...groups]
    .sort(([left], [right]) => compare(left, right))
    .map(([namespace, members]) => [namespace, members.sort((a, b) => compare(a.binding.name, b.binding.name))]);
}

/** Code-point order, independent of locale, so output is the same on every machine. */
export function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
