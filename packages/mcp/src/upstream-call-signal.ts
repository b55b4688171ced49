/** A signal for one upstream call, and the way to let go of it when the call settles. */
export interface UpstreamCallSignal {
  /** Aborted, with the run's reason, when the run's signal aborts while the call is still held. */
  readonly signal: AbortSignal;
  /** Ends the link to the run's signal: a later abort of the run no longer reaches this call. Idempotent. */
  release(): void;
}

interface Link {
  readonly controllers: Set<AbortController>;
  readonly onAbort: () => void;
}

const links = new WeakMap<AbortSignal, Link>();

/**
 * One `AbortController` per upstream call, linked to the run's `parent` signal until released.
 * The SDK adds an abort listener to the signal of every request and never removes it, and sends
 * `notifications/cancelled` whenever that signal aborts, even after the request completed; so each
 * request gets its own signal, which is only aborted while the call is in flight. The parent carries
 * at most one listener of ours however many calls are running, so a run of many calls sets off no
 * `MaxListenersExceededWarning`.
 */
export function upstreamCallSignal(parent: AbortSignal): UpstreamCallSignal {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release: () => {} };
  }
  let link = links.get(parent);
  if (link === undefined) {
    const controllers = new Set<AbortController>();
    const created: Link = {
      controllers,
      onAbort: () => {
        links.delete(parent);
        for (const each of controllers) each.abort(parent.reason);
        controllers.clear();
      },
    };
    parent.addEventListener('abort', created.onAbort, { once: true });
    links.set(parent, created);
    link = created;
  }
  const current = link;
  current.controllers.add(controller);
  return {
    signal: controller.signal,
    release: () => {
      if (!current.controllers.delete(controller) || current.controllers.size > 0) return;
      if (links.get(parent) === current) links.delete(parent);
      parent.removeEventListener('abort', current.onAbort);
    },
  };
}
