/**
 * Names a declared type may never take, because the declarations use them (`Promise`, `Record`,
 * typing's `Any`, `Literal`, `NotRequired`, `TypedDict`) or the model expects the built-in.
 */
export const reservedTypeNames: ReadonlySet<string> = new Set([
  'Any', 'Array', 'Boolean', 'Date', 'Error', 'Function', 'List', 'Literal', 'Map', 'NoReturn', 'NotRequired',
  'Number', 'Object', 'Promise', 'Record', 'Set', 'String', 'Symbol', 'TypedDict',
]); // biome-ignore format: one word list

/**
 * Hands out unique type names: `preferred` when free, else `preferred2`, `preferred3`, … Each base
 * name remembers the next suffix to try, so naming n types that all prefer the same name costs
 * O(n), not O(n²).
 */
export class NameAllocator {
  readonly #taken = new Set<string>(reservedTypeNames);
  readonly #next = new Map<string, number>();

  /** A name not handed out before, as close to `preferred` as possible. */
  allocate(preferred: string): string {
    let name = preferred;
    if (this.#taken.has(name)) {
      let suffix = this.#next.get(preferred) ?? 2;
      while (this.#taken.has(`${preferred}${suffix}`)) suffix += 1;
      name = `${preferred}${suffix}`;
      this.#next.set(preferred, suffix + 1);
    }
    this.#taken.add(name);
    return name;
  }

  /** Whether `name` was handed out (or is reserved). */
  has(name: string): boolean {
    return this.#taken.has(name);
  }
}
