import type { PreludeClock } from './prelude-clock.js';
import type { PreludeTimers } from './prelude-timers.js';

/** The host calls of a run, as the prelude keeps them. */
export interface PreludeCalls {
  /** Calls made so far; their ids run from 1 to this. */
  readonly count: () => number;
  /** Whether call `id` is registered and still unanswered (calls refused in the context never are). */
  readonly unanswered: (id: number) => boolean;
  /** Gives call `id` the host's result (`ok` 1, `text` its JSON) or error (`ok` 0, `text` the message). */
  readonly settle: (id: number, ok: number, text: string) => void;
}

/** The order of a deterministic run's events, in its context. */
export interface PreludeOrder {
  /** Keeps the host's reply to call `id`; delivers it at once if it is the one the run waits for next. */
  readonly reply: (id: number, ok: number, text: string) => void;
  /** Whether {@link PreludeOrder.step} has something to do. */
  readonly waiting: () => boolean;
  /**
   * Takes one step, to be called only when nothing else can happen in the context: the next reply
   * in call order if it has come (the clock moves on 1 ms), otherwise, when no call is unanswered,
   * the timer due first (the clock jumps to its due time). Returns whether it took one.
   */
  readonly step: () => boolean;
}

/**
 * A deterministic run's delivery order: replies in the order the calls were made, one a turn, and
 * timers only when no call is unanswered. Serialised with `Function.prototype.toString`:
 * self-contained, strict, no imports.
 */
export function makeOrder(
  create: typeof Object.create,
  clock: PreludeClock,
  timers: PreludeTimers,
  calls: PreludeCalls,
): PreludeOrder {
  const replies = create(null) as Record<number, { ok: number; text: string }>;
  let next = 1;

  function deliverable(): boolean {
    // Ids refused in the context and ids already delivered are passed over.
    while (next <= calls.count() && !calls.unanswered(next)) next += 1;
    return next <= calls.count() && replies[next] !== undefined;
  }

  function step(): boolean {
    if (deliverable()) {
      const id = next;
      const reply = replies[id]!;
      delete replies[id];
      clock.advanceTo(clock.elapsed() + 1);
      calls.settle(id, reply.ok, reply.text);
      return true;
    }
    if (next <= calls.count()) return false;
    const id = timers.next();
    if (id === 0) return false;
    clock.advanceTo(timers.dueAt(id));
    timers.fire(id);
    return true;
  }

  return {
    reply(id: number, ok: number, text: string): void {
      if (calls.unanswered(id) && replies[id] === undefined) replies[id] = { ok, text };
      if (deliverable()) step();
    },
    waiting: () => deliverable() || (next > calls.count() && timers.next() !== 0),
    step,
  };
}
