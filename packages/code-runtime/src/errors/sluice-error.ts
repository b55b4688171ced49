const marker: unique symbol = Symbol.for('sluice.error');

/** Options every Sluice error constructor takes. */
export interface SluiceErrorOptions {
  /** What went wrong and how to fix it, in one or two sentences. */
  readonly message: string;
  /** The underlying error, if any. */
  readonly cause?: unknown;
}

/**
 * The base of every error a Sluice package throws. Errors are thrown only for misuse of an API or
 * bad configuration, never for what a program did. Recognise them with `isInstance`, which works
 * across duplicated copies of this package, rather than `instanceof`.
 */
export class SluiceError extends Error {
  readonly [marker] = true;

  constructor(options: SluiceErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SluiceError';
  }

  /** Whether `error` is a {@link SluiceError} from any copy of this package. */
  static isInstance(error: unknown): error is SluiceError {
    return hasMarker(error, marker);
  }
}

/** Whether `error` is an object carrying `marker` set to `true`. Shared by every error class's `isInstance`. */
export function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
}
