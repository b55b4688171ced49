import type { PreludeIntrinsics } from './prelude-intrinsics.js';

/**
 * In-context JSON writer. Serialised with `Function.prototype.toString` into the run's context, so
 * it must stay self-contained: no imports, no closures over module scope, strict code only.
 *
 * The returned function walks a program value as `JSON.stringify` would read it, writing compact
 * JSON text as it goes: a `toJSON` method (own or inherited, a data property) is called with its key,
 * here in the context, and its result written instead (so a `Date` becomes its ISO string); a
 * property whose value is `undefined` is left out and an `undefined` array element is written as
 * `null`. Everything else that JSON cannot carry is refused as `findJsonViolation` in the contract
 * refuses it (same order, same kinds) on the value with those conversions applied. It returns
 * `'T' + text`, `'V' + violation JSON` for the first violation, or `'L'` when the text would pass
 * `limitChars` UTF-16 units (a lower bound on its UTF-8 size) and the value is otherwise valid. An
 * object nested `depthLimit` levels deep is refused as `depth`, as the contract's `measureJson`
 * refuses it. Getters are never invoked; `toJSON` and Proxy traps run, here in the context, and
 * nowhere else, and whatever they throw is thrown to the caller.
 */
export function makeJsonWriter(
  intrinsics: PreludeIntrinsics,
): (value: unknown, limitChars: number, depthLimit: number) => string {
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

  return function writeJson(value: unknown, limitChars: number, depthLimit: number): string {
    const stack = create(null) as Record<number, Frame>;
    let top = 0;
    const ancestors = new MapConstructor<object, number>();
    const checked = new MapConstructor<object, true>();
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
      if ((typeof current === 'object' && current !== null) || typeof current === 'bigint') {
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
