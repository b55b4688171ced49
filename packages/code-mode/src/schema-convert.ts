import { propertyDoc } from './schema-doc.js';
import {
  intersectionOf,
  type JsonSchema,
  neverType,
  type ObjectNode,
  type PropertyNode,
  pascalCase,
  stableStringify,
  type TypeNode,
  unionOf,
  unknownType,
} from './schema-model.js';
import { collectReferences, isSchemaObject, resolvePointer, type SchemaObject } from './schema-pointer.js';
import type { DefinitionRegistry } from './schema-registry.js';

/** Options for {@link schemaToType}. */
export interface SchemaToTypeOptions {
  /** PascalCase name for the schema's own object type, e.g. `SearchIssuesInput`. */
  readonly hint: string;
  readonly registry: DefinitionRegistry;
  /** Nesting deeper than this becomes `unknown`. Default 12. */
  readonly maxDepth?: number;
  /** `$ref` expansions per schema before further ones become `unknown`. Default 256. */
  readonly maxExpansions?: number;
}

interface Walk {
  readonly root: JsonSchema;
  readonly rootHint: string;
  readonly closureKeys: Map<string, string>;
  readonly registry: DefinitionRegistry;
  readonly maxDepth: number;
  readonly maxExpansions: number;
  readonly expanding: Map<string, { recursive: boolean; name: string | undefined }>;
  /** Whether the schema has a local `$ref` anywhere: without one nothing in it is named, so no closure key is needed. */
  readonly referenced: boolean;
  expansions: number;
}

/**
 * Reduces a JSON Schema to a {@link TypeNode}. Total: anything it does not understand becomes
 * `unknown` rather than an error. Local `$ref`s are inlined, except recursive ones, which become
 * named definitions in the registry; nesting and expansion counts are capped.
 */
export function schemaToType(schema: JsonSchema | undefined, options: SchemaToTypeOptions): TypeNode {
  const root = schema ?? true;
  const walk: Walk = {
    root,
    rootHint: options.hint,
    closureKeys: new Map(),
    registry: options.registry,
    maxDepth: options.maxDepth ?? 12,
    maxExpansions: options.maxExpansions ?? 256,
    expanding: new Map(),
    referenced: hasReference(root),
    expansions: 0,
  };
  // The root is entered as `#`, so a schema that refers to itself through `#` is named, not unrolled.
  return resolveReference(walk, '#', -1);
}

function convert(walk: Walk, schema: unknown, hint: string, depth: number, label = hint): TypeNode {
  if (schema === false) return neverType;
  if (!isSchemaObject(schema) || depth > walk.maxDepth) return unknownType;
  const parts: TypeNode[] = [];
  if (typeof schema.$ref === 'string') parts.push(resolveReference(walk, schema.$ref, depth));
  if ('const' in schema) parts.push(literalOf(schema.const));
  else if (Array.isArray(schema.enum)) parts.push(unionOf(schema.enum.map(literalOf)));
  else {
    const own = ownType(walk, schema, hint, depth, label);
    if (own !== undefined) parts.push(own);
  }
  if (Array.isArray(schema.allOf)) {
    parts.push(...schema.allOf.map((member) => convert(walk, member, hint, depth + 1, label)));
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = schema[keyword];
    if (Array.isArray(members)) {
      parts.push(
        unionOf(members.map((member, index) => convert(walk, member, `${hint}Option${index + 1}`, depth + 1, label))),
      );
    }
  }
  const type = intersectionOf(parts);
  return schema.nullable === true ? unionOf([type, { kind: 'primitive', name: 'null' }]) : type;
}

function ownType(walk: Walk, schema: SchemaObject, hint: string, depth: number, label: string): TypeNode | undefined {
  const declared = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : [];
  const types = declared.length > 0 ? declared : inferredTypes(schema);
  if (types.length === 0) return undefined;
  return unionOf(
    types.map((type): TypeNode => {
      switch (type) {
        case 'object':
          return objectType(walk, schema, hint, depth, label);
        case 'array':
          return arrayType(walk, schema, hint, depth, label);
        case 'string':
        case 'number':
        case 'integer':
        case 'boolean':
        case 'null':
          return { kind: 'primitive', name: type };
        default:
          return unknownType;
      }
    }),
  );
}

function inferredTypes(schema: SchemaObject): string[] {
  if (['properties', 'additionalProperties', 'patternProperties', 'required'].some((key) => key in schema)) {
    return ['object'];
  }
  if ('items' in schema || 'prefixItems' in schema) return ['array'];
  return [];
}

function objectType(walk: Walk, schema: SchemaObject, hint: string, depth: number, label: string): ObjectNode {
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((key) => typeof key === 'string') : [],
  );
  const properties: PropertyNode[] = [];
  if (isSchemaObject(schema.properties)) {
    for (const name of Object.keys(schema.properties)) {
      const propertySchema = schema.properties[name];
      const word = pascalCase(name);
      properties.push({
        name,
        type: convert(walk, propertySchema, `${hint}${word}`, depth + 1, word),
        optional: !required.has(name),
        doc: propertyDoc(walk.root, propertySchema),
      });
    }
  }
  const extra: TypeNode[] = [];
  const additional = schema.additionalProperties;
  if (additional === true) extra.push(unknownType);
  else if (isSchemaObject(additional))
    extra.push(convert(walk, additional, `${hint}Value`, depth + 1, `${label}Value`));
  if (isSchemaObject(schema.patternProperties)) {
    for (const pattern of Object.values(schema.patternProperties)) {
      extra.push(convert(walk, pattern, `${hint}Value`, depth + 1, `${label}Value`));
    }
  }
  const implicit = properties.length === 0 && additional === undefined && extra.length === 0;
  return {
    kind: 'object',
    hint,
    label,
    properties,
    additional: implicit ? unknownType : extra.length > 0 ? unionOf(extra) : undefined,
  };
}

function arrayType(walk: Walk, schema: SchemaObject, hint: string, depth: number, label: string): TypeNode {
  const item = (member: unknown, index?: number) =>
    convert(
      walk,
      member,
      `${hint}Item${index === undefined ? '' : index + 1}`,
      depth + 1,
      index === undefined ? singular(label) : `${label}Item${index + 1}`,
    );
  const tuple = Array.isArray(schema.prefixItems)
    ? { items: schema.prefixItems, rest: schema.items }
    : Array.isArray(schema.items)
      ? { items: schema.items, rest: schema.additionalItems }
      : undefined;
  if (tuple !== undefined) {
    const rest = tuple.rest === undefined || tuple.rest === false ? undefined : item(tuple.rest);
    return { kind: 'tuple', items: tuple.items.map((member, index) => item(member, index)), rest };
  }
  return { kind: 'array', items: 'items' in schema ? item(schema.items) : unknownType };
}

function resolveReference(walk: Walk, reference: string, depth: number): TypeNode {
  const target = resolvePointer(walk.root, reference);
  if (target === undefined) return unknownType;
  const preferred = reference === '#' ? walk.rootHint : pascalCase(reference.split('/').pop() ?? 'Definition');
  // A schema without `$ref` (most) is never recursive, so no definition can have its key: the key,
  // which serialises the whole schema, is left uncomputed.
  const known = walk.referenced ? walk.registry.lookup(closureKey(walk, reference)) : undefined;
  if (known !== undefined && walk.registry.definitions.has(known)) return { kind: 'reference', name: known };
  const state = walk.expanding.get(reference);
  if (state !== undefined) {
    state.recursive = true;
    state.name ??= walk.registry.name(closureKey(walk, reference), preferred);
    return { kind: 'reference', name: state.name };
  }
  if (walk.expansions > walk.maxExpansions) return unknownType;
  walk.expansions += 1;
  const expansion = { recursive: false, name: undefined as string | undefined };
  walk.expanding.set(reference, expansion);
  const type = convert(walk, target, preferred, depth + 1);
  walk.expanding.delete(reference);
  if (!expansion.recursive || expansion.name === undefined) return type;
  walk.registry.define(expansion.name, type);
  return { kind: 'reference', name: expansion.name };
}

/**
 * Identifies a definition by its content and the content of every definition it reaches, so that
 * identical definitions in different tools' schemas share one name and different ones never do.
 */
function closureKey(walk: Walk, reference: string): string {
  const known = walk.closureKeys.get(reference);
  if (known !== undefined) return known;
  const reached = new Map<string, unknown>();
  const pending = [reference];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (reached.has(next)) continue;
    const target = resolvePointer(walk.root, next);
    reached.set(next, target);
    collectReferences(target, pending);
  }
  const key = stableStringify([reference, [...reached].sort(([left], [right]) => (left < right ? -1 : 1))]);
  walk.closureKeys.set(reference, key);
  return key;
}

function hasReference(root: JsonSchema): boolean {
  const found: string[] = [];
  collectReferences(root, found);
  return found.length > 0;
}

function literalOf(value: unknown): TypeNode {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return { kind: 'literal', value };
  if (typeof value === 'number' && Number.isFinite(value)) return { kind: 'literal', value };
  return unknownType;
}

/** `Entities` → `Entity`, `Addresses` → `Address`, `Tags` → `Tag`; a name that is not a plural gets `Item`. */
function singular(label: string): string {
  if (/[^aeiou]ies$/.test(label)) return `${label.slice(0, -3)}y`;
  if (/(?:ss|sh|ch|x)es$/.test(label)) return label.slice(0, -2);
  if (/[^s]s$/.test(label) && label.length > 3) return label.slice(0, -1);
  return `${label}Item`;
}
