/**
 * The prelude reports a value that is not JSON as the path and kind of its first violation. The
 * host rebuilds a small host-side value with that same violation at that same path, and lets the
 * run controller judge it: the model then reads the contract's own wording (`$.ratio is NaN,
 * which JSON cannot carry`), identical across providers. Nothing of the program's object crosses.
 * The prelude reports the value as `JSON.stringify` would see it (after `toJSON`, with `undefined`
 * members left out or `null`), so the path and kind are those of that converted value; `undefined`
 * remains a violation only at the root (a `toJSON` that returned nothing).
 */
export interface ReportedViolation {
  readonly path: ReadonlyArray<string | number>;
  readonly kind: string;
  readonly detail?: string | number;
}

const leaves: Record<string, () => unknown> = {
  nan: () => Number.NaN,
  infinity: () => Number.POSITIVE_INFINITY,
  '-infinity': () => Number.NEGATIVE_INFINITY,
  '-0': () => -0,
  bigint: () => 0n,
  undefined: () => undefined,
  function: () => function notJson() {},
  symbol: () => Symbol('not JSON'),
};

/** Whether `value` has the shape the prelude sends. */
export function isReportedViolation(value: unknown): value is ReportedViolation {
  if (typeof value !== 'object' || value === null) return false;
  const { path, kind, detail } = value as Record<string, unknown>;
  return (
    Array.isArray(path) &&
    path.length <= 100_000 &&
    path.every(
      (segment) => typeof segment === 'string' || (Number.isSafeInteger(segment) && (segment as number) >= 0),
    ) &&
    typeof kind === 'string' &&
    (detail === undefined || typeof detail === 'string' || typeof detail === 'number')
  );
}

/** A host value whose first JSON violation is `violation`. */
export function rebuildViolation(violation: ReportedViolation): unknown {
  const { path, kind, detail } = violation;
  // Structural kinds name the offending key as the last segment; its container is the target.
  const structural = kind === 'hole' || kind === 'accessor' || kind === 'array-key';
  const targetDepth = structural ? path.length - 1 : path.length;
  const ancestors: object[] = [];
  const build = (depth: number): unknown => {
    if (depth >= targetDepth) return target(path[depth]);
    const key = path[depth]!;
    const container = typeof key === 'number' ? new Array<unknown>(key + 1).fill(null) : {};
    ancestors.push(container);
    define(container, key, build(depth + 1));
    return container;
  };
  const target = (key: string | number | undefined): unknown => {
    const leaf = leaves[kind];
    if (leaf !== undefined) return leaf();
    switch (kind) {
      case 'hole': {
        const array = new Array<unknown>((typeof key === 'number' ? key : 0) + 1).fill(null);
        delete array[typeof key === 'number' ? key : 0];
        return array;
      }
      case 'accessor': {
        const container = typeof key === 'number' ? new Array<unknown>(key + 1).fill(null) : {};
        Object.defineProperty(container, key ?? '', { get: () => null, enumerable: true, configurable: true });
        return container;
      }
      case 'array-key':
        return define([], key ?? '', null);
      case 'cycle':
        return ancestors[typeof detail === 'number' ? detail : 0] ?? ancestors[0];
      case 'exotic': {
        const prototype = {};
        if (typeof detail === 'string' && detail !== '') {
          const named = () => {};
          Object.defineProperty(named, 'name', { value: detail });
          Object.defineProperty(prototype, 'constructor', { value: named });
        }
        return Object.create(prototype);
      }
      case 'depth':
        // An object at the depth the prelude refused: the run controller refuses it there too.
        return {};
      case 'foreign-array':
        return Object.setPrototypeOf([], Object.create(Array.prototype));
      case 'array-symbols':
        return define([], Symbol('key'), null);
      case 'object-symbols':
        return define({}, Symbol('key'), null);
      case 'invalid-date':
        return new Date(Number.NaN);
      case 'map-key':
        return rebuildMap(typeof detail === 'string' ? detail : 'object');
      case 'iterator-threw':
        return throwingIterable(typeof detail === 'string' ? detail : 'Error');
      default:
        return undefined;
    }
  };
  return build(0);
}

function define<Target extends object>(target: Target, key: PropertyKey, value: unknown): Target {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  return target;
}

/** A key of the type the prelude named (`typeof`, `null`, or a non-finite number's text). */
function keyOfType(type: string, text = ''): unknown {
  switch (type) {
    case 'string':
      return text;
    case 'number':
      return Number(text);
    case 'null':
      return null;
    case 'undefined':
      return undefined;
    case 'boolean':
      return true;
    case 'bigint':
      return 0n;
    case 'symbol':
      return Symbol('key');
    case 'function':
      return () => {};
    default:
      return /^-?(?:NaN|Infinity)$/.test(type) ? Number(type) : {};
  }
}

/** A Map the boundary refuses as the prelude's did: a key of that type, or two keys with the same text (`same:<type>:<type>:<text>`). */
function rebuildMap(detail: string): Map<unknown, null> {
  const same = /^same:(\w+):(\w+):([\s\S]*)$/.exec(detail);
  if (same === null) return new Map([[keyOfType(detail), null]]);
  const [, first, second, text] = same;
  return new Map([
    [keyOfType(first!, text), null],
    [keyOfType(second!, text), null],
  ]);
}

/** An iterable whose iterator throws an error that reads as `text` (the prelude's `Name: message`). */
function throwingIterable(text: string): object {
  const iterable = Object.create({
    [Symbol.iterator]: () => ({
      next: () => {
        const error = new Error('');
        Object.defineProperty(error, 'name', { value: text });
        throw error;
      },
    }),
  }) as object;
  return iterable;
}
