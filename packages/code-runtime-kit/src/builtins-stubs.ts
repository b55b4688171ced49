/**
 * Where each built-in the polyfill provides lives: `<global>.<key>`, `<global>.prototype.<key>`,
 * or `%IteratorPrototype%.<key>` (the prototype of every built-in iterator's prototype).
 */
export const polyfilledBuiltins: readonly string[] = [
  'Object.groupBy',
  'Map.groupBy',
  'Promise.withResolvers',
  'Promise.try',
  'Array.fromAsync',
  'RegExp.escape',
  'Math.f16round',
  'DataView.prototype.getFloat16',
  'DataView.prototype.setFloat16',
  'Set.prototype.union',
  'Set.prototype.intersection',
  'Set.prototype.difference',
  'Set.prototype.symmetricDifference',
  'Set.prototype.isSubsetOf',
  'Set.prototype.isSupersetOf',
  'Set.prototype.isDisjointFrom',
  '%IteratorPrototype%.map',
  '%IteratorPrototype%.filter',
  '%IteratorPrototype%.take',
  '%IteratorPrototype%.drop',
  '%IteratorPrototype%.flatMap',
  '%IteratorPrototype%.reduce',
  '%IteratorPrototype%.toArray',
  '%IteratorPrototype%.forEach',
  '%IteratorPrototype%.some',
  '%IteratorPrototype%.every',
  '%IteratorPrototype%.find',
  'globalThis.Iterator',
];

/**
 * Puts an accessor in the place of each of `names` (see {@link polyfilledBuiltins}), replacing the
 * engine's own built-in where it has one: the first read or write of any of them calls `install`,
 * which is to remove every accessor (the returned function) and then evaluate the polyfill; the
 * read then answers what the polyfill defined, and a write defines the program's value. A run
 * that never touches one pays for the accessors only.
 *
 * Self-contained and strict: the worker-thread provider serialises it into every run's context,
 * the QuickJS provider evaluates it in its guest; it runs before the program.
 */
export function stubBuiltins(
  global: Record<string, unknown>,
  names: readonly string[],
  install: () => void,
): () => void {
  const define = Object.defineProperty;
  const iteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())) as object;
  const placed: Array<[object, string]> = [];
  for (let index = 0; index < names.length; index += 1) {
    const path = (names[index] as string).split('.');
    const key = path.pop() as string;
    let owner: unknown =
      path[0] === '%IteratorPrototype%'
        ? iteratorPrototype
        : path[0] === 'globalThis'
          ? global
          : global[path[0] as string];
    if (path[1] === 'prototype') owner = owner === undefined ? undefined : (owner as { prototype?: unknown }).prototype;
    if (typeof owner !== 'object' && typeof owner !== 'function') continue;
    const target = owner as Record<string, unknown>;
    placed.push([target, key]);
    define(target, key, {
      configurable: true,
      enumerable: false,
      get() {
        install();
        return target[key];
      },
      set(value: unknown) {
        install();
        define(target, key, { value, writable: true, enumerable: false, configurable: true });
      },
    });
  }
  return () => {
    for (let index = 0; index < placed.length; index += 1) {
      const [target, key] = placed[index] as [object, string];
      delete (target as Record<string, unknown>)[key];
    }
  };
}
