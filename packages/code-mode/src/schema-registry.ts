import type { TypeNode } from './schema-model.js';
import { NameAllocator } from './schema-names.js';

export { reservedTypeNames } from './schema-names.js';

/** Named types shared by every schema of one declaration set: recursive `$ref`s become named types here. */
export class DefinitionRegistry {
  readonly #namesByKey = new Map<string, string>();
  readonly #bodies = new Map<string, TypeNode>();
  /** Every name in use in the declaration set: recursive definitions here, then the shared shapes. */
  readonly names = new NameAllocator();

  /** The name of the definition identified by `key`, allocating `preferred` (or `preferred2`, ...) the first time. */
  name(key: string, preferred: string): string {
    const known = this.#namesByKey.get(key);
    if (known !== undefined) return known;
    const name = this.names.allocate(preferred);
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
