/**
 * A first-in first-out queue with a moving head index: `shift` is constant time, where
 * `Array.prototype.shift` moves every remaining element and makes a long queue quadratic. The
 * consumed front is dropped once it is at least half of the backing array.
 */
export class FifoQueue<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  /** How many items wait. */
  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, removed; `undefined` when the queue is empty. */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head += 1;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Removes and returns every waiting item, oldest first. */
  drain(): T[] {
    const items = this.#items.slice(this.#head) as T[];
    this.#items = [];
    this.#head = 0;
    return items;
  }
}
