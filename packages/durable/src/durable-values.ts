import type { HostCallContext, HostFunction, JsonValue } from '@sluice/code-runtime';
import { storedValueLimits } from '@sluice/run-store';

/** The longest key `store` accepts, in characters. */
export const maxStoredKeyLength = 256;

/**
 * A run's view of its conversation's stored values: the snapshot in its start record (so a replay
 * reads what the first run read), with the run's own `store` calls on top. The changes are
 * committed by the runner only when the run succeeds.
 */
export class RunValues {
  readonly #snapshot: Readonly<Record<string, JsonValue>>;
  readonly #conversation: string | undefined;
  readonly #changes = new Map<string, JsonValue | null>();
  #sizeByKey: Map<string, number> | undefined;
  #total = 0;

  constructor(conversation: string | undefined, snapshot: Readonly<Record<string, JsonValue>>) {
    this.#conversation = conversation;
    this.#snapshot = snapshot;
  }

  /** The changes to commit: `null` deletes a key. */
  get changes(): Record<string, JsonValue | null> {
    return Object.fromEntries(this.#changes);
  }

  /**
   * `sluice.store(key, value)` and `sluice.load(key)`. Both run again on every replay (they read
   * only the snapshot and this run's own writes), so they are not journaled. `store` with `null`
   * deletes; `load` of a missing key is `null`.
   */
  bindings(): Record<string, HostFunction> {
    return {
      store: (input, context) => {
        const [key, value] = this.#arguments(input, context, 'store');
        this.#check(key, value);
        this.#changes.set(key, value);
        return null;
      },
      load: (input, context) => {
        const [key] = this.#arguments(input, context, 'load');
        const changed = this.#changes.get(key);
        if (changed !== undefined) return changed;
        return Object.hasOwn(this.#snapshot, key) ? (this.#snapshot[key] as JsonValue) : null;
      },
    };
  }

  #arguments(input: JsonValue, context: HostCallContext, name: 'store' | 'load'): [string, JsonValue] {
    if (this.#conversation === undefined) {
      throw new Error(
        `sluice.${name} needs a conversation: the host started this run without one, so nothing can be kept between runs.`,
      );
    }
    const args = context.positional ?? (isRecord(input) ? [input.key ?? null, input.value ?? null] : [input]);
    const [key, value = null] = args;
    if (typeof key !== 'string' || key === '' || key.length > maxStoredKeyLength) {
      throw new Error(
        `sluice.${name}(key${name === 'store' ? ', value' : ''}): key must be a non-empty string of at most ${maxStoredKeyLength} characters.`,
      );
    }
    return [key, value];
  }

  #check(key: string, value: JsonValue): void {
    const chars = JSON.stringify(value).length;
    if (chars > storedValueLimits.valueChars) {
      throw new Error(
        `sluice.store: the value for ${JSON.stringify(key)} is ${chars} characters of JSON; the limit is ${storedValueLimits.valueChars} a value. Keep less, or a summary.`,
      );
    }
    // The conversation's size is kept up to date key by key, so a store costs what its value costs,
    // not a pass over every value the conversation holds (up to 1 Mi characters, on each of 1,000 calls).
    const sizes = this.#sizes();
    const size = value === null ? 0 : key.length + chars;
    const total = this.#total - (sizes.get(key) ?? 0) + size;
    if (total > storedValueLimits.totalChars) {
      throw new Error(
        `sluice.store: the conversation's values would be ${total} characters of JSON; the limit is ${storedValueLimits.totalChars} in all. Delete some with sluice.store(key, null).`,
      );
    }
    sizes.set(key, size);
    this.#total = total;
  }

  /** Characters of each key and its value's JSON, for the snapshot with this run's changes; measured at the first `store`. */
  #sizes(): Map<string, number> {
    if (this.#sizeByKey === undefined) {
      this.#sizeByKey = new Map();
      for (const [name, stored] of Object.entries(this.#snapshot)) {
        const size = stored === null ? 0 : name.length + JSON.stringify(stored).length;
        this.#sizeByKey.set(name, size);
        this.#total += size;
      }
    }
    return this.#sizeByKey;
  }
}

function isRecord(value: JsonValue): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
