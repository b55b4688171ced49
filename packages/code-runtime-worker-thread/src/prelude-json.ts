import type { PreludeIntrinsics } from './prelude-intrinsics.js';

/**
 * In-context JSON writer. Serialised with `Function.prototype.toString` into the run's context, so
 * it must stay self-contained: no imports, no closures over module scope, strict code only.
 *
 * The returned function walks a program value exactly as `findJsonViolation` in the contract does
 * (same order, same refusals), writing compact JSON text as it goes. It returns `'T' + text`,
 * `'V' + violation JSON` for the first violation, or `'L'` when the text would pass `limitChars`
 * UTF-16 units (a lower bound on its UTF-8 size) and the value is otherwise valid. An object nested
 * `depthLimit` levels deep is refused as `depth`, as the contract's `measureJson` refuses it. Getters are
 * never invoked; `toJSON` is never called; Proxy traps run, here in the context, and nowhere else.
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
  } = intrinsics;

  interface Node {
    readonly value: unknown;
    readonly parent: Node | undefined;
    readonly key: string | number | undefined;
    readonly depth: number;
  }
  type Frame =
    | { readonly kind: 'value'; readonly node: Node; readonly text: undefined; readonly object: undefined }
    | { readonly kind: 'text'; readonly node: undefined; readonly text: string; readonly object: undefined }
    | { readonly kind: 'exit'; readonly node: undefined; readonly text: string; readonly object: object };

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
      text: undefined,
      object: undefined,
    };
    while (top > 0) {
      const frame = stack[--top]!;
      if (frame.kind === 'text') {
        emit(frame.text);
        continue;
      }
      if (frame.kind === 'exit') {
        apply(mapDelete, ancestors, [frame.object]);
        apply(mapSet, checked, [frame.object, true]);
        emit(frame.text);
        continue;
      }
      const node = frame.node;
      const current = node.value;
      const problem = primitiveKind(current);
      if (problem !== undefined) return violation(node, problem);
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
      stack[top++] = { kind: 'exit', node: undefined, text: array ? ']' : '}', object: current };
      for (let index = count - 1; index >= 0; index -= 1) {
        const child = children[index]!;
        stack[top++] = { kind: 'value', node: child, text: undefined, object: undefined };
        const prefix = (index > 0 ? ',' : '') + (array ? '' : `${stringify(child.key as string)}:`);
        if (prefix !== '') stack[top++] = { kind: 'text', node: undefined, text: prefix, object: undefined };
      }
    }
    return emitting ? `T${text}` : 'L';
  };
}
