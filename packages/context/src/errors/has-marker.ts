/** Whether `error` is an object carrying `marker` set to `true`. Shared by every error class's `isInstance`. */
export function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
}
