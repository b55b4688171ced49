import type { PreludeIntrinsics } from './prelude-intrinsics.js';

/**
 * In-context metering of memory allocated outside the V8 heap. Serialised with
 * `Function.prototype.toString` into the run's context: self-contained, strict, no imports.
 *
 * ArrayBuffer and typed-array backing stores do not count against the worker's heap limit, so a
 * program could otherwise take the whole process down with `new ArrayBuffer(2 ** 31)` in a loop.
 * Every path a program can reach that allocates one is charged before it allocates: the
 * `ArrayBuffer` and typed-array constructors (also as species and through `from`/`of`), and the
 * methods that copy (`slice`, `map`, `filter`, `toReversed`, `toSorted`, `with`, `resize`,
 * `transfer`). The count is cumulative over the run (freed buffers are not credited back), so it
 * errs towards stopping early. Going over calls `exceeded` and throws a `RangeError`.
 */
export function installMeter(
  intrinsics: PreludeIntrinsics,
  global: Record<string, unknown>,
  limitBytes: number,
  exceeded: (usedBytes: number) => void,
): void {
  const {
    apply,
    construct,
    defineProperty,
    getPrototypeOf,
    getOwnPropertyDescriptor,
    arrayFrom,
    Number: NumberConstructor,
    trunc,
    max,
    min,
    isNotANumber,
    Proxy: ProxyConstructor,
    RangeError: RangeErrorConstructor,
    typedArrayLength,
    arrayBufferByteLength,
    typedArrayPrototype,
  } = intrinsics;
  let used = 0;

  function charge(bytes: number): void {
    if (!(bytes > 0)) return;
    used += bytes;
    if (used > limitBytes) {
      exceeded(used);
      throw new RangeErrorConstructor(
        `Array buffer allocation failed: the run's ${limitBytes}-byte memory budget is used up (${used} bytes of buffers requested).`,
      );
    }
  }

  function toLength(value: unknown): number {
    const number = trunc(NumberConstructor(value));
    return isNotANumber(number) || number <= 0 ? 0 : number;
  }

  function bufferLength(value: unknown): number | undefined {
    try {
      return apply(arrayBufferByteLength, value as ArrayBuffer, []);
    } catch {
      return undefined;
    }
  }

  function viewLength(value: unknown): number | undefined {
    try {
      return apply(typedArrayLength, value as Uint8Array, []);
    } catch {
      return undefined;
    }
  }

  function pin(prototype: object, name: string, value: unknown): void {
    defineProperty(prototype, name, { value, writable: false, enumerable: false, configurable: false });
  }

  function wrapMethod(owner: object, name: string, bytesFor: (self: unknown, args: unknown[]) => number): void {
    const descriptor = getOwnPropertyDescriptor(owner, name);
    const original = descriptor?.value as ((...args: unknown[]) => unknown) | undefined;
    if (typeof original !== 'function') return;
    const wrapped = {
      [name](this: unknown, ...args: unknown[]) {
        charge(bytesFor(this, args));
        return apply(original, this, args);
      },
    }[name]!;
    defineProperty(owner, name, { value: wrapped, writable: true, enumerable: false, configurable: true });
  }

  const arrayBuffer = global.ArrayBuffer as ArrayBufferConstructor;
  const meteredArrayBuffer = new ProxyConstructor(arrayBuffer, {
    construct(target, args, newTarget) {
      const options = args[1] as { maxByteLength?: unknown } | undefined;
      let maxLength = 0;
      if (typeof options === 'object' && options !== null) maxLength = toLength(options.maxByteLength);
      const length = toLength(args[0]);
      charge(max(maxLength, length));
      return construct(target, args, newTarget);
    },
  });
  pin(arrayBuffer.prototype, 'constructor', meteredArrayBuffer);
  global.ArrayBuffer = meteredArrayBuffer;
  wrapMethod(arrayBuffer.prototype, 'slice', (self, args) => {
    const length = bufferLength(self) ?? 0;
    const start = args[0] === undefined ? 0 : toLength(args[0]);
    const end = args[1] === undefined ? length : toLength(args[1]);
    return min(end, length) - start;
  });
  wrapMethod(arrayBuffer.prototype, 'resize', (self, args) => toLength(args[0]) - (bufferLength(self) ?? 0));
  wrapMethod(arrayBuffer.prototype, 'transfer', (self, args) =>
    args[0] === undefined ? (bufferLength(self) ?? 0) : toLength(args[0]),
  );
  wrapMethod(arrayBuffer.prototype, 'transferToFixedLength', (self, args) =>
    args[0] === undefined ? (bufferLength(self) ?? 0) : toLength(args[0]),
  );

  const names = [
    'Int8Array',
    'Uint8Array',
    'Uint8ClampedArray',
    'Int16Array',
    'Uint16Array',
    'Int32Array',
    'Uint32Array',
    'Float32Array',
    'Float64Array',
    'BigInt64Array',
    'BigUint64Array',
    'Float16Array',
  ];
  for (let index = 0; index < names.length; index += 1) {
    const name = names[index]!;
    const typedArrayConstructor = global[name] as (Uint8ArrayConstructor & { BYTES_PER_ELEMENT: number }) | undefined;
    if (typeof typedArrayConstructor !== 'function') continue;
    const elementBytes = typedArrayConstructor.BYTES_PER_ELEMENT;
    const metered = new ProxyConstructor(typedArrayConstructor, {
      construct(target, args, newTarget) {
        const first = args[0];
        if (typeof first !== 'object' || first === null) {
          charge(toLength(first) * elementBytes);
        } else if (bufferLength(first) === undefined) {
          const length = viewLength(first);
          if (length !== undefined) charge(length * elementBytes);
          else {
            // An iterable or array-like: collect it on the heap first, where the heap limit applies.
            const items = arrayFrom(first as ArrayLike<unknown>);
            charge(items.length * elementBytes);
            args = [items];
          }
        }
        return construct(target, args, newTarget);
      },
    });
    pin(typedArrayConstructor.prototype, 'constructor', metered);
    global[name] = metered;
  }
  const byteSize = (self: unknown) => {
    const length = viewLength(self) ?? 0;
    const prototype = getPrototypeOf(self as object) as { BYTES_PER_ELEMENT?: unknown } | null;
    const size = prototype === null ? 8 : prototype.BYTES_PER_ELEMENT;
    return length * (typeof size === 'number' ? size : 8);
  };
  const copying = ['slice', 'map', 'filter', 'toReversed', 'toSorted', 'with'];
  for (let index = 0; index < copying.length; index += 1) {
    wrapMethod(typedArrayPrototype, copying[index]!, (self) => byteSize(self));
  }
}
