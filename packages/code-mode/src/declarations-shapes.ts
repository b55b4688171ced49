import { type CodeRuntimeLanguage, pythonReservedWords } from '@sluice/code-runtime';
import type { DeclaredEntry } from './declarations-entry.js';
import type { ObjectNode, TypeNode } from './schema-model.js';
import type { NameAllocator } from './schema-names.js';

/** Entries whose repeated object shapes are references to named types, and every named type. */
export interface SharedShapes {
  readonly entries: readonly DeclaredEntry[];
  /** Named types by name: recursive definitions and shared shapes, their bodies rewritten alike. */
  readonly definitions: ReadonlyMap<string, TypeNode>;
}

interface Shape {
  readonly id: number;
  readonly node: ObjectNode;
  count: number;
  readonly labels: Map<string, number>;
  name: string | undefined;
}

/**
 * Declares each object shape that occurs more than once (by structure: property names, types,
 * optionality and docs) as one named type, referenced wherever it occurs, so a catalogue that
 * passes the same entity around says what it is once. Python names every object type (a TypedDict
 * needs a name): shared ones by their most common short label (`Entity`), the others by their
 * place (`SearchOutputItem`). A tool's own input stays inline: it is the parameter list. Names are
 * handed out in path order, so the result depends only on the tools, never on their order.
 */
export function shareShapes(
  entries: readonly DeclaredEntry[],
  definitions: ReadonlyMap<string, TypeNode>,
  names: NameAllocator,
  language: CodeRuntimeLanguage,
): SharedShapes {
  const python = language === 'python';
  const shapes = new Map<string, Shape>();
  const ordered: Shape[] = [];
  const keys = new WeakMap<object, string>();
  const shapeOf = new WeakMap<object, Shape>();

  const key = (node: TypeNode): string => {
    const known = keys.get(node);
    if (known !== undefined) return known;
    let text: string;
    switch (node.kind) {
      case 'object': {
        const body = `{${node.properties
          .map(
            (p) =>
              `${JSON.stringify(p.name)}${p.optional ? '?' : ''}:${key(p.type)}${p.doc === undefined ? '' : `/*${JSON.stringify(p.doc)}*/`}`,
          )
          .join(',')}${node.additional === undefined ? '' : `,*:${key(node.additional)}`}}`;
        let shape = shapes.get(body);
        if (shape === undefined) {
          shape = { id: shapes.size, node, count: 0, labels: new Map(), name: undefined };
          shapes.set(body, shape);
          ordered.push(shape);
        }
        shapeOf.set(node, shape);
        text = `#${shape.id}`;
        break;
      }
      case 'array':
        text = `${key(node.items)}[]`;
        break;
      case 'tuple':
        text = `[${node.items.map(key).join(',')}${node.rest === undefined ? '' : `,...${key(node.rest)}`}]`;
        break;
      case 'union':
      case 'intersection':
        text = `${node.kind}(${node.members.map(key).join(',')})`;
        break;
      case 'literal':
        text = `=${JSON.stringify(node.value)}`;
        break;
      case 'primitive':
        text = node.name;
        break;
      case 'reference':
        text = `@${node.name}`;
        break;
      default:
        text = node.kind;
    }
    keys.set(node, text);
    return text;
  };

  // Counts each object shape where it occurs; `top` is a shape that is already named or inline by place.
  const count = (node: TypeNode, top: boolean): void => {
    key(node);
    const pending: [TypeNode, boolean][] = [[node, top]];
    while (pending.length > 0) {
      const [current, isTop] = pending.pop()!;
      switch (current.kind) {
        case 'object': {
          if (!isTop && current.properties.length > 0) {
            const shape = shapeOf.get(current)!;
            shape.count += 1;
            shape.labels.set(current.label, (shape.labels.get(current.label) ?? 0) + 1);
          }
          for (let index = current.properties.length - 1; index >= 0; index -= 1) {
            pending.push([current.properties[index]!.type, false]);
          }
          if (current.additional !== undefined) pending.push([current.additional, false]);
          break;
        }
        case 'array':
          pending.push([current.items, false]);
          break;
        case 'tuple':
          for (const item of current.items) pending.push([item, false]);
          if (current.rest !== undefined) pending.push([current.rest, false]);
          break;
        case 'union':
        case 'intersection':
          for (const member of current.members) pending.push([member, false]);
          break;
        default:
          break;
      }
    }
  };

  const sortedDefinitions = [...definitions].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  for (const [, body] of sortedDefinitions) count(body, true);
  const pythonInputNamed = (entry: DeclaredEntry) =>
    python && entry.input.kind === 'object' && entry.input.properties.length > 0 && !keywordInput(entry.input);
  for (const entry of entries) {
    count(entry.input, !pythonInputNamed(entry));
    count(entry.output, false);
  }

  for (const shape of ordered) {
    if (shape.count >= 2) shape.name = names.allocate(commonLabel(shape.labels));
    else if (python && shape.count === 1) shape.name = names.allocate(shape.node.hint);
  }

  const named = new Map<string, TypeNode>();
  const rewrite = (node: TypeNode, top: boolean): TypeNode => {
    switch (node.kind) {
      case 'object': {
        const shape = shapeOf.get(node);
        if (!top && shape?.name !== undefined) {
          if (!named.has(shape.name)) {
            named.set(shape.name, node); // placeholder: a shape cannot contain itself
            named.set(shape.name, rewriteObject(shape.node));
          }
          return { kind: 'reference', name: shape.name };
        }
        return rewriteObject(node);
      }
      case 'array':
        return { kind: 'array', items: rewrite(node.items, false) };
      case 'tuple':
        return {
          kind: 'tuple',
          items: node.items.map((item) => rewrite(item, false)),
          rest: node.rest === undefined ? undefined : rewrite(node.rest, false),
        };
      case 'union':
      case 'intersection':
        return { kind: node.kind, members: node.members.map((member) => rewrite(member, false)) };
      default:
        return node;
    }
  };
  const rewriteObject = (node: ObjectNode): ObjectNode => ({
    ...node,
    properties: node.properties.map((property) => ({ ...property, type: rewrite(property.type, false) })),
    additional: node.additional === undefined ? undefined : rewrite(node.additional, false),
  });

  for (const [name, body] of sortedDefinitions) named.set(name, rewrite(body, true));
  const rewritten = entries.map(
    (entry): DeclaredEntry => ({
      ...entry,
      input: rewrite(entry.input, !pythonInputNamed(entry)),
      output: rewrite(entry.output, false),
    }),
  );
  return { entries: rewritten, definitions: named };
}

/** Whether a Python stub can take `input`'s properties as keyword arguments. */
export function keywordInput(input: ObjectNode): boolean {
  return input.properties.every(
    (property) => pythonName.test(property.name) && !pythonReservedWords.has(property.name),
  );
}

const pythonName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The name for a shared shape: the label most occurrences have when one recurs; otherwise the
 * words all labels start and end with (`CreateFileOutput`, `CreateTabOutput` → `CreateOutput`),
 * falling back to the shortest label.
 */
function commonLabel(labels: ReadonlyMap<string, number>): string {
  let best: [string, number] | undefined;
  for (const [label, count] of labels) {
    if (best === undefined || count > best[1] || (count === best[1] && label.length < best[0].length)) {
      best = [label, count];
    }
  }
  if (best === undefined) return 'Shape';
  if (best[1] > 1 || labels.size === 1) return best[0];
  const split = [...labels.keys()].map((label) => label.match(/[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])/g) ?? [label]);
  const first = split[0]!;
  let prefix = 0;
  while (prefix < first.length && split.every((words) => words[prefix] === first[prefix])) prefix += 1;
  let suffix = 0;
  while (
    suffix < first.length - prefix &&
    split.every(
      (words) =>
        words.length - suffix > prefix && words[words.length - 1 - suffix] === first[first.length - 1 - suffix],
    )
  ) {
    suffix += 1;
  }
  const name = [...first.slice(0, prefix), ...first.slice(first.length - suffix)].join('');
  return /^[A-Z]/.test(name) ? name : best[0];
}
