import { describe, expect, it } from 'vitest';
import { FifoQueue } from './fifo-queue.js';

describe('FifoQueue', () => {
  it('hands items out oldest first, across compactions', () => {
    const queue = new FifoQueue<number>();
    const out: number[] = [];
    for (let index = 0; index < 5_000; index += 1) {
      queue.push(index);
      if (index % 3 === 0) out.push(queue.shift()!);
    }
    while (queue.length > 0) out.push(queue.shift()!);
    expect(out).toEqual(Array.from({ length: 5_000 }, (_, index) => index));
    expect(queue.shift()).toBeUndefined();
  });

  it('drains what waits, oldest first, and starts empty again', () => {
    const queue = new FifoQueue<string>();
    for (const item of ['a', 'b', 'c', 'd']) queue.push(item);
    expect(queue.shift()).toBe('a');
    expect(queue.drain()).toEqual(['b', 'c', 'd']);
    expect(queue.length).toBe(0);
    queue.push('e');
    expect(queue.shift()).toBe('e');
  });

  it('does not keep shifted items reachable', () => {
    const queue = new FifoQueue<object>();
    for (let index = 0; index < 3_000; index += 1) queue.push({ index });
    for (let index = 0; index < 2_999; index += 1) queue.shift();
    expect(queue.length).toBe(1);
    expect(queue.drain()).toEqual([{ index: 2_999 }]);
  });
});
