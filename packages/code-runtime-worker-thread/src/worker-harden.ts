/**
 * Hardens the worker's own realm before any program runs. Serialised with
 * `Function.prototype.toString` into the worker's source: self-contained, strict, no imports.
 *
 * The program never receives an object of the worker's realm from us, but V8 and Node can create
 * one while running program code: a `RangeError` for a stack overflow inside Node's stack-trace
 * formatter, a `TypeError` for a refused `import()`. From such an object, `.constructor.constructor`
 * is the worker's `Function`, which compiles source with `process` in scope, and `__proto__` leads
 * to prototypes the worker's own code relies on. So: every function constructor of this realm is
 * replaced by one that throws, and the standard built-ins are frozen (with the usual override
 * taming, so assigning `name` or `toString` on an instance still works).
 */
export function hardenWorkerRealm(): void {
  const poison = function constructorDisabled(): never {
    throw new TypeError('Code generation is disabled here.');
  };
  Object.freeze(poison);
  const functionKinds = [() => {}, async () => {}, function* () {}, async function* () {}];
  for (const sample of functionKinds) {
    Object.defineProperty(Object.getPrototypeOf(sample), 'constructor', {
      value: poison,
      writable: false,
      enumerable: false,
      configurable: false,
    });
  }

  const global = globalThis as unknown as Record<string, unknown>;
  const rootNames = [
    'Object', 'Function', 'Array', 'Number', 'Boolean', 'String', 'Symbol', 'BigInt', 'Date', 'Promise',
    'RegExp', 'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError',
    'TypeError', 'URIError', 'JSON', 'Math', 'Reflect', 'Proxy', 'Map', 'Set', 'WeakMap', 'WeakSet',
    'WeakRef', 'FinalizationRegistry', 'ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Atomics',
    'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
    'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'Intl',
    'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'decodeURI', 'decodeURIComponent', 'encodeURI',
    'encodeURIComponent', 'escape', 'unescape', 'eval',
  ]; // biome-ignore format: one name list
  const roots: unknown[] = rootNames.map((name) => global[name]);
  roots.push(
    Object.getPrototypeOf([][Symbol.iterator]()),
    Object.getPrototypeOf(new Map().entries()),
    Object.getPrototypeOf(new Set().values()),
    Object.getPrototypeOf(''[Symbol.iterator]()),
    Object.getPrototypeOf(/x/[Symbol.matchAll]('')),
    Object.getPrototypeOf(function* () {}),
    Object.getPrototypeOf(async function* () {}),
    Object.getPrototypeOf(async () => {}),
    poison,
  );

  const overridable = new Set(['constructor', 'name', 'message', 'toString', 'valueOf', 'toLocaleString', 'toJSON']);
  const seen = new Set<unknown>();
  const queue = roots;
  while (queue.length > 0) {
    const value = queue.pop();
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) continue;
    seen.add(value);
    const object = value as Record<PropertyKey, unknown>;
    queue.push(Object.getPrototypeOf(object));
    const isPrototype = typeof object.constructor === 'function' && Object.hasOwn(object, 'constructor');
    for (const key of Reflect.ownKeys(object)) {
      const descriptor = Object.getOwnPropertyDescriptor(object, key)!;
      if ('value' in descriptor) {
        queue.push(descriptor.value);
        if (isPrototype && typeof key === 'string' && overridable.has(key) && descriptor.configurable) {
          const original = descriptor.value;
          Object.defineProperty(object, key, {
            get: () => original,
            set(this: object, next: unknown) {
              if (this === object) throw new TypeError(`Cannot assign to read-only property '${key}'.`);
              Object.defineProperty(this, key, { value: next, writable: true, enumerable: true, configurable: true });
            },
            enumerable: descriptor.enumerable ?? false,
            configurable: false,
          });
        }
      } else {
        queue.push(descriptor.get, descriptor.set);
      }
    }
    Object.freeze(object);
  }
}
