/**
 * The deferred tools loaded in one conversation, kept by the host (one per conversation) and shared
 * with `createRunCodeTool`: tools loaded by a search or `sluice.loadTools` stay declared in every
 * later `run_code` description of that conversation. Holds `namespace.name` paths.
 */
export class LoadedTools {
  readonly #paths = new Set<string>();
  readonly #onChange: ((added: readonly string[]) => void) | undefined;
  #version = 0;

  /** `onChange` hears of paths newly loaded, for example to tell an MCP client the tool list changed. */
  constructor(
    options: { readonly paths?: Iterable<string>; readonly onChange?: (added: readonly string[]) => void } = {},
  ) {
    for (const path of options.paths ?? []) this.#paths.add(path);
    this.#onChange = options.onChange;
  }

  /** Adds paths; returns those not loaded before, and calls `onChange` when there are any. */
  add(paths: Iterable<string>): string[] {
    const added = [...paths].filter((path) => !this.#paths.has(path));
    if (added.length === 0) return added;
    for (const path of added) this.#paths.add(path);
    this.#version += 1;
    this.#onChange?.(added);
    return added;
  }

  has(path: string): boolean {
    return this.#paths.has(path);
  }

  /** The loaded paths, sorted. */
  values(): string[] {
    return [...this.#paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Grows by one with each {@link add} that loads something; a description built at an older version is stale. */
  get version(): number {
    return this.#version;
  }
}
