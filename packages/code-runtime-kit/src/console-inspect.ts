import type { makePrintf, PrintfIntrinsics } from './console-printf.js';

/** The built-ins {@link makeInspector} uses, taken before a program could replace them. */
export interface InspectIntrinsics extends PrintfIntrinsics {
  readonly keys: typeof Object.keys;
  readonly getPrototypeOf: typeof Object.getPrototypeOf;
  readonly getOwnPropertyDescriptor: typeof Object.getOwnPropertyDescriptor;
  readonly hasOwn: typeof Object.hasOwn;
  readonly is: typeof Object.is;
  readonly isNotANumber: typeof Number.isNaN;
  readonly isArray: typeof Array.isArray;
  readonly charCodeAt: (this: string, index: number) => number;
  readonly symbolToString: (this: symbol) => string;
  readonly functionToString: (this: (...args: never[]) => unknown) => string;
  readonly dateToISOString: (this: Date) => string;
  readonly dateGetTime: (this: Date) => number;
  readonly regExpToString: (this: RegExp) => string;
  readonly Map: MapConstructor;
  readonly mapGet: (this: Map<unknown, unknown>, key: unknown) => unknown;
  readonly mapSet: (this: Map<unknown, unknown>, key: unknown, value: unknown) => Map<unknown, unknown>;
  readonly mapDelete: (this: Map<unknown, unknown>, key: unknown) => boolean;
  readonly objectPrototype: object;
  readonly errorPrototype: object;
  readonly datePrototype: object;
  readonly regExpPrototype: object;
  readonly mapPrototype: object;
  readonly setPrototype: object;
  readonly promisePrototype: object;
  readonly typedArrayPrototype: object;
  readonly mapEntries: (this: Map<unknown, unknown>) => Iterator<[unknown, unknown]>;
  readonly setValues: (this: Set<unknown>) => Iterator<unknown>;
  readonly mapSize: (this: Map<unknown, unknown>) => number;
  readonly setSize: (this: Set<unknown>) => number;
  readonly mapIteratorNext: (this: Iterator<[unknown, unknown]>) => IteratorResult<[unknown, unknown]>;
  readonly setIteratorNext: (this: Iterator<unknown>) => IteratorResult<unknown>;
  readonly typedArrayLength: (this: Uint8Array) => number;
  readonly typedArrayName: (this: Uint8Array) => string | undefined;
}

/**
 * Captures {@link InspectIntrinsics} from the realm it runs in. Self-contained, strict, no imports:
 * the QuickJS provider evaluates it inside its guest (the worker-thread provider's prelude captures
 * a superset of its own).
 */
export function captureInspectIntrinsics(): InspectIntrinsics {
  const typedArray = (Object.getPrototypeOf(Uint8Array) as { prototype: object }).prototype;
  const getter = (owner: object, name: PropertyKey) => Object.getOwnPropertyDescriptor(owner, name)!.get as never;
  return {
    apply: Reflect.apply,
    indexOf: String.prototype.indexOf,
    stringSlice: String.prototype.slice,
    stringify: JSON.stringify,
    trunc: Math.trunc,
    String,
    Number,
    keys: Object.keys,
    getPrototypeOf: Object.getPrototypeOf,
    getOwnPropertyDescriptor: Object.getOwnPropertyDescriptor,
    hasOwn: Object.hasOwn,
    is: Object.is,
    isNotANumber: Number.isNaN,
    isArray: Array.isArray,
    charCodeAt: String.prototype.charCodeAt,
    symbolToString: Symbol.prototype.toString,
    functionToString: Function.prototype.toString,
    dateToISOString: Date.prototype.toISOString,
    dateGetTime: Date.prototype.getTime,
    regExpToString: RegExp.prototype.toString,
    Map,
    mapGet: Map.prototype.get,
    mapSet: Map.prototype.set,
    mapDelete: Map.prototype.delete,
    objectPrototype: Object.prototype,
    errorPrototype: Error.prototype,
    datePrototype: Date.prototype,
    regExpPrototype: RegExp.prototype,
    mapPrototype: Map.prototype,
    setPrototype: Set.prototype,
    promisePrototype: Promise.prototype,
    typedArrayPrototype: typedArray,
    mapEntries: Map.prototype.entries,
    setValues: Set.prototype.values,
    mapSize: getter(Map.prototype, 'size'),
    setSize: getter(Set.prototype, 'size'),
    mapIteratorNext: Object.getPrototypeOf(new Map().entries()).next,
    setIteratorNext: Object.getPrototypeOf(new Set().values()).next,
    typedArrayLength: getter(typedArray, 'length'),
    typedArrayName: getter(typedArray, Symbol.toStringTag),
  };
}

/**
 * `console` formatting in the spirit of Node's `util.inspect` on one line, run inside the guest:
 * the worker-thread provider serialises it with `Function.prototype.toString` into each run's
 * context, the QuickJS provider into its guest the first time a run prints something other than
 * text, so both print alike. Self-contained, strict, no imports.
 * Accessors print as `[Getter]` and are never invoked; Proxy traps may run, in the guest, under
 * the run's budgets. An instance of a class the web globals made (a `URL`, say), found by its
 * prototype in `described`, prints as the plain object its describer builds from the instance's
 * private state. What a value's getters and traps throw prints as `[value that could not be
 * inspected]`, except what `fatal` says the engine threw to end the run (QuickJS's catchable out of
 * memory), which is thrown on. Returns `(args) => text`, the text of one `console` call.
 */
export function makeInspector(
  intrinsics: InspectIntrinsics,
  printf: typeof makePrintf,
  described: ReadonlyMap<object, (value: object) => object> = new intrinsics.Map(),
  fatal: (error: unknown) => boolean = () => false,
): (args: readonly unknown[]) => string {
  const {
    apply,
    keys,
    getPrototypeOf,
    getOwnPropertyDescriptor,
    hasOwn,
    is,
    isNotANumber,
    isArray,
    stringify,
    String: StringConstructor,
    charCodeAt,
    stringSlice,
    indexOf,
    symbolToString,
    functionToString,
    dateToISOString,
    dateGetTime,
    regExpToString,
    Map: MapConstructor,
    mapGet,
    mapSet,
    mapDelete,
    errorPrototype,
    datePrototype,
    regExpPrototype,
    mapPrototype,
    setPrototype,
    promisePrototype,
    typedArrayPrototype,
    mapEntries,
    setValues,
    mapSize,
    setSize,
    mapIteratorNext,
    setIteratorNext,
    typedArrayLength,
    typedArrayName,
    objectPrototype,
  } = intrinsics;
  const maxDepth = 2;
  const maxItems = 100;
  const maxStringLength = 10_000;

  function inherits(value: object, prototype: object): boolean {
    let current: object | null = getPrototypeOf(value);
    for (let hops = 0; current !== null && hops < 64; hops += 1) {
      if (current === prototype) return true;
      current = getPrototypeOf(current);
    }
    return false;
  }

  function quote(text: string): string {
    const cut = text.length > maxStringLength ? `${apply(stringSlice, text, [0, maxStringLength])}... ` : text;
    const json = stringify(cut);
    // JSON escapes are readable; switch the outer quotes to single ones as Node does.
    let inner = apply(stringSlice, json, [1, json.length - 1]);
    if (apply(indexOf, inner, ["'"]) !== -1 && apply(indexOf, inner, ['\\"']) === -1) return json;
    let result = '';
    for (let index = 0; index < inner.length; index += 1) {
      const code = apply(charCodeAt, inner, [index]);
      if (code === 92 && apply(charCodeAt, inner, [index + 1]) === 34) {
        result += '"';
        index += 1;
      } else if (code === 39) result += "\\'";
      else result += apply(stringSlice, inner, [index, index + 1]);
    }
    inner = result;
    return `'${inner}'${text.length > maxStringLength ? ` (${text.length - maxStringLength} more characters)` : ''}`;
  }

  function keyText(key: string): string {
    let plain = key.length > 0;
    for (let index = 0; index < key.length && plain; index += 1) {
      const code = apply(charCodeAt, key, [index]);
      const letter = (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36;
      plain = letter || (index > 0 && code >= 48 && code <= 57);
    }
    return plain ? key : quote(key);
  }

  function constructorName(value: object): string {
    const prototype = getPrototypeOf(value);
    if (prototype === null) return '';
    const descriptor = getOwnPropertyDescriptor(prototype, 'constructor');
    const owner = descriptor !== undefined && hasOwn(descriptor, 'value') ? descriptor.value : undefined;
    if (typeof owner !== 'function') return '';
    const name = getOwnPropertyDescriptor(owner, 'name');
    return name !== undefined && hasOwn(name, 'value') && typeof name.value === 'string' ? name.value : '';
  }

  function functionText(value: (...args: unknown[]) => unknown): string {
    let source = '';
    try {
      source = apply(functionToString, value, []);
    } catch {}
    const nameDescriptor = getOwnPropertyDescriptor(value, 'name');
    const name = nameDescriptor !== undefined && hasOwn(nameDescriptor, 'value') ? nameDescriptor.value : '';
    const label = typeof name === 'string' && name !== '' ? name : '(anonymous)';
    return apply(stringSlice, source, [0, 6]) === 'class ' ? `[class ${label}]` : `[Function: ${label}]`;
  }

  function format(value: unknown, depth: number, seen: Map<object, true>): string {
    switch (typeof value) {
      case 'string':
        return quote(value);
      case 'number':
        return is(value, -0) ? '-0' : StringConstructor(value);
      case 'bigint':
        return `${StringConstructor(value)}n`;
      case 'symbol':
        return apply(symbolToString, value, []);
      case 'function':
        return functionText(value as (...args: unknown[]) => unknown);
      case 'undefined':
        return 'undefined';
      case 'boolean':
        return value ? 'true' : 'false';
    }
    if (value === null) return 'null';
    const object = value as object;
    if (apply(mapGet, seen, [object]) !== undefined) return '[Circular]';
    const name = constructorName(object);
    if (inherits(object, errorPrototype)) {
      const stack = getOwnPropertyDescriptor(object, 'stack');
      if (stack !== undefined && hasOwn(stack, 'value') && typeof stack.value === 'string') {
        const frames = programFrames(stack.value);
        // V8's stack starts with the name and message; QuickJS's holds only the frames.
        if (apply(indexOf, stack.value, ['    at ']) !== 0) return frames;
        return frames === '' ? describeError(object) : `${describeError(object)}\n${frames}`;
      }
      return describeError(object);
    }
    if (inherits(object, datePrototype)) {
      const time = apply(dateGetTime, object as Date, []);
      return isNotANumber(time) ? 'Invalid Date' : apply(dateToISOString, object as Date, []);
    }
    if (inherits(object, regExpPrototype)) return apply(regExpToString, object as RegExp, []);
    if (inherits(object, promisePrototype)) return 'Promise { <state unknown> }';
    if (depth > maxDepth) return isArray(object) ? '[Array]' : `[${name === '' ? 'Object' : name}]`;
    apply(mapSet, seen, [object, true]);
    try {
      const parts = create();
      let prefix = '';
      let source = object;
      let open = '{';
      let close = '}';
      if (isArray(object)) {
        open = '[';
        close = ']';
        const length = (object as unknown[]).length;
        for (let index = 0; index < length && index < maxItems; index += 1)
          parts.add(member(object, index, depth, seen));
        if (length > maxItems) parts.add(`... ${length - maxItems} more items`);
      } else if (inherits(object, mapPrototype)) {
        prefix = `Map(${apply(mapSize, object as Map<unknown, unknown>, [])}) `;
        const iterator = apply(mapEntries, object as Map<unknown, unknown>, []);
        for (let step = apply(mapIteratorNext, iterator, []); !step.done; step = apply(mapIteratorNext, iterator, [])) {
          if (parts.count >= maxItems) {
            parts.add('...');
            break;
          }
          parts.add(`${format(step.value[0], depth + 1, seen)} => ${format(step.value[1], depth + 1, seen)}`);
        }
      } else if (inherits(object, setPrototype)) {
        prefix = `Set(${apply(setSize, object as Set<unknown>, [])}) `;
        const iterator = apply(setValues, object as Set<unknown>, []);
        for (let step = apply(setIteratorNext, iterator, []); !step.done; step = apply(setIteratorNext, iterator, [])) {
          if (parts.count >= maxItems) {
            parts.add('...');
            break;
          }
          parts.add(format(step.value, depth + 1, seen));
        }
      } else if (inherits(object, typedArrayPrototype)) {
        const length = apply(typedArrayLength, object as Uint8Array, []);
        prefix = `${apply(typedArrayName, object as Uint8Array, []) ?? 'TypedArray'}(${length}) `;
        open = '[';
        close = ']';
        for (let index = 0; index < length && index < maxItems; index += 1) {
          parts.add(format((object as Uint8Array)[index], depth + 1, seen));
        }
        if (length > maxItems) parts.add(`... ${length - maxItems} more items`);
      } else {
        const prototype = getPrototypeOf(object);
        if (prototype === null) prefix = '[Object: null prototype] ';
        else if (prototype !== objectPrototype && name !== 'Object') prefix = `${name === '' ? 'Object' : name} `;
        const describe = prototype === null ? undefined : apply(mapGet, described, [prototype]);
        if (describe !== undefined) {
          try {
            source = describe(object);
          } catch {
            // Not a real instance (made with Object.create, say): print its own properties.
          }
        }
      }
      if (!isArray(object) && !inherits(object, typedArrayPrototype)) {
        const names = keys(source);
        for (let index = 0; index < names.length; index += 1) {
          if (parts.count >= maxItems) {
            parts.add(`... ${names.length - index} more properties`);
            break;
          }
          const key = names[index]!;
          parts.add(`${keyText(key)}: ${member(source, key, depth, seen)}`);
        }
      }
      if (parts.count === 0) return `${prefix}${open}${close}`;
      return `${prefix}${open} ${parts.text} ${close}`;
    } finally {
      apply(mapDelete, seen, [object]);
    }
  }

  function member(object: object, key: string | number, depth: number, seen: Map<object, true>): string {
    const descriptor = getOwnPropertyDescriptor(object, key);
    if (descriptor === undefined) return '<empty>';
    if (!hasOwn(descriptor, 'value')) {
      const getter = descriptor.get !== undefined;
      const setter = descriptor.set !== undefined;
      return getter && setter ? '[Getter/Setter]' : getter ? '[Getter]' : '[Setter]';
    }
    return format(descriptor.value, depth + 1, seen);
  }

  function create(): { count: number; text: string; add(piece: string): void } {
    const list = {
      count: 0,
      text: '',
      add(piece: string) {
        list.text += list.count === 0 ? piece : `, ${piece}`;
        list.count += 1;
      },
    };
    return list;
  }

  // Keeps the message and the program's own frames; the host maps `program.js:L:C` to the source.
  // It searches the whole text rather than walking it line by line: QuickJS interprets this code,
  // and a walk took seconds of the run's budgets for a stack of a million lines printed as one.
  function programFrames(stack: string): string {
    // The frames start at the first line that starts with `    at ` (past the end when none does).
    let frames = stack.length + 1;
    if (apply(indexOf, stack, ['    at ']) === 0) frames = 0;
    else {
      const newline = apply(indexOf, stack, ['\n    at ']);
      if (newline !== -1) frames = newline + 1;
    }
    // The lines before them as they are, less the empty lines they start with.
    let start = 0;
    while (start < frames - 1 && apply(charCodeAt, stack, [start]) === 10) start += 1;
    let kept = frames === 0 ? '' : apply(stringSlice, stack, [start, frames - 1]);
    // Of the frames, the lines that name program.js.
    let lineStart = frames;
    let hit = frames > stack.length ? -1 : apply(indexOf, stack, ['program.js:', frames]);
    while (hit !== -1) {
      let newline = apply(indexOf, stack, ['\n', lineStart]);
      while (newline !== -1 && newline < hit) {
        lineStart = newline + 1;
        newline = apply(indexOf, stack, ['\n', lineStart]);
      }
      const end = newline === -1 ? stack.length : newline;
      const line = apply(stringSlice, stack, [lineStart, end]);
      kept += kept === '' ? line : `\n${line}`;
      lineStart = end + 1;
      hit = lineStart > stack.length ? -1 : apply(indexOf, stack, ['program.js:', lineStart]);
    }
    return kept;
  }

  function describeError(error: object): string {
    let name = 'Error';
    let message = '';
    try {
      const value = (error as { name?: unknown }).name;
      if (typeof value === 'string') name = value;
    } catch {}
    try {
      const value = (error as { message?: unknown }).message;
      if (typeof value === 'string') message = value;
    } catch {}
    return message === '' ? name : `${name}: ${message}`;
  }

  function show(value: unknown): string {
    try {
      return typeof value === 'string' ? value : format(value, 0, new MapConstructor<object, true>());
    } catch (error) {
      if (fatal(error)) throw error;
      return '[value that could not be inspected]';
    }
  }

  const substitute = printf(intrinsics, show, quote);

  return function inspect(args: readonly unknown[]): string {
    let text = '';
    let first = 0;
    if (typeof args[0] === 'string' && args.length > 1 && apply(indexOf, args[0], ['%']) !== -1) {
      const substituted = substitute(args[0], args);
      text = substituted.text;
      first = substituted.used;
      for (let index = first; index < args.length; index += 1) text += ` ${show(args[index])}`;
      return text;
    }
    for (let index = first; index < args.length; index += 1) {
      const value = args[index];
      let piece: string;
      try {
        piece = typeof value === 'string' ? value : format(value, 0, new MapConstructor<object, true>());
      } catch (error) {
        if (fatal(error)) throw error;
        piece = '[value that could not be inspected]';
      }
      text += index === 0 ? piece : ` ${piece}`;
    }
    return text;
  };
}
