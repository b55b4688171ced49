/** A JSON Schema as a tool declares it: an object, or `true`/`false`. Only local `$ref`s (`#/...`) are followed. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/**
 * The shape of a value, reduced from JSON Schema to what both declaration printers can say. Object
 * nodes carry a `hint` (a PascalCase name built from where they sit) for languages that must name
 * every object type, such as Python's TypedDicts.
 */
export type TypeNode =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'never' }
  | { readonly kind: 'primitive'; readonly name: 'string' | 'number' | 'integer' | 'boolean' | 'null' }
  | { readonly kind: 'literal'; readonly value: string | number | boolean | null }
  | { readonly kind: 'array'; readonly items: TypeNode }
  | { readonly kind: 'tuple'; readonly items: readonly TypeNode[]; readonly rest: TypeNode | undefined }
  | ObjectNode
  | { readonly kind: 'union'; readonly members: readonly TypeNode[] }
  | { readonly kind: 'intersection'; readonly members: readonly TypeNode[] }
  | { readonly kind: 'reference'; readonly name: string };

/** An object type: named properties in schema order, and the type of any other key when the schema allows them. */
export interface ObjectNode {
  readonly kind: 'object';
  readonly hint: string;
  /** A short name from the nearest property, item or definition (`Entity`), for a shape shared between tools. */
  readonly label: string;
  readonly properties: readonly PropertyNode[];
  /** The type of keys not listed; `undefined` when the schema does not say other keys are allowed. */
  readonly additional: TypeNode | undefined;
}

/** One property of an {@link ObjectNode}. */
export interface PropertyNode {
  readonly name: string;
  readonly type: TypeNode;
  readonly optional: boolean;
  /** Description and constraints, one sentence each, for a doc comment. */
  readonly doc: string | undefined;
}

export const unknownType: TypeNode = { kind: 'unknown' };
export const neverType: TypeNode = { kind: 'never' };

/** A union, simplified: nested unions flattened, duplicates and `never` removed, `unknown` absorbing the rest. */
export function unionOf(members: readonly TypeNode[]): TypeNode {
  const candidates = members.flatMap((node) => (node.kind === 'union' ? node.members : [node]));
  // Most unions built are of one type (every schema's own type goes through here). Comparing would
  // serialise its whole subtree, again at every level above it: quadratic in the nesting.
  if (candidates.length === 1) return candidates[0]!;
  const flat: TypeNode[] = [];
  const seen = new Set<string>();
  for (const member of candidates) {
    if (member.kind === 'unknown') return unknownType;
    if (member.kind === 'never') continue;
    const key = stableStringify(member);
    if (seen.has(key)) continue;
    seen.add(key);
    flat.push(member);
  }
  if (flat.length === 0) return neverType;
  return flat.length === 1 ? flat[0]! : { kind: 'union', members: flat };
}

/**
 * An intersection, simplified: `unknown` members dropped, `never` absorbing, and object members
 * merged into one object (later properties win), which is what most `allOf`s in the wild mean.
 */
export function intersectionOf(members: readonly TypeNode[]): TypeNode {
  const flat = members
    .flatMap((node) => (node.kind === 'intersection' ? node.members : [node]))
    .filter((node) => node.kind !== 'unknown');
  if (flat.some((node) => node.kind === 'never')) return neverType;
  // One member is itself (its own members merged already): no copy.
  if (flat.length === 1) return flat[0]!;
  const objects = flat.filter((node): node is ObjectNode => node.kind === 'object');
  const others = flat.filter((node) => node.kind !== 'object');
  const merged: TypeNode[] = objects.length > 0 ? [mergeObjects(objects)] : [];
  const all = [...merged, ...others];
  if (all.length === 0) return unknownType;
  return all.length === 1 ? all[0]! : { kind: 'intersection', members: all };
}

function mergeObjects(objects: readonly ObjectNode[]): ObjectNode {
  const byName = new Map<string, PropertyNode>();
  for (const object of objects) {
    for (const property of object.properties) {
      const earlier = byName.get(property.name);
      // A property required by any member is required by the intersection.
      byName.set(property.name, earlier && !earlier.optional ? { ...property, optional: false } : property);
    }
  }
  const additional = objects.map((object) => object.additional);
  return {
    kind: 'object',
    hint: objects[0]!.hint,
    label: objects[0]!.label,
    properties: [...byName.values()],
    additional: additional.every((node) => node !== undefined) ? intersectionOf(additional) : undefined,
  };
}

/** JSON text with object keys sorted at every level: the same value always gives the same text. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableStringify(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `search_issues`, `get-weather`, `createIssue` → `SearchIssues`, `GetWeather`, `CreateIssue`. Never empty. */
export function pascalCase(text: string): string {
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
  const joined = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
  if (joined === '') return 'Value';
  return /^[0-9]/.test(joined) ? `T${joined}` : joined;
}
