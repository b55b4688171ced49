import type { TypeNode } from './schema-model.js';

/**
 * Names a declared type may never take, because the declarations use them (`Promise`, `Record`,
 * typing's `Any`, `Literal`, `NotRequired`, `TypedDict`) or the model expects the built-in.
 */
export const reservedTypeNames: ReadonlySet<string> = new Set([
  'Any', 'Array', 'Boolean', 'Date', 'Error', 'Function', 'List', 'Literal', 'Map', 'NoReturn', 'NotRequired',
  'Number', 'Object', 'Promise', 'Record', 'Set', 'String', 'Symbol', 'TypedDict',
]); // biome-ignore format: one word list

/** Named types shared by every schema of one declaration set: recursive `$ref`s become named types here. */
export class DefinitionRegistry {
  readonly #namesByKey = new Map<string, string>();
  readonly #bodies = new Map<string, TypeNode>();
  readonly #taken = new Set<string>(reservedTypeNames);

  /** The name of the definition identified by `key`, allocating `preferred` (or `preferred2`, ...) the first time. */
  name(key: string, preferred: string): string {
    const known = this.#namesByKey.get(key);
    if (known !== undefined) return known;
    let name = preferred;
    for (let suffix = 2; this.#taken.has(name); suffix += 1) name = `${preferred}${suffix}`;
    this.#taken.add(name);
    this.#namesByKey.set(key, name);
    return name;
  }

  /** The name already allocated for `key`, if any. */
  lookup(key: string): string | undefined {
    return this.#namesByKey.get(key);
  }

  /** Records a definition's body, once. */
  define(name: string, type: TypeNode): void {
    if (!this.#bodies.has(name)) this.#bodies.set(name, type);
  }

  /** Every defined type, in the order they were first defined. */
  get definitions(): ReadonlyMap<string, TypeNode> {
    return this.#bodies;
  }
}
