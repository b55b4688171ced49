import type { PreludeIntrinsics } from './prelude-intrinsics.js';

/**
 * In-context JSON writer. Serialised with `Function.prototype.toString` into the run's context, so
 * it must stay self-contained: no imports, no closures over module scope, strict code only.
 *
 * The returned function walks a program value as `JSON.stringify` would read it, writing compact
 * JSON text as it goes: a `toJSON` method (own or inherited, a data property) is called with its key,
 * here in the context, and its result written instead (so a `Date` becomes its ISO string); a
 * property whose value is `undefined` is left out and an `undefined` array element is written as
 * `null`. The boundary's table (the code-runtime README) applies before `toJSON`: a `Map` is written
 * as an object (string keys, finite number keys as their text; any other key, or two keys with the
 * same text, is refused as `map-key`), a `Set` as an array (sorted when all numbers or all strings),
 * an `Error` as `{"error":"<Name>: <message>"}` (data properties only, each cut to 10,000
 * characters), a generator or other iterable that is not a typed array or boxed string as an array
 * of what it yields, read once (what it throws is refused as `iterator-threw`); an invalid `Date` is
 * refused as `invalid-date`. Everything else that JSON cannot carry is refused as
 * `findJsonViolation` in the contract refuses it (same order, same kinds) on the value with those
 * conversions applied. It returns `'T' + text`, `'V' + violation JSON` for the first violation, or
 * `'L'` when the text would pass `limitChars` UTF-16 units (a lower bound on its UTF-8 size) and the
 * value is otherwise valid, or when a Map, Set or iterator met would take the text past
 * `streamChars` (default `limitChars`; an endless generator stops there). An object nested
 * `depthLimit` levels deep is refused as `depth`, as the contract's `measureJson` refuses it. Getters
 * are never invoked; `toJSON`, iterators and Proxy traps run, here in the context, and nowhere else,
 * and what `toJSON` or a trap throws is thrown to the caller.
 */
export function makeJsonWriter(
  intrinsics: PreludeIntrinsics,
): (value: unknown, limitChars: number, depthLimit: number, streamChars?: number) => string {
  const {
    apply,
    keys,
    getPrototypeOf,
    getOwnPropertyDescriptor,
    getOwnPropertySymbols,
    hasOwn,
    is,
    isNotANumber,
    isArray,
    stringify,
    create,
    charCodeAt,
    Map: MapConstructor,
    mapGet,
    mapSet,
    mapDelete,
    mapHas,
    objectPrototype,
    arrayPrototype,
    bigintPrototype,
    errorPrototype,
    stringPrototype,
    typedArrayPrototype,
    dateGetTime,
    mapEntries,
    mapSize,
    mapIteratorNext,
    setValues,
    setSize,
    setIteratorNext,
    arrayFrom,
    arraySort,
    iteratorSymbol,
  } = intrinsics;

  interface Node {
    readonly value: unknown;
    readonly parent: Node | undefined;
    readonly key: string | number | undefined;
    readonly depth: number;
  }
  /** An open object or array: whether a member was written yet decides the comma. */
  interface Container {
    readonly array: boolean;
    written: boolean;
  }
  type Frame =
    | { readonly kind: 'value'; readonly node: Node; readonly container: Container | undefined }
    | { readonly kind: 'exit'; readonly text: string; readonly object: object };

  // `toJSON` as JSON.stringify finds it (own or inherited), but read from data properties only, so
  // no getter runs: an accessor or a non-function there means no `toJSON`. The hop cap stops a
  // Proxy that invents prototypes forever.
  function findToJson(value: object | bigint): ((this: unknown, key: string) => unknown) | undefined {
    let current: object | null = typeof value === 'bigint' ? bigintPrototype : (value as object);
    for (let hops = 0; current !== null && hops < 1000; hops += 1) {
      const descriptor = getOwnPropertyDescriptor(current, 'toJSON');
      if (descriptor !== undefined) {
        const method = hasOwn(descriptor, 'value') ? descriptor.value : undefined;
        return typeof method === 'function' ? method : undefined;
      }
      current = getPrototypeOf(current);
    }
    return undefined;
  }

  function primitiveKind(value: unknown): string | undefined {
    switch (typeof value) {
      case 'number':
        if (isNotANumber(value)) return 'nan';
        if (value === 1 / 0) return 'infinity';
        if (value === -1 / 0) return '-infinity';
        if (is(value, -0)) return '-0';
        return undefined;
      case 'bigint':
        return 'bigint';
      case 'undefined':
        return 'undefined';
      case 'function':
        return 'function';
      case 'symbol':
        return 'symbol';
      default:
        return undefined;
    }
  }

  function isIndexBelow(key: string, length: number): boolean {
    const size = key.length;
    if (size === 0 || size > 16) return false;
    for (let index = 0; index < size; index += 1) {
      const code = apply(charCodeAt, key, [index]);
      if (code < 48 || code > 57 || (index === 0 && code === 48 && size > 1)) return false;
    }
    return +key < length;
  }

  function violation(node: Node, kind: string, detail?: string | number, extraKey?: string): string {
    let segments = '';
    let current: Node | undefined = node;
    while (current?.parent !== undefined) {
      const key = current.key;
      segments = (typeof key === 'number' ? `${key}` : stringify(key)) + (segments === '' ? '' : `,${segments}`);
      current = current.parent;
    }
    if (extraKey !== undefined) segments += (segments === '' ? '' : ',') + stringify(extraKey);
    const detailText =
      detail === undefined ? '' : `,"detail":${typeof detail === 'number' ? `${detail}` : stringify(detail)}`;
    return `V{"path":[${segments}],"kind":${stringify(kind)}${detailText}}`;
  }

  function exoticName(prototype: object): string {
    const constructorDescriptor = getOwnPropertyDescriptor(prototype, 'constructor');
    const owner =
      constructorDescriptor !== undefined && hasOwn(constructorDescriptor, 'value')
        ? constructorDescriptor.value
        : undefined;
    if (typeof owner !== 'function') return '';
    const nameDescriptor = getOwnPropertyDescriptor(owner, 'name');
    const name = nameDescriptor !== undefined && hasOwn(nameDescriptor, 'value') ? nameDescriptor.value : undefined;
    return typeof name === 'string' ? name : '';
  }

  // A data property along the prototype chain (an accessor counts as absent: no getter runs).
  function dataProperty(object: object, name: PropertyKey): unknown {
    let current: object | null = object;
    for (let hops = 0; current !== null && hops < 1000; hops += 1) {
      const descriptor = getOwnPropertyDescriptor(current, name);
      if (descriptor !== undefined) return hasOwn(descriptor, 'value') ? descriptor.value : undefined;
      current = getPrototypeOf(current);
    }
    return undefined;
  }

  function hasPrototype(object: object, prototype: object): boolean {
    let current: object | null = getPrototypeOf(object);
    for (let hops = 0; current !== null && hops < 1000; hops += 1) {
      if (current === prototype) return true;
      current = getPrototypeOf(current);
    }
    return false;
  }

  // Whether `value` has the internal slot the built-in `method` reads (a Map's size, a Date's time).
  function reads(method: (this: never) => unknown, value: object): boolean {
    try {
      apply(method, value, []);
      return true;
    } catch {
      return false;
    }
  }

  function cut(text: string): string {
    return text.length <= 10000 ? text : `${apply(intrinsics.stringSlice, text, [0, 10000])}…`;
  }

  // `Name: message` (or `Name`) of an error, from data properties only.
  function errorText(error: object): string {
    const name = dataProperty(error, 'name');
    const message = dataProperty(error, 'message');
    const shownName = typeof name === 'string' && name !== '' ? cut(name) : 'Error';
    return typeof message === 'string' && message !== '' ? `${shownName}: ${cut(message)}` : shownName;
  }

  function thrownText(error: unknown): string {
    try {
      if (typeof error === 'object' && error !== null && hasPrototype(error, errorPrototype)) return errorText(error);
      return typeof error === 'string' ? cut(error) : typeof error;
    } catch {
      return 'a value that could not be read';
    }
  }

  // The least number of characters `item` takes as JSON: what an iterator is read against.
  function leastChars(item: unknown): number {
    if (typeof item === 'string') return item.length + 2;
    if (typeof item !== 'object' || item === null) return 1;
    try {
      return isArray(item) ? 2 + (item as unknown[]).length : 2 + 4 * keys(item).length;
    } catch {
      return 2;
    }
  }

  // An array made in this realm from `count` items of a null-prototype record, untouched by the program's setters.
  function arrayOf(items: Record<number, unknown>, count: number): unknown[] {
    (items as { length?: number }).length = count;
    return arrayFrom(items as ArrayLike<unknown>);
  }

  // What JSON cannot carry as it is but the boundary's table converts, as a plain object or array;
  // `undefined` when `value` is none of those (a valid Date is left to its toJSON); or the writer's
  // answer when reading it fails (`'V…'`) or would pass `budget` characters (`'L'`).
  function replacement(value: object, node: Node, budget: number): object | string | undefined {
    if (reads(dateGetTime, value)) {
      return isNotANumber(apply(dateGetTime, value, []) as number) ? violation(node, 'invalid-date') : undefined;
    }
    if (reads(mapSize, value)) {
      const size = apply(mapSize, value, []) as number;
      if (2 + 5 * size > budget) return 'L';
      const record = create(null) as Record<string, unknown>;
      const types = create(null) as Record<string, string>;
      const entries = apply(mapEntries, value, []);
      for (;;) {
        const step = apply(mapIteratorNext, entries, []) as IteratorResult<[unknown, unknown]>;
        if (step.done) break;
        const key = step.value[0];
        const type = typeof key;
        let name: string;
        if (type === 'string') name = key as string;
        else if (type === 'number' && !isNotANumber(key) && key !== 1 / 0 && key !== -1 / 0) name = `${key as number}`;
        else return violation(node, 'map-key', key === null ? 'null' : type === 'number' ? `${key as number}` : type);
        if (hasOwn(types, name)) return violation(node, 'map-key', `same:${types[name]}:${type}:${name}`);
        types[name] = type;
        record[name] = step.value[1];
      }
      return record;
    }
    if (reads(setSize, value)) {
      const size = apply(setSize, value, []) as number;
      if (1 + 2 * size > budget) return 'L';
      const items = create(null) as Record<number, unknown>;
      let count = 0;
      let numbers = true;
      let strings = true;
      const values = apply(setValues, value, []);
      for (;;) {
        const step = apply(setIteratorNext, values, []) as IteratorResult<unknown>;
        if (step.done) break;
        numbers = numbers && typeof step.value === 'number';
        strings = strings && typeof step.value === 'string';
        items[count++] = step.value;
      }
      const array = arrayOf(items, count);
      if (numbers) apply(arraySort, array, [(a: number, b: number) => a - b]);
      else if (strings) apply(arraySort, array, []);
      return array;
    }
    if (hasPrototype(value, errorPrototype)) {
      const record = create(null) as Record<string, unknown>;
      record.error = errorText(value);
      return record;
    }
    if (typeof dataProperty(value, 'toJSON') === 'function') return undefined;
    if (hasPrototype(value, typedArrayPrototype) || hasPrototype(value, stringPrototype)) return undefined;
    const iterate = dataProperty(value, iteratorSymbol);
    if (typeof iterate !== 'function') return undefined;
    // Read once, as `Array.from` would, until the items alone would pass the budget.
    const items = create(null) as Record<number, unknown>;
    let count = 0;
    let used = 2;
    let iterator: { next?: unknown; return?: unknown } | undefined;
    try {
      iterator = apply(iterate, value, []) as { next?: unknown };
      const next = iterator.next as () => { done?: unknown; value?: unknown };
      for (;;) {
        const step = apply(next, iterator, []);
        if (step.done) return arrayOf(items, count);
        const item = step.value;
        used += (count === 0 ? 0 : 1) + leastChars(item);
        if (used > budget) break;
        items[count++] = item;
      }
    } catch (error) {
      return violation(node, 'iterator-threw', thrownText(error));
    }
    try {
      // Told to stop, as `for...of` does when it leaves early; what that throws is ignored.
      const close = iterator.return;
      if (typeof close === 'function') apply(close, iterator, []);
    } catch {}
    return 'L';
  }

  return function writeJson(value: unknown, limitChars: number, depthLimit: number, streamChars = limitChars): string {
    const stack = create(null) as Record<number, Frame>;
    let top = 0;
    const ancestors = new MapConstructor<object, number>();
    const checked = new MapConstructor<object, true>();
    // Maps, Sets, iterators and errors met, with what they cross as: an iterator is read once.
    const replaced = new MapConstructor<object, object>();
    let text = '';
    let emitting = true;
    const emit = (piece: string) => {
      if (!emitting) return;
      if (text.length + piece.length > limitChars) {
        emitting = false;
        text = '';
        return;
      }
      text += piece;
    };
    stack[top++] = {
      kind: 'value',
      node: { value, parent: undefined, key: undefined, depth: 0 },
      container: undefined,
    };
    while (top > 0) {
      const frame = stack[--top]!;
      if (frame.kind === 'exit') {
        apply(mapDelete, ancestors, [frame.object]);
        apply(mapSet, checked, [frame.object, true]);
        emit(frame.text);
        continue;
      }
      const { node: found, container } = frame;
      let node = found;
      let current = node.value;
      let converted = false;
      if (typeof current === 'object' && current !== null && !isArray(current)) {
        let made = apply(mapGet, replaced, [current]) as object | string | undefined;
        if (made === undefined) {
          const prototype = getPrototypeOf(current);
          if (prototype !== objectPrototype && prototype !== null) {
            made = replacement(current, node, (emitting ? streamChars : 0) - text.length);
            if (typeof made === 'string') return made;
            if (made !== undefined) apply(mapSet, replaced, [current, made]);
          }
        }
        if (made !== undefined) {
          current = made;
          node = { value: current, parent: node.parent, key: node.key, depth: node.depth };
          converted = true;
        }
      }
      // A converted Map's `toJSON` key is data, never a method.
      if (!converted && ((typeof current === 'object' && current !== null) || typeof current === 'bigint')) {
        // As JSON.stringify does: the program's own method, run here in the context, with the key.
        const toJson = findToJson(current);
        if (toJson !== undefined) {
          const key = node.key === undefined ? '' : typeof node.key === 'number' ? `${node.key}` : node.key;
          current = apply(toJson, current, [key]);
          node = { value: current, parent: node.parent, key: node.key, depth: node.depth };
        }
      }
      if (current === undefined && container !== undefined) {
        // JSON.stringify's rules: an undefined property is left out, an undefined element is null.
        if (!container.array) continue;
        emit(container.written ? ',null' : 'null');
        container.written = true;
        continue;
      }
      const problem = primitiveKind(current);
      if (problem !== undefined) return violation(node, problem);
      if (container !== undefined) {
        const comma = container.written ? ',' : '';
        emit(container.array ? comma : `${comma}${stringify(node.key as string)}:`);
        container.written = true;
      }
      if (typeof current !== 'object' || current === null) {
        emit(typeof current === 'string' || typeof current === 'number' ? stringify(current) : `${current}`);
        continue;
      }
      if (!emitting && apply(mapHas, checked, [current])) continue;
      const cycleDepth = apply(mapGet, ancestors, [current]) as number | undefined;
      if (cycleDepth !== undefined) return violation(node, 'cycle', cycleDepth);
      if (node.depth >= depthLimit) return violation(node, 'depth', depthLimit);
      const array = isArray(current);
      const prototype = getPrototypeOf(current);
      if (array && prototype !== arrayPrototype) return violation(node, 'foreign-array');
      if (!array && prototype !== objectPrototype && prototype !== null) {
        return violation(node, 'exotic', exoticName(prototype));
      }
      apply(mapSet, ancestors, [current, node.depth]);
      const children = create(null) as Record<number, Node>;
      let count = 0;
      if (array) {
        const length = (current as unknown[]).length;
        for (let index = 0; index < length; index += 1) {
          const descriptor = getOwnPropertyDescriptor(current, index);
          const child: Node = { value: undefined, parent: node, key: index, depth: node.depth + 1 };
          if (descriptor === undefined) return violation(child, 'hole');
          if (!hasOwn(descriptor, 'value')) return violation(child, 'accessor');
          children[count++] = { value: descriptor.value, parent: node, key: index, depth: node.depth + 1 };
        }
        if (getOwnPropertySymbols(current).length > 0) return violation(node, 'array-symbols');
        const names = keys(current);
        const last = names[names.length - 1];
        if (last !== undefined && !isIndexBelow(last, length)) {
          for (let index = 0; index < names.length; index += 1) {
            const name = names[index]!;
            if (!isIndexBelow(name, length)) return violation(node, 'array-key', undefined, name);
          }
        }
      } else {
        if (getOwnPropertySymbols(current).length > 0) return violation(node, 'object-symbols');
        const names = keys(current);
        for (let index = 0; index < names.length; index += 1) {
          const name = names[index]!;
          const descriptor = getOwnPropertyDescriptor(current, name);
          const child: Node = { value: undefined, parent: node, key: name, depth: node.depth + 1 };
          if (descriptor === undefined) return violation(child, 'accessor');
          if (!hasOwn(descriptor, 'value')) return violation(child, 'accessor');
          children[count++] = { value: descriptor.value, parent: node, key: name, depth: node.depth + 1 };
        }
      }
      emit(array ? '[' : '{');
      stack[top++] = { kind: 'exit', text: array ? ']' : '}', object: current };
      const opened: Container = { array, written: false };
      for (let index = count - 1; index >= 0; index -= 1) {
        stack[top++] = { kind: 'value', node: children[index]!, container: opened };
      }
    }
    return emitting ? `T${text}` : 'L';
  };
}
